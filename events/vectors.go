package events

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/internal/worker"
	"github.com/mnemo-dev/mnemo/security"
	"github.com/mnemo-dev/mnemo/vector"
)

// The third layer, L3 (EVT-8, EVT-9): embeddings of events, searched by
// meaning.
//
// An event with text (see Text) gets a vector from Deps.Embedder,
// the embedder memories use; an event carrying media references
// (metadata.media: [{"uri": ..., "mime": "image/png"}]) gets one per
// modality from the embedder configured for it, or carries vectors its
// caller made (Event.Vectors, each with its model's name). Vectors are
// written in the append's transaction with the event and its relations:
// all or nothing. With an in-process embedder the text vector is made
// before the transaction; with a remote one (Deps.AsyncEmbedding), and
// for media always, a row without a vector is written instead and a
// worker fills it in after the commit, so a slow provider never holds a
// writer.
//
// Search scores every vector of the scope in the query's space exactly
// (a cosine scan of the rows its filters leave) instead of keeping an
// HNSW index as memories do: event vectors are pruned after 30 days
// (VectorOptions.KeepFor) unless searches keep finding them, so a
// scope holds a month of events, and a scan is exact, reads only what the
// filters leave, and has nothing to rebuild or persist. Its cost is
// linear: BenchmarkSearchEvents10k measures 10,000 vectors of 512
// dimensions. A scope that keeps far more live event vectors would want
// the vector package's index, kept per scope the way sqlite/ann_cache.go does.

var modalities = []string{mnemo.ModalityText, mnemo.ModalityImage, mnemo.ModalityAudio, mnemo.ModalityVideo}

// maxVectorDim bounds a caller-supplied vector.
const maxVectorDim = 8192

// MediaRef is a media reference an event carries in metadata.media.
type MediaRef struct {
	URI  string `json:"uri"`
	MIME string `json:"mime"`
}

// Modality returns the modality of the reference's MIME type, "" when none
// is known.
func (m MediaRef) Modality() string {
	major, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(m.MIME)), "/")
	switch major {
	case mnemo.ModalityImage, mnemo.ModalityAudio, mnemo.ModalityVideo:
		return major
	}
	return ""
}

// VectorOptions configure L3.
type VectorOptions struct {
	// Off keeps events without vectors even when an embedder is set.
	Off bool
	// Media are the embedders of media references by modality ("image",
	// "audio", "video"), each given the reference's URI as its input: an
	// OpenAI-compatible multimodal endpoint (embed/openai with the model of
	// that modality). Search crosses modalities whose embedders share the
	// text embedder's model and dimension.
	Media map[string]mnemo.Embedder
	// KeepFor is the age past which PruneEventVectors drops vectors of
	// events (0: 30 days, EVT-15) ...
	KeepFor time.Duration
	// ... unless a search returned the event at least KeepAccessed times
	// (0: 3).
	KeepAccessed int
}

// DefaultVectorKeep is how long event vectors stay (EVT-15: 30 days).
const DefaultVectorKeep = 30 * 24 * time.Hour

// Search asks for the events nearest a query by meaning.
type Search struct {
	// Query is text, embedded with the query embedder; or Vector, made by
	// Model (for a query of another modality, e.g. an image's vector).
	Query  string    `json:"query,omitempty"`
	Vector []float32 `json:"vector,omitempty"`
	Model  string    `json:"model,omitempty"`
	// Modalities limit the vectors searched; none: every modality of the
	// query's space.
	Modalities []string   `json:"modalities,omitempty"`
	From       *time.Time `json:"from,omitempty"`
	To         *time.Time `json:"to,omitempty"`
	Types      []string   `json:"types,omitempty"`
	Sources    []string   `json:"sources,omitempty"`
	Limit      int        `json:"limit,omitempty"` // 0: 10 (EVT-8's top-k)
	// Lexical weighs the share of query words found in an event's text
	// into the score (0 to 1; 0: by meaning alone).
	Lexical float64 `json:"lexical,omitempty"`
}

// Hit is an event a search found.
type Hit struct {
	Event    mnemo.Event `json:"event"`
	Score    float64     `json:"score"`
	Semantic float64     `json:"semantic"`
	Lexical  float64     `json:"lexical,omitempty"`
	Modality string      `json:"modality"` // of the vector that matched
}

// Text returns the text of an event that L3 embeds: data when it is a
// string; else data's text fields (text, content, message, input, query,
// output, summary, description, title), or every string in it when it
// has none of those.
func Text(e mnemo.Event) string {
	if len(e.Data) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(e.Data, &v) != nil {
		return ""
	}
	switch d := v.(type) {
	case string:
		return strings.TrimSpace(d)
	case map[string]any:
		var parts []string
		for _, k := range []string{"title", "text", "content", "message", "input", "query", "output", "summary", "description"} {
			if s, ok := d[k].(string); ok && strings.TrimSpace(s) != "" {
				parts = append(parts, strings.TrimSpace(s))
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n")
		}
		return strings.Join(stringLeaves(d, nil), "\n")
	case []any:
		return strings.Join(stringLeaves(d, nil), "\n")
	}
	return ""
}

// stringLeaves collects the prose strings of a JSON value: not ids, not
// single tokens.
func stringLeaves(v any, out []string) []string {
	switch d := v.(type) {
	case string:
		if strings.ContainsFunc(strings.TrimSpace(d), unicode.IsSpace) || hasHan(d) {
			out = append(out, strings.TrimSpace(d))
		}
	case map[string]any:
		keys := make([]string, 0, len(d))
		for k := range d {
			if !strings.HasSuffix(k, "_id") && k != "id" {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = stringLeaves(d[k], out)
		}
	case []any:
		for _, x := range d {
			out = stringLeaves(x, out)
		}
	}
	return out
}

func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// Media returns the media references in an event's metadata.media.
func Media(e mnemo.Event) ([]MediaRef, error) {
	if len(e.Metadata) == 0 {
		return nil, nil
	}
	var md struct {
		Media json.RawMessage `json:"media"`
	}
	if err := json.Unmarshal(e.Metadata, &md); err != nil || len(md.Media) == 0 || string(md.Media) == "null" {
		return nil, nil
	}
	var refs []MediaRef
	if err := json.Unmarshal(md.Media, &refs); err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, `metadata.media must be a list of {"uri": ..., "mime": ...}`)
	}
	for i, r := range refs {
		if strings.TrimSpace(r.URI) == "" {
			return nil, mnemo.Errorf(mnemo.EINVALID, "metadata.media[%d]: uri is required", i)
		}
		if r.Modality() == "" {
			return nil, mnemo.Errorf(mnemo.EINVALID, "metadata.media[%d]: mime %q is not an image, audio or video type", i, r.MIME)
		}
	}
	return refs, nil
}

// checkEventVectors validates the vectors a caller supplied.
func checkEventVectors(vs []mnemo.EventVector) error {
	seen := map[string]bool{}
	for i, v := range vs {
		if !slices.Contains(modalities, v.Modality) {
			return mnemo.Errorf(mnemo.EINVALID, "vectors[%d]: modality must be one of %s, not %q", i, strings.Join(modalities, ", "), v.Modality)
		}
		if seen[v.Modality] {
			return mnemo.Errorf(mnemo.EINVALID, "vectors[%d]: a second %s vector; one per modality", i, v.Modality)
		}
		seen[v.Modality] = true
		if strings.TrimSpace(v.Model) == "" {
			return mnemo.Errorf(mnemo.EINVALID, "vectors[%d]: model is required: search compares only vectors of one model", i)
		}
		if len(v.Vector) == 0 || len(v.Vector) > maxVectorDim {
			return mnemo.Errorf(mnemo.EINVALID, "vectors[%d]: a vector needs 1 to %d components", i, maxVectorDim)
		}
		if !finiteVector(v.Vector) || vector.Norm(v.Vector) == 0 {
			return mnemo.Errorf(mnemo.EINVALID, "vectors[%d]: the vector has a NaN or infinite component, or no direction", i)
		}
	}
	return nil
}

func finiteVector(v []float32) bool {
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
	}
	return true
}

// attach gives each event the vectors L3 makes of it: the text vector at
// once with an in-process embedder, else a row for the worker; one per
// media reference with an embedder for its modality, for the worker.
func (p *postAppend) attach(ctx context.Context, events []mnemo.Event) (pending bool) {
	if p.store == nil || p.noIndex() != nil {
		return false
	}
	var (
		texts []string
		idx   []int
	)
	for i := range events {
		e := &events[i]
		has := func(mod string) bool {
			return slices.ContainsFunc(e.Vectors, func(v mnemo.EventVector) bool { return v.Modality == mod })
		}
		if p.text != nil && !has(mnemo.ModalityText) {
			if t := Text(*e); t != "" {
				e.Vectors = append(e.Vectors, mnemo.EventVector{Modality: mnemo.ModalityText, Model: p.text.Model(), Input: t})
				if !p.async {
					texts, idx = append(texts, t), append(idx, i)
				} else {
					pending = true
				}
			}
		}
		refs, _ := Media(*e) // validated by prepareEvent
		for _, r := range refs {
			emb := p.opts.Media[r.Modality()]
			if emb == nil || has(r.Modality()) {
				continue
			}
			e.Vectors = append(e.Vectors, mnemo.EventVector{Modality: r.Modality(), Model: emb.Model(), Input: r.URI})
			pending = true
		}
	}
	if len(texts) == 0 {
		return pending
	}
	vecs, err := p.text.Embed(ctx, texts)
	if err != nil || len(vecs) != len(texts) {
		p.log.Warn("embedding events on append failed; their vectors are queued", "model", p.text.Model(), "err", err)
		return true
	}
	for k, i := range idx {
		for j := range events[i].Vectors {
			if v := &events[i].Vectors[j]; v.Modality == mnemo.ModalityText && v.Vector == nil {
				v.Vector = vecs[k]
			}
		}
	}
	return pending
}

// noIndex returns why the store cannot keep vectors now, for a store that
// tells (postgres without pgvector, PG-2: events are stored without
// vectors and L3 answers EUNAVAILABLE), so that no embedder is called for
// vectors that would not be kept.
func (p *postAppend) noIndex() error {
	if vi, ok := p.store.(interface{ VectorIndex() error }); ok {
		return vi.VectorIndex()
	}
	return nil
}

// embedderFor returns the embedder of a modality.
func (p *postAppend) embedderFor(mod string) mnemo.Embedder {
	if mod == mnemo.ModalityText {
		return p.text
	}
	return p.opts.Media[mod]
}

// kick starts the worker if needed and wakes it.
func (p *postAppend) kick() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	if !p.running {
		ctx, cancel := context.WithCancel(context.Background())
		p.stop, p.done, p.running = cancel, make(chan struct{}), true
		go p.work(ctx)
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// work makes waiting vectors until ctx ends, backing off while an
// embedder fails.
func (p *postAppend) work(ctx context.Context) {
	defer close(p.done)
	worker.Drain(ctx, p.wake, p.log, "embedding queued events", p.embedPending)
}

// embedPending makes one batch of waiting vectors, grouped by modality.
func (p *postAppend) embedPending(ctx context.Context) (int, error) {
	jobs, err := p.store.PendingEventVectors(ctx, worker.Batch)
	if err != nil || len(jobs) == 0 {
		return 0, err
	}
	byMod := map[string][]mnemo.EventVectorJob{}
	for _, j := range jobs {
		byMod[j.Modality] = append(byMod[j.Modality], j)
	}
	done := 0
	for mod, js := range byMod {
		emb := p.embedderFor(mod)
		if emb == nil {
			err = fmt.Errorf("no embedder for %s vectors is configured; %d wait", mod, len(js))
			continue
		}
		inputs := make([]string, len(js))
		for i, j := range js {
			inputs[i] = j.Input
			js[i].Model = emb.Model()
		}
		vecs, eerr := emb.Embed(ctx, inputs)
		if eerr == nil && len(vecs) != len(js) {
			eerr = fmt.Errorf("embedder %s returned %d vectors for %d inputs", emb.Model(), len(vecs), len(js))
		}
		if eerr == nil {
			eerr = p.store.SetEventVectors(ctx, js, vecs)
		}
		if eerr != nil {
			err = eerr
			continue
		}
		done += len(js)
	}
	return done, err
}

// eventVectorStore returns the store as an EventVectorStore, or
// EUNAVAILABLE.
func (s *Service) eventVectorStore() (mnemo.EventVectorStore, error) {
	if s.after.store == nil {
		return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "this store keeps no event vectors (or L3 is off)")
	}
	return s.after.store, nil
}

// WaitEventVectors makes every event vector queued so far, in this call
// (the worker may make some meanwhile; a vector is stored once), and
// returns when none waits, or an embedder fails, or ctx ends.
func (s *Service) WaitEventVectors(ctx context.Context) error {
	if _, err := s.eventVectorStore(); err != nil {
		return err
	}
	for {
		n, err := s.after.embedPending(ctx)
		if err != nil {
			return fmt.Errorf("embedding events is failing: %w", err)
		}
		if n == 0 {
			return nil
		}
	}
}

// SearchEvents returns the events nearest a query by meaning, best first
// (EVT-8: top-k, k = 10 by default), filtered by time, type and
// source. A text query is embedded with the query embedder; a vector
// query names its model. Only vectors of the query's model are compared:
// modalities whose embedders share it are searched together (cross-modal);
// asking for a modality whose vectors come from another model is
// EMISMATCH. Errors also: EINVALID, EUNAVAILABLE.
func (s *Service) SearchEvents(ctx context.Context, scope mnemo.Scope, q Search) ([]Hit, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	vs, err := s.eventVectorStore()
	if err != nil {
		return nil, err
	}
	if err := checkEventSearch(&q); err != nil {
		return nil, err
	}
	vec, model := q.Vector, strings.TrimSpace(q.Model)
	if len(vec) == 0 {
		if s.after.query == nil {
			return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "no embedder is configured to embed the query: pass a vector and its model")
		}
		vecs, err := s.after.query.Embed(ctx, []string{q.Query})
		if err != nil {
			return nil, fmt.Errorf("embedding the query: %w", mnemo.Errorf(mnemo.EUNAVAILABLE, "embedder %s: %s", s.after.query.Model(), mnemo.ErrorMessage(err)))
		}
		if len(vecs) != 1 {
			return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "embedder %s returned no vector for the query", s.after.query.Model())
		}
		vec, model = vecs[0], s.after.query.Model()
	}
	if err := s.checkSpace(ctx, vs, scope, model, q.Modalities); err != nil {
		return nil, err
	}
	limit := q.Limit
	if q.Lexical > 0 {
		limit = min(4*limit, mnemo.MaxListLimit) // candidates the lexical score may reorder
	}
	found, err := vs.SearchEventVectors(ctx, scope, mnemo.EventVectorQuery{Vector: vec, Model: model, Modalities: q.Modalities,
		From: q.From, To: q.To, Types: q.Types, Sources: q.Sources, Limit: limit})
	if err != nil {
		return nil, err
	}
	terms := queryTerms(q.Query)
	hits := make([]Hit, 0, len(found))
	for _, f := range found {
		h := Hit{Semantic: f.Score, Score: f.Score, Modality: f.Modality}
		if q.Lexical > 0 && len(terms) > 0 {
			h.Lexical = lexicalShare(terms, f.Input)
			h.Score = (1-q.Lexical)*f.Score + q.Lexical*h.Lexical
		}
		h.Event.ID = f.EventID
		hits = append(hits, h)
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
	hits = hits[:min(len(hits), q.Limit)]
	ids := make([]string, 0, len(hits))
	out := hits[:0]
	for _, h := range hits {
		e, err := vs.GetEvent(ctx, scope, h.Event.ID)
		if err != nil {
			if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
				continue
			}
			return nil, err
		}
		security.ClassifyEvent(&e) // stored before levels were kept (SEC-11)
		h.Event = e
		out = append(out, h)
		ids = append(ids, e.ID)
	}
	s.touchEvents(scope, ids)
	return out, nil
}

// touchEvents counts the search's return of ids in the background: a
// search answers without waiting for the writer.
func (s *Service) touchEvents(scope mnemo.Scope, ids []string) {
	if len(ids) == 0 {
		return
	}
	at := s.now()
	s.after.touches.Add(1)
	go func() {
		defer s.after.touches.Done()
		defer panics.Recover(s.log, "counting event vector accesses", nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.after.store.TouchEventVectors(ctx, scope, ids, at); err != nil {
			s.log.Warn("counting event vector accesses failed", "err", err)
		}
	}()
}

func checkEventSearch(q *Search) error {
	q.Query = strings.TrimSpace(q.Query)
	if err := cmp.Or(mnemo.CheckTimePtr("from", q.From), mnemo.CheckTimePtr("to", q.To)); err != nil { // TIME-1
		return err
	}
	switch {
	case q.Query == "" && len(q.Vector) == 0:
		return mnemo.Errorf(mnemo.EINVALID, "a search needs a query or a vector")
	case len(q.Vector) > 0 && strings.TrimSpace(q.Model) == "":
		return mnemo.Errorf(mnemo.EINVALID, "a query vector needs its model: only vectors of one model are compared")
	case len(q.Vector) > 0 && (!finiteVector(q.Vector) || vector.Norm(q.Vector) == 0 || len(q.Vector) > maxVectorDim):
		return mnemo.Errorf(mnemo.EINVALID, "the query vector must have 1 to %d finite components and a direction", maxVectorDim)
	case q.From != nil && q.To != nil && q.From.After(*q.To):
		return mnemo.Errorf(mnemo.EINVALID, "time window runs backwards: from %s is after to %s",
			q.From.UTC().Format(time.RFC3339Nano), q.To.UTC().Format(time.RFC3339Nano))
	case q.Limit < 0 || q.Limit > mnemo.MaxListLimit:
		return mnemo.Errorf(mnemo.EINVALID, "limit must be 1 to %d", mnemo.MaxListLimit)
	case q.Lexical < 0 || q.Lexical > 1 || math.IsNaN(q.Lexical):
		return mnemo.Errorf(mnemo.EINVALID, "lexical weight must be between 0 and 1")
	}
	for _, m := range q.Modalities {
		if !slices.Contains(modalities, m) {
			return mnemo.Errorf(mnemo.EINVALID, "modality must be one of %s, not %q", strings.Join(modalities, ", "), m)
		}
	}
	if q.Limit == 0 {
		q.Limit = 10
	}
	return nil
}

// checkSpace refuses a search that would compare vectors of different
// models: a modality asked for whose embedder or stored vectors are of
// another model than the query's.
func (s *Service) checkSpace(ctx context.Context, vs mnemo.EventVectorStore, scope mnemo.Scope, model string, mods []string) error {
	if len(mods) == 0 {
		return nil // every modality in the query's space
	}
	stored, err := vs.EventVectorModels(ctx, scope)
	if err != nil {
		return err
	}
	for _, m := range mods {
		var other []string
		if emb := s.after.embedderFor(m); emb != nil && emb.Model() != model {
			other = append(other, emb.Model())
		}
		for _, sm := range stored[m] {
			if sm != model && !slices.Contains(other, sm) {
				other = append(other, sm)
			}
		}
		if len(other) > 0 && !slices.Contains(stored[m], model) {
			return mnemo.Errorf(mnemo.EMISMATCH, "%s vectors are made by %s and the query by %s: not one vector space, so they cannot be compared; query with a vector of %s",
				m, strings.Join(other, ", "), model, other[0])
		}
	}
	return nil
}

// queryTerms are the lower-cased words of a query, Han characters each a
// word.
func queryTerms(q string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if hasHan(f) {
			for _, r := range f {
				out = append(out, string(r))
			}
			continue
		}
		if len(f) > 1 {
			out = append(out, f)
		}
	}
	return out
}

// lexicalShare is the share of terms found in text.
func lexicalShare(terms []string, text string) float64 {
	text = strings.ToLower(text)
	n := 0
	for _, t := range terms {
		if strings.Contains(text, t) {
			n++
		}
	}
	return float64(n) / float64(len(terms))
}

// PruneEventVectors drops the L3 vectors of events older than olderThan
// (0: the configured KeepFor, 30 days by default) that searches returned
// fewer than minAccess times (0: the configured KeepAccessed). Events are
// never deleted. It returns how many vectors it dropped.
func (s *Service) PruneEventVectors(ctx context.Context, olderThan time.Duration, minAccess int) (int, error) {
	vs, err := s.eventVectorStore()
	if err != nil {
		return 0, err
	}
	if olderThan < 0 || minAccess < 0 {
		return 0, mnemo.Errorf(mnemo.EINVALID, "the age and the access count must not be negative")
	}
	if olderThan == 0 {
		olderThan = s.after.opts.KeepFor
	}
	if minAccess == 0 {
		minAccess = s.after.opts.KeepAccessed
	}
	s.after.touches.Wait() // counts of searches already answered
	return vs.PruneEventVectors(ctx, s.now().Add(-olderThan), minAccess)
}
