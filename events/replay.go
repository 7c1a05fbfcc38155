package events

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// SinkFunc adapts a function to Sink.
type SinkFunc func(ctx context.Context, e mnemo.Event) error

// Publish calls f.
func (f SinkFunc) Publish(ctx context.Context, e mnemo.Event) error { return f(ctx, e) }

// ReplayOptions choose what a replay re-publishes and how fast.
type ReplayOptions struct {
	// EventQuery is the window and its filters; Limit is ignored and
	// Cursor resumes an interrupted replay (ReplayResult.Next).
	mnemo.EventQuery
	// Speed is how many times faster than it happened: 1 is real speed,
	// 10 ten times faster, 0 as fast as the sink takes them.
	Speed float64 `json:"speed,omitempty"`
}

// ReplayResult says how far a replay got.
type ReplayResult struct {
	Published int `json:"published"`
	// Next resumes the replay after the last event published (a cursor),
	// "" when nothing was.
	Next string `json:"next,omitempty"`
}

// Replay re-publishes the scope's events of a window to sink in their
// original order (EVT-4), waiting between events as long as
// they were apart divided by Speed. It stops at the first event the sink
// fails to take, or when ctx is cancelled, and says how far it got. It
// reads page by page and holds nothing open while it waits, so that a slow
// or failing sink never blocks writers.
func (s *Service) Replay(ctx context.Context, scope mnemo.Scope, o ReplayOptions, sink Sink) (ReplayResult, error) {
	var res ReplayResult
	if o.Speed < 0 {
		return res, mnemo.Errorf(mnemo.EINVALID, "speed must be 0 (as fast as possible) or more, not %g", o.Speed)
	}
	if sink == nil {
		return res, mnemo.Errorf(mnemo.EINVALID, "no subscriber to replay to")
	}
	var prev time.Time
	err := s.eachEvent(ctx, scope, o.EventQuery, func(e mnemo.Event) error {
		if o.Speed > 0 && !prev.IsZero() {
			if gap := time.Duration(float64(e.TS.Sub(prev)) / o.Speed); gap > 0 {
				t := time.NewTimer(gap)
				select {
				case <-ctx.Done():
					t.Stop()
					return ctx.Err()
				case <-t.C:
				}
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := sink.Publish(ctx, e); err != nil {
			return fmt.Errorf("replay: event %s: %w", e.ID, err)
		}
		prev = e.TS
		res.Published++
		res.Next = mnemo.EventCursor{TS: e.TS, Seq: e.Seq}.String()
		return nil
	})
	return res, err
}

// Export formats.
const (
	ExportJSON = "json"
	ExportCSV  = "csv"
)

// ExportFormat is the version of the JSON export's shape.
const ExportFormat = "mnemo.events/v1"

// ExportResult counts what an export wrote.
type ExportResult struct {
	Events       int `json:"events"`
	Relations    int `json:"relations"`
	Embeddings   int `json:"embeddings"`
	Summaries    int `json:"summaries"`
	Capabilities int `json:"capabilities"`
}

// exportHeader is the JSON export's head: every layer's key is there, an
// empty array when the layer has nothing in the window.
type exportHeader struct {
	Format   string     `json:"format"`
	TenantID string     `json:"tenant_id"`
	AgentID  string     `json:"agent_id"`
	From     *time.Time `json:"from,omitempty"`
	To       *time.Time `json:"to,omitempty"`
}

// csvHeader is the CSV export's header: one table for every layer, told
// apart by the layer column.
var csvHeader = []string{"layer", "id", "ts", "type", "source", "target", "confidence", "data", "metadata"}

// ExportEvents writes the scope's events of a window, the relations
// touching them, the summaries of periods starting in it and the scope's
// capabilities, as JSON (one object with a key per layer, L1 to L5) or
// CSV (one row per item, a layer column saying which). Errors: EINVALID (a
// bad format or window), EUNAVAILABLE.
func (s *Service) ExportEvents(ctx context.Context, scope mnemo.Scope, q mnemo.EventQuery, format string, w io.Writer) (ExportResult, error) {
	var n ExportResult
	if format != ExportJSON && format != ExportCSV {
		return n, mnemo.Errorf(mnemo.EINVALID, "export format must be json or csv, not %q", format)
	}
	if err := mnemo.CheckScope(scope); err != nil {
		return n, err
	}
	es, err := s.eventStore()
	if err != nil {
		return n, err
	}
	if _, err := mnemo.CheckEventQuery(q); err != nil {
		return n, err
	}
	type edgeKey struct{ s, t, typ string }
	seen := map[edgeKey]bool{}
	var rels []mnemo.Relation
	var vecs []mnemo.StoredEventVector
	var page []string
	flush := func() error {
		if len(page) == 0 {
			return nil
		}
		if vs := s.store.EventVectors; vs != nil {
			got, err := vs.EventVectorsOf(ctx, scope, page)
			if err != nil {
				return err
			}
			vecs = append(vecs, got...)
		}
		rs, err := es.Relations(ctx, scope, mnemo.RelationQuery{IDs: page})
		if err != nil {
			return err
		}
		for _, r := range rs {
			if k := (edgeKey{r.Source, r.Target, r.Type}); !seen[k] {
				seen[k] = true
				rels = append(rels, r)
			}
		}
		page = page[:0]
		return nil
	}

	var (
		cw    *csv.Writer
		first = true
	)
	if format == ExportCSV {
		cw = csv.NewWriter(w)
		if err := cw.Write(csvHeader); err != nil {
			return n, err
		}
	} else {
		head, _ := json.Marshal(exportHeader{Format: ExportFormat, TenantID: scope.TenantID, AgentID: scope.AgentID, From: q.From, To: q.To})
		if _, err := fmt.Fprintf(w, "%s,\"layers\":{\"l1_events\":[", head[:len(head)-1]); err != nil {
			return n, err
		}
	}
	err = s.eachEvent(ctx, scope, q, func(e mnemo.Event) error {
		n.Events++
		if page = append(page, e.ID); len(page) == 500 {
			if err := flush(); err != nil {
				return err
			}
		}
		if cw != nil {
			return cw.Write([]string{"L1", e.ID, e.TS.Format(time.RFC3339Nano), e.Type, e.Source, "", "", string(e.Data), string(e.Metadata)})
		}
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if !first {
			w.Write([]byte{','})
		}
		first = false
		_, err = w.Write(b)
		return err
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return n, err
	}
	n.Relations, n.Embeddings = len(rels), len(vecs)
	sums, caps, err := s.exportInsights(ctx, scope, q)
	if err != nil {
		return n, err
	}
	n.Summaries, n.Capabilities = len(sums), len(caps)
	if cw != nil {
		for _, r := range rels {
			cw.Write([]string{"L2", "", r.CreatedAt.Format(time.RFC3339Nano), r.Type, r.Source, r.Target, strconv.FormatFloat(r.Confidence, 'f', -1, 64), "", ""})
		}
		for _, v := range vecs { // type: the modality, source: the model, data: the vector
			vb, _ := json.Marshal(v.Vector)
			mb, _ := json.Marshal(map[string]any{"input": v.Input, "access_count": v.AccessCount})
			cw.Write([]string{"L3", v.EventID, "", v.Modality, v.Model, "", "", string(vb), string(mb)})
		}
		// L4 and L5 rows carry the whole item as JSON in data.
		for _, sm := range sums {
			b, _ := json.Marshal(sm)
			cw.Write([]string{"L4", string(sm.Period) + "/" + sm.Start.Format(time.RFC3339), sm.Start.Format(time.RFC3339Nano), string(sm.Period), "", "", "", string(b), ""})
		}
		for _, c := range caps {
			b, _ := json.Marshal(c)
			cw.Write([]string{"L5", c.TaskType, c.LastSeen.Format(time.RFC3339Nano), "capability", "", "", "", string(b), ""})
		}
		cw.Flush()
		return n, cw.Error()
	}
	if rels == nil {
		rels = []mnemo.Relation{}
	}
	b, err := json.Marshal(rels)
	if err != nil {
		return n, err
	}
	if vecs == nil {
		vecs = []mnemo.StoredEventVector{}
	}
	vb, err := json.Marshal(vecs)
	if err != nil {
		return n, err
	}
	sb, err := json.Marshal(sums)
	if err != nil {
		return n, err
	}
	cb, err := json.Marshal(caps)
	if err != nil {
		return n, err
	}
	_, err = fmt.Fprintf(w, "],\"l2_relations\":%s,\"l3_embeddings\":%s,\"l4_summaries\":%s,\"l5_capabilities\":%s}}\n", b, vb, sb, cb)
	return n, err
}

// exportInsights returns what an export holds of L4 and L5: the summaries
// of periods that start in the window, and every capability of the scope
// (capabilities are learnt from all events, not a window's), candidates
// below the threshold too. A store that keeps neither has none.
func (s *Service) exportInsights(ctx context.Context, scope mnemo.Scope, q mnemo.EventQuery) ([]mnemo.Summary, []mnemo.Capability, error) {
	is, ok := s.store.Insights, s.store.Insights != nil
	if !ok {
		return []mnemo.Summary{}, []mnemo.Capability{}, nil
	}
	sums, err := is.Summaries(ctx, scope, mnemo.SummaryQuery{From: q.From, To: q.To, Limit: math.MaxInt32})
	if err != nil {
		return nil, nil, err
	}
	caps, err := is.Capabilities(ctx, scope)
	if err != nil {
		return nil, nil, err
	}
	if sums == nil {
		sums = []mnemo.Summary{}
	}
	if caps == nil {
		caps = []mnemo.Capability{}
	}
	for i := range sums {
		levelSummary(&sums[i])
	}
	levelCapabilities(caps)
	return sums, caps, nil
}

// A Sink receives replayed events: a webhook, a Server-Sent Events
// stream, a NATS subject. Publish returns once the event is handed over, or
// an error when the sink gave up on it.
type Sink interface {
	Publish(ctx context.Context, e mnemo.Event) error
}
