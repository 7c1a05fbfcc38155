package memory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	"github.com/mnemo-dev/mnemo/temporal"
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

// ImportResult counts an import's records by what each did to the store
// (API-22); every record is counted once.
type ImportResult struct {
	// Imported is how many records became memories the scope did not
	// hold.
	Imported int `json:"imported"`
	// Updated is how many were a later revision (a later updated_at) of a
	// memory the scope held, by its key or, without one, by its id: each
	// is the memory's new revision, in its history.
	Updated int `json:"updated"`
	// Skipped is how many changed nothing: the scope held the same
	// revision or a later one (or a later record of the same import
	// replaced it, or a later tombstone of its key stands).
	Skipped int `json:"skipped"`
}

// Records is how many records the import read.
func (r ImportResult) Records() int { return r.Imported + r.Updated + r.Skipped }

// Import reads memories written by Export and stores them, keeping times,
// access counts, embeddings and, where it can, ids: ids are unique in a
// store, so when a batch holds an id another scope has (an export of agent
// A imported into agent B), its records that the target scope does not
// hold get ids derived from the scope and the old id, the same on every
// import, reported to OnNewID (see also Private). Every line is parsed and
// validated before anything is written, so a bad line stores nothing; it
// fails with an EINVALID error naming the line.
//
// A record of a memory the scope already holds — by its key, or without
// one by its id (or the id an earlier import derived from it) — changes
// it only when it is a later revision, by updated_at (API-22): keyed, as
// an upsert of the key; keyless, in place (Store.Replace). Otherwise it is skipped, so importing the same file
// twice changes nothing. ImportResult counts each record as imported,
// updated or skipped.
//
// Imported memories are embedded in the background, not on write (those
// that come with a vector of the store's model keep it): a large import is
// not held up by the embedder, and each memory is findable by meaning as
// soon as its vector lands (WaitEmbedded waits for all).
func (s *Service) Import(ctx context.Context, r io.Reader, opts ImportOptions) (ImportResult, error) {
	var (
		items []importItem
		res   ImportResult
	)
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
			return res, mnemo.Errorf(mnemo.EINVALID, "line %d: %s", line, mnemo.ErrorMessage(err))
		}
		scope := m.Scope()
		if opts.Scope != nil {
			scope = *opts.Scope
		}
		rec, err := s.importRecord(m, scope, now)
		if err != nil {
			return res, mnemo.Errorf(mnemo.ErrorCode(err), "line %d: %s", line, mnemo.ErrorMessage(err))
		}
		items = append(items, importItem{line: line, scope: scope, rec: rec})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return res, mnemo.Errorf(mnemo.ETOOLARGE, "a line is longer than %d bytes", MaxImportLine)
		}
		return res, err
	}

	// Store in batches of one scope each; each batch's writes are atomic,
	// and its keyless updates follow them one by one.
	for len(items) > 0 {
		n := 1
		for n < len(items) && n < s.limits.MaxBatch && items[n].scope == items[0].scope {
			n++
		}
		batch := items[:n]
		if err := s.importBatch(ctx, batch, opts, &res); err != nil {
			return res, err
		}
		items = items[n:]
		if opts.Progress != nil {
			opts.Progress(res.Records())
		}
	}
	return res, nil
}

// importItem is one record of an import, with its line and target scope,
// and what the import did with it.
type importItem struct {
	line   int
	scope  mnemo.Scope
	rec    mnemo.Record
	lineID string    // the id the line gave
	act    importAct // what the record does
	stored string    // the id of its memory once stored, when known
	by     int       // for a record a later one of its batch stands for, that one's index; else -1
}

// importAct is what an import does with a record.
type importAct int

const (
	actNew    importAct = iota // a memory the scope does not hold
	actUpdate                  // a later revision of one it holds
	actSkip                    // nothing: the scope holds this revision or a later one
)

// importBatch stores one batch of records of one scope, counts them into
// res and reports the ids that changed to opts.OnNewID.
func (s *Service) importBatch(ctx context.Context, batch []importItem, opts ImportOptions, res *ImportResult) error {
	scope := batch[0].scope
	all := make([]mnemo.Record, len(batch))
	for i := range batch {
		batch[i].lineID, batch[i].by = batch[i].rec.Memory.ID, -1
		all[i] = batch[i].rec
	}
	if opts.Private {
		if err := s.scopeIDs(ctx, scope, all); err != nil {
			return err
		}
	}
	s.linkMessages(all)
	for i := range batch {
		batch[i].rec = all[i]
	}
	if err := s.planImport(ctx, scope, batch, !opts.Private); err != nil {
		return err
	}

	// New memories and keyed updates in one write; keyless updates in
	// place after it.
	var writes, replaces []int
	for i := range batch {
		switch {
		case batch[i].act == actSkip:
		case batch[i].act == actUpdate && batch[i].rec.Memory.Key == "":
			replaces = append(replaces, i)
		default:
			writes = append(writes, i)
		}
	}
	if len(writes) > 0 {
		recs := make([]mnemo.Record, len(writes))
		for k, i := range writes {
			recs[k] = batch[i].rec
		}
		ms, err := s.write(ctx, scope, recs, false)
		if mnemo.ErrorCode(err) == mnemo.ECONFLICT && !opts.Private {
			// An id taken by another scope: those not here get new ones.
			if err = s.scopeIDs(ctx, scope, recs); err == nil {
				ms, err = s.write(ctx, scope, recs, false)
			}
		}
		if err != nil {
			return err
		}
		for k, i := range writes {
			batch[i].rec = recs[k]
			batch[i].stored = ms[k].ID
			if !ms[k].UpdatedAt.Equal(recs[k].Memory.UpdatedAt) {
				batch[i].act = actSkip // a later tombstone or write of its key stands
			}
		}
	}
	for _, i := range replaces {
		it := &batch[i]
		var m mnemo.Memory
		_, err := s.writeWith(ctx, scope, []mnemo.Record{it.rec}, false, func(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) ([]mnemo.Memory, error) {
			var err error
			m, err = s.store.Replace(ctx, scope, recs[0])
			return []mnemo.Memory{m}, err
		})
		if err != nil {
			return mnemo.WithPrefix(err, fmt.Sprintf("line %d: ", it.line))
		}
		it.stored = m.ID
		if !m.UpdatedAt.Equal(it.rec.Memory.UpdatedAt) {
			it.act = actSkip // a later revision was written meanwhile
		}
	}

	for i := range batch {
		it := &batch[i]
		switch it.act {
		case actNew:
			res.Imported++
		case actUpdate:
			res.Updated++
		default:
			res.Skipped++
		}
		if opts.OnNewID == nil {
			continue
		}
		id := it.rec.Memory.ID
		if it.stored != "" {
			id = it.stored
		}
		if it.by >= 0 {
			id = batch[it.by].rec.Memory.ID
			if st := batch[it.by].stored; st != "" {
				id = st
			}
		}
		if id != it.lineID {
			opts.OnNewID(it.lineID, id)
		}
	}
	return nil
}

// planImport decides what each record of a batch does (API-22): it is new
// when the scope holds no memory of its key (keyless: of its id, or with
// derived of the id an earlier import derived from it, which it then
// takes); a later revision when the scope holds one with an earlier
// updated_at; else nothing. Of the records of one memory in the batch, the
// latest (the last of equals) stands for the others.
func (s *Service) planImport(ctx context.Context, scope mnemo.Scope, batch []importItem, derived bool) error {
	stand := make(map[string]int, len(batch)) // a memory's identity → the record standing for it
	for i := range batch {
		it := &batch[i]
		m := &it.rec.Memory
		var (
			cur mnemo.Memory
			err error
		)
		if m.Key != "" {
			cur, err = s.store.GetByKey(ctx, scope, m.Key)
		} else if cur, err = s.store.Get(ctx, scope, m.ID); mnemo.ErrorCode(err) == mnemo.ENOTFOUND && derived {
			if c, derr := s.store.Get(ctx, scope, scopedID(scope, m.ID)); derr == nil {
				cur, err, m.ID = c, nil, c.ID
			} else if mnemo.ErrorCode(derr) != mnemo.ENOTFOUND {
				return derr
			}
		}
		switch {
		case err == nil && !m.UpdatedAt.After(cur.UpdatedAt):
			it.act, it.stored = actSkip, cur.ID
			continue
		case err == nil:
			it.act = actUpdate
		case mnemo.ErrorCode(err) == mnemo.ENOTFOUND:
			it.act = actNew
		default:
			return err
		}
		id := "id:" + m.ID
		if m.Key != "" {
			id = "key:" + m.Key
		}
		if j, ok := stand[id]; ok {
			prev := &batch[j]
			if m.UpdatedAt.Before(prev.rec.Memory.UpdatedAt) {
				it.act, it.by = actSkip, j
				continue
			}
			it.act, prev.act, prev.by = prev.act, actSkip, i
		}
		stand[id] = i
	}
	// A record that a later one stood for, which a still later one stands
	// for in turn, names the last.
	for i := range batch {
		for batch[i].by >= 0 && batch[batch[i].by].by >= 0 {
			batch[i].by = batch[batch[i].by].by
		}
	}
	return nil
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
	v, err := temporal.Build(&d, scope, s.limits, now)
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
		lines, speakers := make([]string, len(idx)), make([]string, len(idx))
		for k, i := range idx {
			m := &recs[i].Memory
			speakers[k] = speakerName(m)
			lines[k] = turnLine(speakers[k], m.Content)
		}
		c := newConversation(lines, speakers)
		for k, i := range idx {
			recs[i].Index = s.indexText(&recs[i].Memory, c.context(k))
			if k > 0 {
				recs[i].Embed = embedText(&recs[i].Memory, c.before(k))
			}
		}
	}
}
