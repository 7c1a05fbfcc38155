package memory

import "time"

// Trace is the wall time of each stage of one recall (Query.Trace). The
// lexical search runs beside the query embedding and the vector search, so
// Lexical and Embed+Vector overlap: Find is the stage's wall time.
type Trace struct {
	Analyse time.Duration `json:"analyse_ns"` // query analysis, the session's topic
	Find    time.Duration `json:"find_ns"`    // both candidate searches, at once
	Lexical time.Duration `json:"lexical_ns"` // the full-text search
	Embed   time.Duration `json:"embed_ns"`   // the query's embedding
	Vector  time.Duration `json:"vector_ns"`  // the vector search
	Fuse    time.Duration `json:"fuse_ns"`    // union, fusion and the profile's adjustments
	MMR     time.Duration `json:"mmr_ns"`     // ordering, diversity, the cut
	Access  time.Duration `json:"access_ns"`  // handing the access record to the recorder
	Links   time.Duration `json:"links_ns"`   // following links (traverse_hops)
	Total   time.Duration `json:"total_ns"`
}

// stopwatch times the stages of one recall; a nil stopwatch times nothing.
type stopwatch struct {
	t    *Trace
	last time.Time
}

func newStopwatch(on bool) *stopwatch {
	if !on {
		return nil
	}
	return &stopwatch{t: &Trace{}, last: time.Now()}
}

// lap adds the time since the last lap to *d.
func (w *stopwatch) lap(d func(*Trace) *time.Duration) {
	if w == nil {
		return
	}
	now := time.Now()
	*d(w.t) += now.Sub(w.last)
	w.last = now
}

// since returns the time from t0, or zero when not timing.
func (w *stopwatch) since(t0 time.Time) time.Duration {
	if w == nil {
		return 0
	}
	return time.Since(t0)
}

// now is the clock when timing, else zero.
func (w *stopwatch) now() time.Time {
	if w == nil {
		return time.Time{}
	}
	return time.Now()
}
