package files

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/inmem"
	segjson "github.com/segmentio/encoding/json"
)

// readState folds state.jsonl into a new memory, indexing each row as the
// next ones decode, and returns it with the cover of the log it holds;
// an empty memory and no cover when there is none.
func (s *Store) readState() (*inmem.Store, *cover, error) {
	ld := inmem.NewLoader(inmem.Options{Now: s.opts.Now})
	f, err := os.Open(filepath.Join(s.root, StateName))
	if errors.Is(err, fs.ErrNotExist) {
		return ld.Store(), nil, nil
	} else if err != nil {
		return nil, nil, fmt.Errorf("files: %w", err)
	}
	defer f.Close()
	var (
		cov   *cover
		keyed = map[ref]mnemo.Memory{} // rows with a key: their revisions refer to them
		n     int
		plain int64 // rows of a state another tool wrote
	)
	err = decodeLines(f, func(d *decoded) error {
		n++
		if d.torn {
			return fmt.Errorf("files: %s ends in a torn line", StateName)
		}
		l := &d.l
		if d.err != nil || l.Key == "" {
			return fmt.Errorf("files: %s line %d is not an envelope: %v", StateName, n, d.err)
		}
		x := l.Mnemo
		if x == nil {
			// A state another tool wrote (Compact, ExportTree): the
			// latest envelope of each key, folded as writes are.
			rec, err := plainRecord(l, d.raw, s.opts.Home, s.an)
			if err != nil {
				return nil
			}
			if plain == 0 {
				ld.Header(mnemo.VectorSpace{}, 0, 0, 0, []mnemo.Scope{s.opts.Home})
			}
			plain++
			ld.Row(&inmem.Row{Memory: rec.Memory, Tombstone: rec.Tombstone, Index: rec.Index, Seq: plain, Arrival: plain})
			return nil
		}
		switch x.Op {
		case opHeader:
			cov = x.Cover
			var space mnemo.VectorSpace
			if x.Space != nil {
				space = *x.Space
			}
			var seqs [3]int64
			if x.Seqs != nil {
				seqs = *x.Seqs
			}
			ld.Header(space, seqs[0], seqs[1], seqs[2], x.Scopes)
		case opRow:
			m, err := l.memoryOf()
			if err != nil {
				return err
			}
			row := inmem.Row{Memory: m, Tombstone: x.Tombstone, Embed: x.Embed, Vectored: x.Vectored, Seq: x.Seq, Arrival: x.Arrival}
			if x.Index != nil {
				row.Index = *x.Index
			}
			if m.Key != "" {
				keyed[ref{sc: m.Scope(), key: m.Key}] = m
			}
			ld.Row(&row)
		case opRev:
			if x.Rev == nil {
				return nil
			}
			rev := *x.Rev
			if x.Life != nil {
				m, ok := keyed[ref{sc: l.scope(), key: rev.Key}]
				if !ok {
					return fmt.Errorf("files: %s line %d: a revision of a row that is not there", StateName, n)
				}
				m = x.Life.apply(m)
				rev.Memory = &m
			}
			ld.Revision(inmem.Revision{Scope: l.scope(), Revision: rev})
		case opLedger:
			for _, e := range x.Entries {
				ld.Ledger(e)
			}
		case opDoc:
			if x.Doc != nil {
				ld.Doc(*x.Doc)
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return ld.Store(), cov, nil
}

// life is what a revision's memory has of its own when it is otherwise
// its row's memory (the write that made the row, since touched, aged or
// re-embedded): a state keeps it instead of the whole memory again.
type life struct {
	AccessCount    int       `json:"access_count"`
	AccessedAt     time.Time `json:"accessed_at,omitzero"`
	Vitality       float64   `json:"vitality"`
	Stability      float64   `json:"stability"`
	Archived       bool      `json:"archived,omitempty"`
	EmbeddingModel string    `json:"embedding_model,omitempty"`
}

func lifeOf(m *mnemo.Memory) *life {
	return &life{AccessCount: m.AccessCount, AccessedAt: m.AccessedAt, Vitality: m.Vitality, Stability: m.Stability, Archived: m.Archived, EmbeddingModel: m.EmbeddingModel}
}

// apply returns m with l's fields, without a vector: a revision's memory.
func (l *life) apply(m mnemo.Memory) mnemo.Memory {
	m.AccessCount, m.AccessedAt, m.Vitality, m.Stability, m.Archived, m.EmbeddingModel =
		l.AccessCount, l.AccessedAt, l.Vitality, l.Stability, l.Archived, l.EmbeddingModel
	m.Embedding = nil
	return m
}

// writeState writes snap to state.jsonl, covering the log up to cov: a
// new file, synced and renamed over the old.
func (s *Store) writeState(snap *inmem.Snapshot, cov *cover) error {
	tmp := filepath.Join(s.root, StateName+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	defer os.Remove(tmp) // after the rename, a no-op
	w := bufio.NewWriterSize(f, 1<<20)
	enc := segjson.NewEncoder(w)
	enc.SetEscapeHTML(false)
	put := func(l line) error { return enc.Encode(&l) }
	now := s.now()
	seqs := [3]int64{snap.Seq, snap.RowSeq, snap.LedgerSeq}
	head := &ext{Op: opHeader, At: now, Cover: cov, Seqs: &seqs, Scopes: snap.Scopes}
	if snap.Space.Model != "" {
		head.Space = &snap.Space
	}
	if err := put(line{Key: reservedPrefix + "state", TS: now, Content: json.RawMessage("null"), Mnemo: head}); err != nil {
		f.Close()
		return fmt.Errorf("files: %w", err)
	}
	for i := range snap.Rows {
		r := &snap.Rows[i]
		x := &ext{Op: opRow, Tenant: r.Memory.TenantID, Agent: r.Memory.AgentID, At: r.Memory.UpdatedAt,
			Embed: r.Embed, Vectored: r.Vectored, Seq: r.Seq, Arrival: r.Arrival}
		if r.Index != (mnemo.IndexText{}) {
			idx := r.Index
			x.Index = &idx
		}
		m := r.Memory
		m.TenantID, m.AgentID = "", ""
		if err := put(memoryLine(m, r.Tombstone, x)); err != nil {
			f.Close()
			return fmt.Errorf("files: %w", err)
		}
	}
	rows := map[ref]*mnemo.Memory{}
	for i := range snap.Rows {
		if m := &snap.Rows[i].Memory; m.Key != "" {
			rows[ref{sc: m.Scope(), key: m.Key}] = m
		}
	}
	for i := range snap.Revisions {
		rv := &snap.Revisions[i]
		x := &ext{Op: opRev, Tenant: rv.Scope.TenantID, Agent: rv.Scope.AgentID, At: rv.At, Rev: &rv.Revision}
		if m := rows[ref{sc: rv.Scope, key: rv.Key}]; m != nil && rv.Memory != nil {
			if l := lifeOf(rv.Memory); reflect.DeepEqual(l.apply(*m), *rv.Memory) {
				r := rv.Revision
				r.Memory = nil
				x.Rev, x.Life = &r, l
			}
		}
		if err := put(metaLine(x)); err != nil {
			f.Close()
			return fmt.Errorf("files: %w", err)
		}
	}
	for _, e := range snap.Ledger {
		x := &ext{Op: opLedger, Tenant: e.TenantID, Agent: e.AgentID, At: e.At, Entries: []mnemo.LedgerEntry{e}}
		if err := put(metaLine(x)); err != nil {
			f.Close()
			return fmt.Errorf("files: %w", err)
		}
	}
	for i := range snap.Docs {
		d := &snap.Docs[i]
		x := &ext{Op: opDoc, Tenant: d.Scope.TenantID, Agent: d.Scope.AgentID, At: d.UpdatedAt, Doc: d}
		if err := put(metaLine(x)); err != nil {
			f.Close()
			return fmt.Errorf("files: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("files: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("files: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(s.root, StateName)); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	return syncDir(s.root)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	defer d.Close()
	d.Sync() // not every file system syncs directories; the renames stand either way
	return nil
}

// Compact compacts the memory root now: see compactLocked. It returns what
// it wrote.
func (s *Store) Compact(ctx context.Context) (CompactResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return CompactResult{}, mnemo.Errorf(mnemo.EUNAVAILABLE, "the store is closed")
	}
	var res CompactResult
	err := s.log.locked(lockEx, func() error {
		if err := s.catchUp(ctx, true); err != nil {
			return err
		}
		var err error
		res, err = s.compactLocked(ctx, true)
		return err
	})
	return res, err
}

// compactLocked writes what memory holds to state.jsonl (FS-13, FS-14),
// with, in order, each step leaving a root that opens to the same memory:
//
//  1. after a forget or clear, the archive and the log are rewritten
//     without the content of what they deleted (new files renamed over);
//  2. state.jsonl, a new file renamed over, holds every memory, tombstone,
//     revision, ledger entry and state document, and says which line of
//     the log it holds the log up to;
//  3. with index, the index is rebuilt from memory and swapped in,
//     repairing any drift (without, the index was kept current by the
//     writes);
//  4. with RotateLog, the log moves into archive/ and a new one starts.
//
// The caller holds s.mu and the log's lock and has caught up.
func (s *Store) compactLocked(ctx context.Context, index bool) (CompactResult, error) {
	var res CompactResult
	if s.redact {
		if err := s.redactAll(); err != nil {
			return res, err
		}
	}
	mem := s.mem.Load()
	snap := mem.Snapshot()
	cov, err := lastLine(s.file, s.offset)
	if err != nil {
		return res, err
	}
	if err := s.writeState(snap, cov); err != nil {
		return res, err
	}
	s.stateChanged()
	res.Read = s.tail
	res.Keys = len(snap.Rows)
	for i := range snap.Rows {
		if !snap.Rows[i].Tombstone {
			res.Live++
		}
	}
	if index {
		if err := s.rebuildIndex(snap); err != nil {
			return res, err
		}
	}
	if s.opts.History == RotateLog && s.offset > 0 {
		name, err := s.rotate()
		if err != nil {
			return res, err
		}
		res.Archived = name
	}
	s.tail, s.redact = 0, false
	s.opts.Logger.Info("files: compacted", "root", s.root, "keys", res.Keys, "live", res.Live, "archived", res.Archived)
	return res, nil
}

// lastLine returns the cover of the log f up to off: off and the identity
// of the line that ends there; nil for an empty log.
func lastLine(f *os.File, off int64) (*cover, error) {
	if off == 0 {
		return nil, nil
	}
	start := max(0, off-maxLine)
	buf := make([]byte, off-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("files: %w", err)
	}
	buf = buf[:len(buf)-1]
	var l line
	if err := json.Unmarshal(buf[bytes.LastIndexByte(buf, '\n')+1:], &l); err != nil {
		return nil, fmt.Errorf("files: the last line of %s: %w", LogName, err)
	}
	return &cover{Offset: off, Line: l.identity()}, nil
}

// rotate moves the log into archive/ and starts a new one (RotateLog).
func (s *Store) rotate() (string, error) {
	dir := filepath.Join(s.root, "archive")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("files: %w", err)
	}
	day := s.now().Format("20060102")
	name := filepath.Join(dir, "log_"+day+".jsonl")
	for i := 2; ; i++ {
		if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
			break
		}
		name = filepath.Join(dir, fmt.Sprintf("log_%s_%d.jsonl", day, i))
	}
	if err := os.Rename(s.logPath(), name); err != nil {
		return "", fmt.Errorf("files: %w", err)
	}
	if err := s.log.reopen(); err != nil {
		return "", err
	}
	if err := s.refold(); err != nil {
		return "", err
	}
	return strings.TrimPrefix(name, s.root+string(filepath.Separator)), nil
}

// refold points the fold at the current log file, all of it folded: after
// a rewrite or a rotation made under the lock.
func (s *Store) refold() error {
	f, err := os.OpenFile(s.logPath(), os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("files: %w", err)
	}
	if s.file != nil {
		s.file.Close()
	}
	s.file, s.offset = f, st.Size()
	s.seen.Store(st.Size())
	s.ident.Store(&st)
	return nil
}

// archives returns the archived logs, oldest first.
func (s *Store) archives() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(s.root, "archive"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "log_") && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, filepath.Join(s.root, "archive", e.Name()))
		}
	}
	// log_20260223.jsonl before log_20260223_2.jsonl before log_20260224.jsonl
	slices.SortFunc(out, func(a, b string) int {
		return strings.Compare(strings.TrimSuffix(a, ".jsonl"), strings.TrimSuffix(b, ".jsonl"))
	})
	return out, nil
}

// forgotten is what the forget and clear lines of a scope delete, by the
// position of the last line that deletes each.
type forgotten struct {
	clear int
	keys  map[string]int
	ids   map[string]int
}

// redactAll rewrites the archive and the log without the content of the
// memories a later forget or clear deleted, and without the index
// contexts, embed texts and vectors that a later contexts line replaced:
// a message's context holds its neighbours' words, and its embed text the
// turn before it, so a message forgotten leaves them once the lines
// around it are indexed again (REC-37).
func (s *Store) redactAll() error {
	files, err := s.archives()
	if err != nil {
		return err
	}
	files = append(files, s.logPath())
	gone := map[mnemo.Scope]*forgotten{}
	owner := map[string]mnemo.Scope{}
	// The last contexts line to set each memory's context, and its embed
	// text: what each earlier line held of them is replaced.
	lastContext, lastEmbed := map[string]int{}, map[string]int{}
	pos := 0
	starts := make([]int, len(files)) // the position before each file's first line
	for i, p := range files {
		starts[i] = pos
		err := eachLine(p, func(raw []byte, l *line) {
			pos++
			if l == nil || l.Mnemo == nil {
				return
			}
			x := l.Mnemo
			if x.Op == opWrite && x.Memory != nil {
				owner[x.Memory.ID] = l.scope() // a vectors line names memories by id alone
			}
			if x.Op == opContexts {
				for _, u := range x.Contexts {
					lastContext[u.ID] = pos
					if u.Embed != "" {
						lastEmbed[u.ID] = pos
					}
				}
			}
			if x.Op != opForget && x.Op != opClear {
				return
			}
			g := gone[l.scope()]
			if g == nil {
				g = &forgotten{keys: map[string]int{}, ids: map[string]int{}}
				gone[l.scope()] = g
			}
			if x.Op == opClear {
				g.clear = pos
			}
			for _, k := range x.Keys {
				g.keys[k] = pos
			}
			for _, id := range x.IDs {
				g.ids[id] = pos
			}
		})
		if err != nil {
			return err
		}
	}
	if len(gone) == 0 {
		return nil
	}
	for i, p := range files {
		err := rewriteLines(p, func(n int, raw []byte, l *line) []byte {
			pos := starts[i] + n + 1
			if l == nil {
				return raw
			}
			sc, key, id := s.opts.Home, l.Key, ""
			x := l.Mnemo
			switch {
			case x == nil:
				id = plainID(raw)
			case x.Op == opWrite && !x.Redacted && x.Memory != nil:
				sc, key, id = l.scope(), x.Memory.Key, x.Memory.ID
				if g := gone[sc]; g == nil || !(g.clear > pos || key != "" && g.keys[key] > pos || g.ids[id] > pos) {
					return replaced(l, raw, pos, lastContext, lastEmbed)
				}
			case x.Op == opContexts:
				return replaced(l, raw, pos, lastContext, lastEmbed)
			case x.Op == opVectors:
				var keep []int
				for i, j := range x.Jobs {
					sc, ok := owner[j.ID]
					g := gone[sc]
					if lastEmbed[j.ID] > pos {
						continue // a vector of an embed text replaced
					}
					if !ok || g == nil || !(g.ids[j.ID] > pos || g.clear > pos) {
						keep = append(keep, i)
					}
				}
				if len(keep) == len(x.Jobs) {
					return raw
				}
				y := *x
				y.Jobs, y.Vectors = nil, nil
				for _, i := range keep {
					y.Jobs = append(y.Jobs, x.Jobs[i])
					y.Vectors = append(y.Vectors, x.Vectors[i])
				}
				l.Mnemo = &y
				return encodeLine(l)
			default:
				return raw
			}
			g := gone[sc]
			if g == nil || !(g.clear > pos || key != "" && g.keys[key] > pos || g.ids[id] > pos) {
				return raw
			}
			r := redact(*l)
			return encodeLine(&r)
		})
		if err != nil {
			return err
		}
	}
	return s.refold()
}

// replaced returns l, at pos, without the index contexts and embed texts
// (and vectors) that a later contexts line replaced; raw when it holds
// none.
func replaced(l *line, raw []byte, pos int, lastContext, lastEmbed map[string]int) []byte {
	x := *l.Mnemo
	changed := false
	switch x.Op {
	case opWrite:
		id := x.Memory.ID
		if x.Index != nil && x.Index.Context != "" && lastContext[id] > pos {
			idx := *x.Index
			idx.Context, x.Index, changed = "", &idx, true
		}
		if (x.Embed != "" || x.Vector != "") && lastEmbed[id] > pos {
			x.Embed, x.Vector, changed = "", "", true
		}
	case opContexts:
		var keep []mnemo.ContextUpdate
		for _, u := range x.Contexts {
			if lastContext[u.ID] > pos && u.Context != "" {
				u.Context, changed = "", true
			}
			if lastEmbed[u.ID] > pos && u.Embed != "" {
				u.Embed, changed = "", true
			}
			if u.Context != "" || u.Embed != "" || lastContext[u.ID] == pos {
				keep = append(keep, u)
			} else {
				changed = true
			}
		}
		x.Contexts = keep
	}
	if !changed {
		return raw
	}
	l.Mnemo = &x
	return encodeLine(l)
}

func encodeLine(l *line) []byte {
	b, _ := json.Marshal(l) // a line decoded from JSON encodes
	return append(b, '\n')
}

// eachLine calls fn with each line of the file at p that decodes.
func eachLine(p string, fn func(raw []byte, l *line)) error {
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		raw, err := r.ReadBytes('\n')
		if err != nil {
			return nil // EOF, or a torn tail, which no fold reads either
		}
		var l line
		if segjson.Unmarshal(raw, &l) == nil {
			fn(raw, &l)
		} else {
			fn(raw, nil)
		}
	}
}

// rewriteLines rewrites the file at p through fn, which is given each
// line with its number (from 0) and returns what to keep of it: into a new
// file renamed over it, when fn changes anything (a first pass looks).
func rewriteLines(p string, fn func(n int, raw []byte, l *line) []byte) error {
	changed, n := false, 0
	err := eachLine(p, func(raw []byte, l *line) {
		if !changed && !bytes.Equal(fn(n, raw, l), raw) {
			changed = true
		}
		n++
	})
	if err != nil || !changed {
		return err
	}
	tmp := p + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	defer os.Remove(tmp)
	w := bufio.NewWriterSize(out, 1<<20)
	n = 0
	err = eachLine(p, func(raw []byte, l *line) {
		w.Write(fn(n, raw, l))
		n++
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("files: rewrite %s: %w", filepath.Base(p), err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	return nil
}

// Replay calls fn with every record written to the store that the log
// (and, with RotateLog, the archive) still holds, in the order they were
// appended: the records of one Write come one after another. Records of
// forgotten or cleared memories are gone from it; forgets, clears,
// accesses, lifecycle changes and state documents are not records and are
// not replayed. It reads under a shared lock: writers wait for it.
//
// This is the spool's read: a store used as a local spool while the
// database is down is replayed into the database when it is back, and then
// cleared. A spool should not compact with RotateLog and then lose its
// archive, or the records so rotated are not replayed.
func (s *Store) Replay(ctx context.Context, fn func(sc mnemo.Scope, rec mnemo.Record) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.locked(lockSh, func() error {
		files, err := s.archives()
		if err != nil {
			return err
		}
		files = append(files, s.logPath())
		var (
			ferr    error
			pending []line
			raws    [][]byte
		)
		// flush replays a batch read whole; a torn one was never
		// acknowledged.
		flush := func() {
			defer func() { pending, raws = pending[:0], raws[:0] }()
			if ferr != nil || len(pending) == 0 {
				return
			}
			if x := pending[0].Mnemo; x != nil && max(x.N, 1) != len(pending) {
				return
			}
			for i := range pending {
				if ferr = ctx.Err(); ferr != nil {
					return
				}
				l, x := &pending[i], pending[i].Mnemo
				switch {
				case x == nil:
					if rec, err := plainRecord(l, raws[i], s.opts.Home, s.an); err == nil {
						ferr = fn(s.opts.Home, rec)
					}
				case x.Op == opWrite && !x.Redacted && x.Memory != nil:
					m, err := l.memoryOf()
					if err != nil {
						ferr = err
						return
					}
					rec := mnemo.Record{Memory: m, Tombstone: x.Tombstone, Embed: x.Embed}
					if x.Index != nil {
						rec.Index = *x.Index
					}
					ferr = fn(l.scope(), rec)
				}
				if ferr != nil {
					return
				}
			}
		}
		for _, p := range files {
			err := eachLine(p, func(raw []byte, l *line) {
				if l == nil {
					return
				}
				if len(pending) > 0 && pending[0].identity() != l.identity() {
					flush()
				}
				pending = append(pending, *l)
				raws = append(raws, raw)
			})
			if err != nil {
				return err
			}
			flush()
			if ferr != nil {
				return ferr
			}
		}
		return nil
	})
}
