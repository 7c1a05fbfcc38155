package mnemo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"time"

	"github.com/google/uuid"
)

// Export writes every live memory of scope (archived and expired included)
// as JSON Lines, oldest first, one Memory per line. Import reads it back
// losslessly. progress, if not nil, is called after each page with the
// number written so far and the total.
func (s *Service) Export(ctx context.Context, scope Scope, w io.Writer, progress func(done, total int)) (int, error) {
	if err := CheckScope(scope); err != nil {
		return 0, err
	}
	const page = 1000
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	done := 0
	for {
		ms, total, err := s.store.List(ctx, scope, ListQuery{
			Filter: Filter{IncludeArchived: true, IncludeExpired: true},
			Order:  OrderOldest, Limit: page, Offset: done,
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
	Scope *Scope
	// Progress, if not nil, is called after each stored batch with the
	// number of records stored so far.
	Progress func(done int)
}

// MaxImportLine is the longest JSONL line Import accepts.
const MaxImportLine = 1 << 20

// Import reads memories written by Export and stores them, keeping ids,
// times, access counts and embeddings. Every line is parsed and validated
// before anything is written, so a bad line stores nothing; it fails with
// an EINVALID error naming the line. Records with a key upsert it by
// last-write-wins, so importing the same file twice changes nothing.
//
// Imported memories are embedded in the background, not on write (those
// that come with a vector of the store's model keep it): a large import is
// not held up by the embedder, and each memory is findable by meaning as
// soon as its vector lands (WaitEmbedded waits for all).
func (s *Service) Import(ctx context.Context, r io.Reader, opts ImportOptions) (int, error) {
	type item struct {
		scope Scope
		rec   Record
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
		m, err := decodeMemory(b)
		if err != nil {
			return 0, Errorf(EINVALID, "line %d: %s", line, ErrorMessage(err))
		}
		scope := m.Scope()
		if opts.Scope != nil {
			scope = *opts.Scope
		}
		rec, err := s.importRecord(m, scope, now)
		if err != nil {
			return 0, Errorf(ErrorCode(err), "line %d: %s", line, ErrorMessage(err))
		}
		items = append(items, item{scope, rec})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return 0, Errorf(ETOOLARGE, "a line is longer than %d bytes", MaxImportLine)
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
		recs := make([]Record, n)
		for i := range recs {
			recs[i] = items[i].rec
		}
		s.linkMessages(recs)
		_, err := s.write(ctx, items[0].scope, recs, false)
		if ErrorCode(err) == ECONFLICT {
			// Keyless records already here (a second import of the same
			// file) are skipped, so importing twice changes nothing; an id
			// taken by another scope still fails.
			if recs, err = s.dropPresent(ctx, items[0].scope, recs); err == nil && len(recs) > 0 {
				_, err = s.write(ctx, items[0].scope, recs, false)
			}
		}
		if err != nil {
			return done, err
		}
		done += n
		items = items[n:]
		if opts.Progress != nil {
			opts.Progress(done)
		}
	}
	return done, nil
}

// dropPresent removes the keyless records whose id the scope already holds.
func (s *Service) dropPresent(ctx context.Context, scope Scope, recs []Record) ([]Record, error) {
	out := recs[:0:0]
	for _, r := range recs {
		if r.Memory.Key == "" {
			if _, err := s.store.Get(ctx, scope, r.Memory.ID); err == nil {
				continue
			} else if ErrorCode(err) != ENOTFOUND {
				return nil, err
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// decodeMemory parses one JSONL line strictly: unknown fields are errors.
func decodeMemory(b []byte) (Memory, error) {
	var m Memory
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, Errorf(EINVALID, "not a memory record: %v", err)
	}
	if dec.More() {
		return m, Errorf(EINVALID, "more than one JSON value on the line")
	}
	return m, nil
}

// importRecord validates an exported memory like a write, then restores the
// fields a write would reset.
func (s *Service) importRecord(m Memory, scope Scope, now time.Time) (Record, error) {
	if err := CheckScope(scope); err != nil {
		return Record{}, err
	}
	content := m.Content
	d := Draft{
		Key: m.Key, SessionID: m.SessionID, Content: &content, Data: m.Data, Summary: m.Summary,
		Type: m.Type, Category: m.Category, Priority: &m.Priority, Importance: &m.Importance,
		Confidence: &m.Confidence, Tags: m.Tags, SecurityLevel: m.SecurityLevel, Pinned: m.Pinned,
		Source: m.Source, ExpiresAt: m.ExpiresAt, Archived: m.Archived,
	}
	if !m.CreatedAt.IsZero() {
		d.CreatedAt = &m.CreatedAt
	}
	if !m.UpdatedAt.IsZero() {
		d.UpdatedAt = &m.UpdatedAt
	}
	v, err := d.memory(scope, s.limits, now)
	if err != nil {
		return Record{}, err
	}
	v.ID = m.ID
	if v.ID == "" {
		v.ID = newID()
	} else if _, err := uuid.Parse(v.ID); err != nil {
		return Record{}, Errorf(EINVALID, "id %q is not a UUID", truncateRunes(m.ID, 40))
	}
	if !m.AccessedAt.IsZero() {
		v.AccessedAt = m.AccessedAt.UTC()
	}
	if m.AccessCount < 0 || m.Vitality < 0 || m.Stability < 0 {
		return Record{}, Errorf(EINVALID, "access_count, vitality and stability must not be negative")
	}
	v.AccessCount, v.Vitality, v.Stability = m.AccessCount, m.Vitality, m.Stability
	if m.Version > 0 {
		v.Version = m.Version
	}
	// An embedding of the store's model is kept; one of another model is
	// dropped by the store, and the memory embedded again.
	v.Embedding, v.EmbeddingModel = m.Embedding, m.EmbeddingModel
	return Record{Memory: v, Index: s.indexText(&v, ""), Embed: embedText(&v, "")}, nil
}

// linkMessages gives the messages of a batch their conversational context,
// as AddMessages does: each session's events in time order, neighbours
// indexed as context.
func (s *Service) linkMessages(recs []Record) {
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
