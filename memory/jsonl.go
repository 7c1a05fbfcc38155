package memory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/entity"
	"github.com/mnemo-dev/mnemo/internal/ids"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/internal/timejson"
)

// Export writes every live memory of scope (archived and expired included)
// as JSON Lines, oldest first, one Memory per line. Import reads it back
// losslessly. progress, if not nil, is called after each page with the
// number written so far and the total.
func (s *Service) Export(ctx context.Context, scope mnemo.Scope, w io.Writer, progress func(done, total int)) (int, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return 0, err
	}
	s.flushScope(ctx, scope)
	const page = 1000
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	done := 0
	for {
		ms, total, err := s.store.List(ctx, scope, mnemo.ListQuery{
			Filter: mnemo.Filter{IncludeArchived: true, IncludeExpired: true},
			Order:  mnemo.OrderOldest, Limit: page, Offset: done,
		})
		if err != nil {
			return done, err
		}
		for i := range ms {
			if err := enc.Encode(&ms[i]); err != nil {
				return done, err
			}
		}
		done += len(ms)
		if progress != nil {
			progress(done, total)
		}
		if len(ms) < page || done >= total {
			break
		}
	}
	return done, bw.Flush()
}

// ImportOptions steer Import.
type ImportOptions struct {
	// Scope, when set, puts every record into this scope; otherwise each
	// record's own tenant_id and agent_id are used.
	Scope *mnemo.Scope
	// Progress, if not nil, is called after each stored batch with the
	// number of records stored so far.
	Progress func(done int)
	// Private imports for a tenant, who must learn nothing of other
	// scopes: a record keeps its id only when the target scope already
	// holds it, and otherwise gets a new one (scopedID), whether or not
	// the old id is taken elsewhere. Without it a record keeps its id
	// unless that is taken by another scope (an operator's restore).
	Private bool
	// OnNewID, if not nil, is called for each record stored under another
	// id than its line's, with both.
	OnNewID func(old, new string)
}

// MaxImportLine is the longest JSONL line Import accepts.
const MaxImportLine = 1 << 20

// Import reads memories written by Export and stores them, keeping times,
// access counts, embeddings and, where it can, ids: ids are unique in a
// store, so when a batch holds an id another scope has (an export of agent
// A imported into agent B), its records that the target scope does not
// hold get ids derived from the scope and the old id, the same on every
// import, reported to OnNewID (see also Private). Every line is parsed and
// validated before anything is written, so a bad line stores nothing; it fails with
// an EINVALID error naming the line. Records with a key upsert it by
// last-write-wins, so importing the same file twice changes nothing.
//
// Imported memories are embedded in the background, not on write (those
// that come with a vector of the store's model keep it): a large import is
// not held up by the embedder, and each memory is findable by meaning as
// soon as its vector lands (WaitEmbedded waits for all).
func (s *Service) Import(ctx context.Context, r io.Reader, opts ImportOptions) (int, error) {
	type item struct {
		scope mnemo.Scope
		rec   mnemo.Record
	}
	var items []item
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxImportLine)
	now := s.now().UTC()
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		m, err := decodeMemory(b, now)
		if err != nil {
			return 0, mnemo.Errorf(mnemo.EINVALID, "line %d: %s", line, mnemo.ErrorMessage(err))
		}
		scope := m.Scope()
		if opts.Scope != nil {
			scope = *opts.Scope
		}
		rec, err := s.importRecord(m, scope, now)
		if err != nil {
			return 0, mnemo.Errorf(mnemo.ErrorCode(err), "line %d: %s", line, mnemo.ErrorMessage(err))
		}
		items = append(items, item{scope, rec})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return 0, mnemo.Errorf(mnemo.ETOOLARGE, "a line is longer than %d bytes", MaxImportLine)
		}
		return 0, err
	}

	// Store in batches of one scope each; each batch is atomic.
	done := 0
	for len(items) > 0 {
		n := 1
		for n < len(items) && n < s.limits.MaxBatch && items[n].scope == items[0].scope {
			n++
		}
		scope := items[0].scope
		recs := make([]mnemo.Record, n)
		orig := make(map[string]string, n) // stored id -> the line's
		for i := range recs {
			recs[i] = items[i].rec
		}
		if opts.Private {
			if err := s.scopeIDs(ctx, scope, recs); err != nil {
				return done, err
			}
		}
		for i := range recs {
			orig[recs[i].Memory.ID] = items[i].rec.Memory.ID
		}
		s.linkMessages(recs)
		ms, err := s.write(ctx, scope, recs, false)
		if mnemo.ErrorCode(err) == mnemo.ECONFLICT && !opts.Private {
			// An id taken by another scope: those not here get new ones.
			if err = s.scopeIDs(ctx, scope, recs); err == nil {
				for i := range recs {
					orig[recs[i].Memory.ID] = items[i].rec.Memory.ID
				}
				ms, err = s.write(ctx, scope, recs, false)
			}
		}
		all := recs
		if mnemo.ErrorCode(err) == mnemo.ECONFLICT {
			// Keyless records already here (a second import of the same
			// file) are skipped, so importing twice changes nothing.
			ms = nil
			if recs, err = s.dropPresent(ctx, scope, recs); err == nil && len(recs) > 0 {
				ms, err = s.write(ctx, scope, recs, false)
			}
		}
		if err != nil {
			return done, err
		}
		if opts.OnNewID != nil {
			stored := make(map[string]string, len(all)) // record id -> stored id
			for i := range ms {
				stored[recs[i].Memory.ID] = ms[i].ID // an upsert keeps the key's id
			}
			for _, r := range all {
				id := r.Memory.ID
				if sid, ok := stored[id]; ok {
					id = sid
				}
				if old := orig[r.Memory.ID]; old != "" && old != id {
					opts.OnNewID(old, id)
				}
			}
		}
		done += n
		items = items[n:]
		if opts.Progress != nil {
			opts.Progress(done)
		}
	}
	return done, nil
}

// scopeIDs gives each record whose id scope does not hold the id
// scopedID derives. Every lookup is within scope, so what it decides says
// nothing of other scopes.
func (s *Service) scopeIDs(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) error {
	for i := range recs {
		id := recs[i].Memory.ID
		if _, err := s.store.Get(ctx, scope, id); err == nil {
			continue
		} else if mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
			return err
		}
		recs[i].Memory.ID = scopedID(scope, id)
	}
	return nil
}

// scopedID is the id a record of id old gets in scope when old is not
// free there: the same on every import, so that importing twice changes
// nothing, and keeping old's UUIDv7 time.
func scopedID(scope mnemo.Scope, old string) string {
	h := uuid.NewSHA1(uuid.NameSpaceOID, []byte(scope.TenantID+"\x00"+scope.AgentID+"\x00"+old))
	if u, err := uuid.Parse(old); err == nil {
		copy(h[:6], u[:6]) // the time of a UUIDv7
	}
	h[6] = 0x70 | h[6]&0x0f // version 7
	h[8] = 0x80 | h[8]&0x3f // RFC 4122 variant
	return h.String()
}

// dropPresent removes the keyless records whose id the scope already holds.
func (s *Service) dropPresent(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) ([]mnemo.Record, error) {
	out := recs[:0:0]
	for _, r := range recs {
		if r.Memory.Key == "" {
			if _, err := s.store.Get(ctx, scope, r.Memory.ID); err == nil {
				continue
			} else if mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
				return nil, err
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// decodeMemory parses one JSONL line strictly: unknown fields are errors.
func decodeMemory(b []byte, now time.Time) (mnemo.Memory, error) {
	var m mnemo.Memory
	if err := mnemo.CheckRequestDepth("the record", b); err != nil { // API-21
		return m, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(&m)
	if err != nil {
		// Times as people type them, or named when they are none (TIME-2).
		fixed, changed, terr := timejson.Rewrite(b, reflect.TypeFor[mnemo.Memory](), now)
		if terr != nil {
			return m, terr
		}
		if changed {
			m = mnemo.Memory{}
			dec = json.NewDecoder(bytes.NewReader(fixed))
			dec.DisallowUnknownFields()
			err = dec.Decode(&m)
		}
	}
	if err != nil {
		return m, mnemo.Errorf(mnemo.EINVALID, "not a memory record: %v", err)
	}
	if dec.More() {
		return m, mnemo.Errorf(mnemo.EINVALID, "more than one JSON value on the line")
	}
	return m, nil
}

// importRecord validates an exported memory like a write, then restores the
// fields a write would reset.
func (s *Service) importRecord(m mnemo.Memory, scope mnemo.Scope, now time.Time) (mnemo.Record, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return mnemo.Record{}, err
	}
	content := m.Content
	d := mnemo.Draft{
		Key: m.Key, SessionID: m.SessionID, Content: &content, Data: m.Data, Summary: m.Summary,
		Type: m.Type, Category: m.Category, Priority: &m.Priority, Importance: &m.Importance,
		Confidence: &m.Confidence, Tags: m.Tags, SecurityLevel: m.SecurityLevel, Pinned: m.Pinned,
		Source: m.Source, ExpiresAt: m.ExpiresAt, Archived: m.Archived,
		// When it happened, as exported (REC-24): a writer's occurred_at
		// survives the round trip, a recurrence (REC-30) with it.
		Occurred: m.Occurred,
	}
	if !m.CreatedAt.IsZero() {
		d.CreatedAt = &m.CreatedAt
	}
	if !m.UpdatedAt.IsZero() {
		d.UpdatedAt = &m.UpdatedAt
	}
	v, err := d.Build(scope, s.limits, now)
	if err != nil {
		return mnemo.Record{}, err
	}
	v.ID = m.ID
	if v.ID == "" {
		v.ID = ids.New()
	} else if _, err := uuid.Parse(v.ID); err != nil {
		return mnemo.Record{}, mnemo.Errorf(mnemo.EINVALID, "id %q is not a UUID", textutil.TruncateRunes(m.ID, 40))
	}
	if !m.AccessedAt.IsZero() {
		v.AccessedAt = m.AccessedAt.UTC()
	}
	if m.AccessCount < 0 || m.Vitality < 0 || m.Stability < 0 {
		return mnemo.Record{}, mnemo.Errorf(mnemo.EINVALID, "access_count, vitality and stability must not be negative")
	}
	v.AccessCount, v.Vitality, v.Stability = m.AccessCount, m.Vitality, m.Stability
	if m.Version > 0 {
		v.Version = m.Version
	}
	// When it stopped holding (REC-27) and who it is by or about (REC-28),
	// as exported; an export from before REC-28 has its names found now.
	if m.ValidTo != nil {
		t := m.ValidTo.UTC()
		v.ValidTo = &t
	}
	v.Entities = m.Entities
	if v.Entities == nil {
		v.Entities = entity.Of(speakerName(&v), v.Content, nil)
	}
	if len(v.Entities) > mnemo.MaxEntities {
		return mnemo.Record{}, mnemo.Errorf(mnemo.ETOOLARGE, "%d entities, the limit is %d", len(v.Entities), mnemo.MaxEntities)
	}
	// An embedding of the store's model is kept; one of another model is
	// dropped by the store, and the memory embedded again.
	v.Embedding, v.EmbeddingModel = m.Embedding, m.EmbeddingModel
	if err := mnemo.CheckMemoryTimes(&v); err != nil { // TIME-1
		return mnemo.Record{}, err
	}
	return mnemo.Record{Memory: v, Index: s.indexText(&v, ""), Embed: embedText(&v, "")}, nil
}

// linkMessages gives the messages of a batch their conversational context,
// as AddMessages does: each session's events in time order, neighbours
// indexed as context.
func (s *Service) linkMessages(recs []mnemo.Record) {
	sessions := map[string][]int{}
	for i := range recs {
		m := &recs[i].Memory
		if m.SessionID != "" && speakerName(m) != "" {
			sessions[m.SessionID] = append(sessions[m.SessionID], i)
		}
	}
	for _, idx := range sessions {
		sort.SliceStable(idx, func(a, b int) bool {
			return recs[idx[a]].Memory.CreatedAt.Before(recs[idx[b]].Memory.CreatedAt)
		})
		lines := make([]string, len(idx))
		for k, i := range idx {
			m := &recs[i].Memory
			lines[k] = speakerName(m) + ": " + m.Content
		}
		for k, i := range idx {
			recs[i].Index = s.indexText(&recs[i].Memory, neighbours(lines, k))
			if k > 0 {
				recs[i].Embed = embedText(&recs[i].Memory, lines[k-1])
			}
		}
	}
}
