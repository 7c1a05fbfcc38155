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
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/analysis"
	"github.com/mnemo-dev/mnemo/inmem"
	segjson "github.com/segmentio/encoding/json"
)

// Store is a mnemo.Store whose memory is a memory root directory
// (FS-11), readable with ls, find, grep, jq and cat (see the package doc).
// It is also a mnemo.LifecycleStore, a mnemo.StateStore and a
// mnemo.VectorStore, and is safe for concurrent use by goroutines and by
// processes sharing the root.
type Store struct {
	root string
	opts StoreOptions
	log  *Log
	an   *analysis.Analyzer

	mem atomic.Pointer[inmem.Store] // the fold of state and log

	// mu serialises catching up, writing and compacting in this process;
	// reads take it only to catch up.
	mu     sync.Mutex
	file   *os.File // the log as folded: another file at its path means a compaction
	offset int64    // bytes of file folded
	seen   atomic.Int64
	ident  atomic.Pointer[os.FileInfo]
	tail   int         // lines folded after the state's cover: what triggers compaction
	redact bool        // a forget or clear is in the log, its content not yet rewritten away
	stale  atomic.Bool // memory ran ahead of the log (an append failed): fold again
	closed bool
	recent []ref       // the last writes folded at open, whose index files are checked
	state  os.FileInfo // state.jsonl as last read or written
}

// stateChanged reports whether state.jsonl is another than the one this
// process last read or wrote, and notes it.
func (s *Store) stateChanged() bool {
	st, err := os.Stat(filepath.Join(s.root, StateName))
	if err != nil {
		return false
	}
	changed := s.state == nil || !os.SameFile(st, s.state)
	s.state = st
	return changed
}

// StoreOptions configure a Store.
type StoreOptions struct {
	// History is what compaction does with the log (FS-14): KeepLog (the
	// default) or RotateLog (into archive/).
	History History
	// CompactEvery is the number of log lines after the state that
	// triggers a compaction: 0 means 100,000 (FS-15), negative
	// never (Compact on demand only).
	CompactEvery int
	// NoSync skips the fsync after each append (see LogOptions).
	NoSync bool
	// Home is the scope whose keys are at the top of index/, as FS-11
	// lays out a single agent's memory; other scopes are under
	// index/@scopes/<tenant>/<agent>/. Zero means default/default, the
	// CLI's scope.
	Home mnemo.Scope
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// DefaultCompactEvery is the log size, in lines, that triggers compaction.
const DefaultCompactEvery = 100_000

var (
	_ mnemo.Store          = (*Store)(nil)
	_ mnemo.LifecycleStore = (*Store)(nil)
	_ mnemo.StateStore     = (*Store)(nil)
	_ mnemo.VectorStore    = (*Store)(nil)
)

// OpenStore opens (creating) the memory root at root: it folds
// state.jsonl and then log.jsonl into memory, repairs the index for the
// last writes (a crash may have cut one between its log line and its
// file), and finishes a forget whose rewrite a crash interrupted.
func OpenStore(ctx context.Context, root string, opts StoreOptions) (*Store, error) {
	if opts.CompactEvery == 0 {
		opts.CompactEvery = DefaultCompactEvery
	}
	if opts.Home == (mnemo.Scope{}) {
		opts.Home = mnemo.Scope{TenantID: "default", AgentID: "default"}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	l, err := OpenLog(root, LogOptions{NoSync: opts.NoSync})
	if err != nil {
		return nil, err
	}
	s := &Store{root: root, opts: opts, log: l, an: analysis.New()}
	err = l.locked(lockEx, func() error {
		if err := s.reload(ctx); err != nil {
			return err
		}
		if err := s.repairIndex(ctx); err != nil {
			return err
		}
		if s.redact {
			_, err := s.compactLocked(ctx, false)
			return err
		}
		return nil
	})
	if err != nil {
		l.Close()
		if s.file != nil {
			s.file.Close()
		}
		return nil, err
	}
	return s, nil
}

// Root returns the memory root's directory.
func (s *Store) Root() string { return s.root }

// Close closes the store.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.file != nil {
		s.file.Close()
	}
	return s.log.Close()
}

func (s *Store) logPath() string { return filepath.Join(s.root, LogName) }

// reload folds state and log afresh. The caller holds the log's lock.
func (s *Store) reload(ctx context.Context) error {
	mem, cov, err := s.readState()
	if err != nil {
		return err
	}
	s.stateChanged()
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	f, err := os.OpenFile(s.logPath(), os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("files: %w", err)
	}
	s.file, s.offset, s.tail, s.redact = f, 0, 0, false
	s.stale.Store(false)
	s.ident.Store(&st)
	if cov != nil {
		if s.offset, err = findCover(f, cov); err != nil {
			return err
		}
	}
	s.mem.Store(mem)
	return s.fold(ctx, mem, true)
}

// findCover returns where the log continues after the state's cover: at
// its offset when the line ending there is the cover's, after the line
// anywhere else that is (a rewritten log), or at the start (a rotated
// log: the state holds none of it).
func findCover(f *os.File, c *cover) (int64, error) {
	if c.Offset > 0 {
		start := max(0, c.Offset-maxLine)
		buf := make([]byte, c.Offset-start)
		if n, _ := f.ReadAt(buf, start); n == len(buf) && buf[len(buf)-1] == '\n' {
			prev := bytes.LastIndexByte(buf[:len(buf)-1], '\n')
			var l line
			if json.Unmarshal(buf[prev+1:], &l) == nil && l.identity() == c.Line {
				if prev >= 0 || start == 0 {
					return c.Offset, nil
				}
			}
		}
	}
	// Scan: the cover's line, wherever it is now.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("files: %w", err)
	}
	r := bufio.NewReaderSize(f, 1<<16)
	var off, found int64
	for {
		b, err := r.ReadBytes('\n')
		if err != nil {
			break
		}
		off += int64(len(b))
		var l line
		if segjson.Unmarshal(b, &l) == nil && l.identity() == c.Line {
			found = off
			// Lines of one batch share its identity: the last one wins.
		}
	}
	return found, nil
}

// fold applies the log from s.offset to its end: complete batches only;
// a batch cut short is applied when the rest of it arrives, or dropped as
// torn when another batch follows it or when locked says no append is in
// progress.
func (s *Store) fold(ctx context.Context, mem *inmem.Store, locked bool) error {
	st, err := s.file.Stat()
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	size := st.Size()
	if size <= s.offset {
		s.seen.Store(size)
		return nil
	}
	buf := make([]byte, size-s.offset)
	n, err := s.file.ReadAt(buf, s.offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("files: read %s: %w", LogName, err)
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n') + 1 // complete lines only
	buf = buf[:end]

	var (
		batch      []line
		raws       [][]byte
		batchStart int64 // offset of the batch's first line
		pos        = s.offset
	)
	flush := func() error {
		if len(batch) > 0 {
			if err := s.apply(ctx, mem, batch, raws); err != nil {
				return err
			}
			s.tail += len(batch)
		}
		batch, raws = batch[:0], raws[:0]
		return nil
	}
	err = decodeLines(bytes.NewReader(buf), func(d *decoded) error {
		raw, l := d.raw, d.l
		if d.err != nil || l.Key == "" {
			s.opts.Logger.Warn("files: skipping a log line that is not an envelope", "offset", pos, "err", d.err)
			pos += int64(len(raw))
			if len(batch) == 0 {
				s.offset = pos
			}
			return nil
		}
		id, want := l.identity(), 1
		if l.Mnemo != nil && l.Mnemo.N > 1 {
			want = l.Mnemo.N
		}
		if len(batch) > 0 && batch[0].identity() != id {
			s.opts.Logger.Warn("files: dropping a torn batch", "offset", batchStart, "lines", len(batch))
			batch, raws = batch[:0], raws[:0]
		}
		if len(batch) == 0 {
			batchStart = pos
		}
		batch = append(batch, l)
		raws = append(raws, raw)
		pos += int64(len(raw))
		if len(batch) >= want {
			if err := flush(); err != nil {
				return err
			}
			s.offset = pos
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(batch) > 0 && locked {
		// Nobody is appending: the batch was torn by a crash.
		s.opts.Logger.Warn("files: dropping a torn batch", "offset", batchStart, "lines", len(batch))
		s.offset = pos
	} else if len(batch) == 0 {
		s.offset = pos
	}
	s.seen.Store(pos)
	return nil
}

// apply applies one batch of lines to mem.
func (s *Store) apply(ctx context.Context, mem *inmem.Store, batch []line, raws [][]byte) error {
	first := batch[0].Mnemo
	if first == nil {
		rec, err := plainRecord(&batch[0], raws[0], s.opts.Home, s.an)
		if err != nil {
			s.opts.Logger.Warn("files: skipping a line of another writer", "key", batch[0].Key, "err", err)
			return nil
		}
		_, err = mem.Write(inmem.WithNow(ctx, rec.Memory.UpdatedAt), s.opts.Home, []mnemo.Record{rec})
		if err == nil {
			s.noteWrite(ref{sc: s.opts.Home, key: rec.Memory.Key})
		}
		return s.applied(err)
	}
	sc := batch[0].scope()
	ctx = inmem.WithNow(ctx, first.At)
	var err error
	switch first.Op {
	case opWrite:
		// A batch of WriteContexts ends with its contexts line.
		var ups []mnemo.ContextUpdate
		if last := batch[len(batch)-1].Mnemo; len(batch) > 1 && last != nil && last.Op == opContexts {
			ups, batch = last.Contexts, batch[:len(batch)-1]
		}
		recs := make([]mnemo.Record, len(batch))
		refs := make([]ref, len(batch))
		for i := range batch {
			x := batch[i].Mnemo
			if x == nil || x.Memory == nil {
				s.opts.Logger.Warn("files: skipping a write line without its memory", "batch", first.Batch)
				return nil
			}
			m, err := batch[i].memoryOf()
			if err != nil {
				s.opts.Logger.Warn("files: skipping a write line", "batch", first.Batch, "err", err)
				return nil
			}
			recs[i] = mnemo.Record{Memory: m, Tombstone: x.Tombstone, Embed: x.Embed}
			if x.Index != nil {
				recs[i].Index = *x.Index
			}
			refs[i] = ref{sc: sc, key: m.Key}
			if refs[i].key == "" {
				refs[i].id = m.ID
			}
		}
		switch {
		case first.Replace:
			_, err = mem.Replace(ctx, sc, recs[0])
		case len(ups) > 0:
			_, err = mem.WriteContexts(ctx, sc, recs, ups)
		default:
			_, err = mem.Write(ctx, sc, recs)
		}
		// Only a write that applied has index files for the open to
		// check: a line that does not apply (skipped below) has none, and
		// checking it would fail every later open (FS-8).
		if err == nil {
			for _, r := range refs {
				s.noteWrite(r)
			}
		}
	case opContexts:
		_, err = mem.WriteContexts(ctx, sc, nil, first.Contexts)
	case opForget:
		_, err = mem.Forget(ctx, sc, first.IDs, first.Keys)
		s.redact = true
	case opClear:
		_, err = mem.Clear(ctx, sc)
		s.redact = true
	case opTouch:
		err = mem.Touch(ctx, sc, first.IDs, first.At)
	case opLife:
		_, err = mem.ApplyLife(ctx, sc, first.Changes, first.Entries)
	case opLedger:
		err = mem.AppendLedger(ctx, sc, first.Entries)
	case opState:
		if first.Doc != nil {
			_, err = mem.PutState(ctx, sc, *first.Doc)
		}
	case opUnstate:
		_, err = mem.DeleteState(ctx, sc, first.Kind, first.DocID, first.Version)
	case opSpace:
		if first.Space != nil {
			err = mem.SetVectorSpace(ctx, *first.Space, first.Reset)
		}
	case opVectors:
		vecs := make([][]float32, len(first.Vectors))
		for i, v := range first.Vectors {
			if vecs[i], err = decodeVector(v); err != nil {
				s.opts.Logger.Warn("files: skipping a vectors line", "batch", first.Batch, "err", err)
				return nil
			}
		}
		err = mem.SetVectors(ctx, first.Jobs, vecs)
	default:
		s.opts.Logger.Warn("files: skipping a line of an unknown op", "op", first.Op)
	}
	return s.applied(err)
}

// applied judges the error of applying a line: a line that its writer
// applied without error applies alike here, so a coded error (a line
// written by hand, say) is logged and skipped, never fatal.
func (s *Store) applied(err error) error {
	if err == nil {
		return nil
	}
	if mnemo.ErrorCode(err) != "" {
		s.opts.Logger.Warn("files: a log line does not apply", "err", err)
		return nil
	}
	return err
}

// current returns the memory to answer from, caught up with what other
// processes appended.
func (s *Store) current(ctx context.Context) (*inmem.Store, error) {
	if st, err := os.Stat(s.logPath()); err == nil {
		if id := s.ident.Load(); id != nil && os.SameFile(st, *id) && st.Size() == s.seen.Load() && !s.stale.Load() {
			return s.mem.Load(), nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "the store is closed")
	}
	if err := s.catchUp(ctx, false); err != nil {
		return nil, err
	}
	return s.mem.Load(), nil
}

// catchUp folds what other processes appended, or folds everything again
// when the log was compacted away. The caller holds s.mu, and the log's
// lock if locked.
func (s *Store) catchUp(ctx context.Context, locked bool) error {
	st, err := os.Stat(s.logPath())
	moved := errors.Is(err, fs.ErrNotExist)
	if err != nil && !moved {
		return fmt.Errorf("files: %w", err)
	}
	if s.stale.Load() || moved || !os.SameFile(st, *s.ident.Load()) {
		if locked {
			return s.reload(ctx)
		}
		return s.log.locked(lockSh, func() error { return s.reload(ctx) })
	}
	return s.fold(ctx, s.mem.Load(), locked)
}

// mutate runs one change: under the lock of every process, caught up,
// apply changes memory (and fails without writing anything), then lines
// are appended; after, the index is brought up to date by index. A
// change whose append fails leaves memory ahead of the log: it is folded
// again before the next call.
func (s *Store) mutate(ctx context.Context, sync bool, apply func(mem *inmem.Store) ([]line, error), index func(mem *inmem.Store) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return mnemo.Errorf(mnemo.EUNAVAILABLE, "the store is closed")
	}
	return s.log.locked(lockEx, func() error {
		if err := s.catchUp(ctx, true); err != nil {
			return err
		}
		mem := s.mem.Load()
		lines, err := apply(mem)
		if err != nil || len(lines) == 0 {
			return err
		}
		var buf bytes.Buffer
		for i := range lines {
			b, err := json.Marshal(&lines[i])
			if err != nil {
				s.stale.Store(true)
				return fmt.Errorf("files: encode: %w", err)
			}
			buf.Write(b)
			buf.WriteByte('\n')
		}
		size, err := s.log.appendLocked(buf.Bytes(), sync)
		if err != nil {
			s.stale.Store(true)
			return err
		}
		// The log is this process's file still (catchUp checked, under
		// the lock), and ends with the lines just written.
		s.offset = size
		s.seen.Store(size)
		s.tail += len(lines)
		// The change is in the log, the source of truth: acknowledged.
		// An index file that fails to land is repaired by the next
		// compaction, and says so now.
		if index != nil {
			if err := index(mem); err != nil {
				s.opts.Logger.Warn("files: index not updated; the next compaction repairs it", "err", err)
			}
		}
		// A forget is not done until its content is rewritten away; a
		// long log is compacted.
		full := s.opts.CompactEvery > 0 && s.tail >= s.opts.CompactEvery
		if full && s.stateChanged() {
			// Another process compacted (keeping the log): count afresh.
			full, s.tail = false, 0
		}
		if s.redact {
			_, err := s.compactLocked(ctx, full)
			return err // the content is still on disk: say so
		}
		if full {
			if _, err := s.compactLocked(ctx, true); err != nil {
				s.opts.Logger.Warn("files: compaction failed; the log stays whole", "err", err)
			}
		}
		return nil
	})
}

func (s *Store) newBatch() string { return uuid.Must(uuid.NewV7()).String() }

func (s *Store) now() time.Time { return s.opts.Now().UTC() }

// Write stores recs atomically. See mnemo.Store.
func (s *Store) Write(ctx context.Context, sc mnemo.Scope, recs []mnemo.Record) ([]mnemo.Memory, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, nil
	}
	now := s.now()
	recs, err := s.fixRecords(sc, recs, now)
	if err != nil {
		return nil, err
	}
	return s.writeContexts(ctx, sc, recs, nil, now)
}

// WriteContexts implements mnemo.ContextIndexer (REC-36, REC-37): the
// records' write lines and a contexts line, one batch, applied together
// by every fold. Redaction drops a context (and an embed text, and its
// vector) that a later contexts line replaced, so that a forgotten
// message's words leave the lines of the messages around it too.
func (s *Store) WriteContexts(ctx context.Context, sc mnemo.Scope, recs []mnemo.Record, updates []mnemo.ContextUpdate) ([]mnemo.Memory, error) {
	if len(updates) == 0 {
		return s.Write(ctx, sc, recs)
	}
	if err := mnemo.CheckScope(sc); err != nil {
		return nil, err
	}
	now := s.now()
	recs, err := s.fixRecords(sc, recs, now)
	if err != nil {
		return nil, err
	}
	return s.writeContexts(ctx, sc, recs, updates, now)
}

// writeContexts appends recs, fixed, and updates as one batch.
func (s *Store) writeContexts(ctx context.Context, sc mnemo.Scope, recs []mnemo.Record, updates []mnemo.ContextUpdate, now time.Time) ([]mnemo.Memory, error) {
	var out []mnemo.Memory
	err := s.mutate(ctx, true, func(mem *inmem.Store) ([]line, error) {
		var err error
		if len(updates) == 0 {
			out, err = mem.Write(inmem.WithNow(ctx, now), sc, recs)
		} else {
			out, err = mem.WriteContexts(inmem.WithNow(ctx, now), sc, recs, updates)
		}
		if err != nil {
			return nil, err
		}
		batch := s.newBatch()
		n := len(recs)
		if len(updates) > 0 {
			n++
		}
		lines := make([]line, 0, n)
		for _, r := range recs {
			x := &ext{Op: opWrite, Batch: batch, Tenant: sc.TenantID, Agent: sc.AgentID, At: now, Embed: r.Embed}
			if n > 1 {
				x.N = n
			}
			if r.Index != (mnemo.IndexText{}) {
				idx := r.Index
				x.Index = &idx
			}
			m := r.Memory
			m.TenantID, m.AgentID = "", ""
			lines = append(lines, memoryLine(m, r.Tombstone, x))
		}
		if len(updates) > 0 {
			x := &ext{Op: opContexts, Batch: batch, Tenant: sc.TenantID, Agent: sc.AgentID, At: now, Contexts: updates}
			if n > 1 {
				x.N = n
			}
			lines = append(lines, metaLine(x))
		}
		return lines, nil
	}, func(mem *inmem.Store) error {
		return s.indexRows(ctx, mem, sc, recs)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fixRecords fixes the ids and times of recs before their lines are
// written, so that every fold of them makes the same memories.
func (s *Store) fixRecords(sc mnemo.Scope, recs []mnemo.Record, now time.Time) ([]mnemo.Record, error) {
	recs = append([]mnemo.Record(nil), recs...)
	for i := range recs {
		m := &recs[i].Memory
		if m.ID == "" {
			m.ID = uuid.Must(uuid.NewV7()).String()
		}
		if m.CreatedAt.IsZero() {
			m.CreatedAt = now
		}
		if m.UpdatedAt.IsZero() {
			m.UpdatedAt = now
		}
		if m.TenantID == "" {
			m.TenantID = sc.TenantID
		}
		if m.AgentID == "" {
			m.AgentID = sc.AgentID
		}
		if m.Key != "" {
			if _, err := KeyPath(m.Key); err != nil {
				return nil, fmt.Errorf("record %d: %w", i, err)
			}
		}
	}
	return recs, nil
}

// Replace changes a keyless memory in place (API-14): one write line,
// marked, that a fold applies as a replacement. See mnemo.Store.Replace.
func (s *Store) Replace(ctx context.Context, sc mnemo.Scope, rec mnemo.Record) (mnemo.Memory, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return mnemo.Memory{}, err
	}
	if rec.Memory.Key != "" || rec.Tombstone || rec.Memory.ID == "" {
		return mnemo.Memory{}, mnemo.Errorf(mnemo.EINVALID, "replace takes a keyless memory with its id")
	}
	now := s.now()
	// Times and scope are fixed before the line is written, as Write's.
	recs, err := s.fixRecords(sc, []mnemo.Record{rec}, now)
	if err != nil {
		return mnemo.Memory{}, err
	}
	rec = recs[0]
	var out mnemo.Memory
	err = s.mutate(ctx, true, func(mem *inmem.Store) ([]line, error) {
		var err error
		if out, err = mem.Replace(inmem.WithNow(ctx, now), sc, rec); err != nil {
			return nil, err
		}
		x := &ext{Op: opWrite, Replace: true, Batch: s.newBatch(), Tenant: sc.TenantID, Agent: sc.AgentID, At: now, Embed: rec.Embed}
		if rec.Index != (mnemo.IndexText{}) {
			idx := rec.Index
			x.Index = &idx
		}
		m := rec.Memory
		m.TenantID, m.AgentID = "", ""
		return []line{memoryLine(m, false, x)}, nil
	}, func(mem *inmem.Store) error {
		return s.indexRows(ctx, mem, sc, []mnemo.Record{rec})
	})
	if err != nil {
		return mnemo.Memory{}, err
	}
	return out, nil
}

// Get implements mnemo.Store.
func (s *Store) Get(ctx context.Context, sc mnemo.Scope, id string) (mnemo.Memory, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return mnemo.Memory{}, err
	}
	return mem.Get(ctx, sc, id)
}

// GetByKey implements mnemo.Store.
func (s *Store) GetByKey(ctx context.Context, sc mnemo.Scope, key string) (mnemo.Memory, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return mnemo.Memory{}, err
	}
	return mem.GetByKey(ctx, sc, key)
}

// List implements mnemo.Store.
func (s *Store) List(ctx context.Context, sc mnemo.Scope, q mnemo.ListQuery) ([]mnemo.Memory, int, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, 0, err
	}
	return mem.List(ctx, sc, q)
}

// Search implements mnemo.Store, from the in-memory index.
func (s *Store) Search(ctx context.Context, sc mnemo.Scope, q mnemo.TextQuery) (mnemo.SearchResult, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return mnemo.SearchResult{}, err
	}
	return mem.Search(ctx, sc, q)
}

// History implements mnemo.Store.
func (s *Store) History(ctx context.Context, sc mnemo.Scope, key string) ([]mnemo.Revision, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return mem.History(ctx, sc, key)
}

// DeletedAfter implements mnemo.Store.DeletedAfter.
func (s *Store) DeletedAfter(ctx context.Context, sc mnemo.Scope, t time.Time, limit int) ([]mnemo.Revision, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return mem.DeletedAfter(ctx, sc, t, limit)
}

// Stats implements mnemo.Store.
func (s *Store) Stats(ctx context.Context, sc mnemo.Scope) (mnemo.Stats, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return mnemo.Stats{}, err
	}
	return mem.Stats(ctx, sc)
}

// CountTypes implements mnemo.Store.
func (s *Store) CountTypes(ctx context.Context, sc mnemo.Scope, f mnemo.Filter) ([]mnemo.TypeCount, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return mem.CountTypes(ctx, sc, f)
}

// Touch records accesses. Its line is not synced: an access count is
// bookkeeping, and the next synced append takes it to disk along.
func (s *Store) Touch(ctx context.Context, sc mnemo.Scope, ids []string, at time.Time) error {
	if err := mnemo.CheckScope(sc); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	if at.IsZero() {
		at = s.now()
	}
	return s.mutate(ctx, false, func(mem *inmem.Store) ([]line, error) {
		if err := mem.Touch(ctx, sc, ids, at); err != nil {
			return nil, err
		}
		x := &ext{Op: opTouch, Batch: s.newBatch(), Tenant: sc.TenantID, Agent: sc.AgentID, At: at.UTC(), IDs: ids}
		return []line{metaLine(x)}, nil
	}, nil)
}

// Forget deletes memories for good: besides the forget line, the log (and
// the archive) is rewritten at once with nothing left of them but their
// ids, keys and times, and so are the state and the index.
func (s *Store) Forget(ctx context.Context, sc mnemo.Scope, ids, keys []string) (int, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return 0, err
	}
	if len(ids) == 0 && len(keys) == 0 {
		return 0, nil
	}
	now := s.now()
	var (
		n         int
		forgotten []inmem.Found
	)
	err := s.mutate(ctx, true, func(mem *inmem.Store) ([]line, error) {
		gone := mem.Lookup(sc, ids, keys)
		if len(gone) == 0 {
			return nil, nil
		}
		var err error
		if n, err = mem.Forget(inmem.WithNow(ctx, now), sc, ids, keys); err != nil {
			return nil, err
		}
		x := &ext{Op: opForget, Batch: s.newBatch(), Tenant: sc.TenantID, Agent: sc.AgentID, At: now}
		for _, g := range gone {
			x.IDs = append(x.IDs, g.ID)
			if g.Key != "" {
				x.Keys = append(x.Keys, g.Key)
			}
		}
		s.redact = true
		forgotten = gone
		return []line{metaLine(x)}, nil
	}, func(*inmem.Store) error { return s.unindex(sc, forgotten) })
	return n, err
}

// Clear deletes every memory of the scope for good, as Forget does.
func (s *Store) Clear(ctx context.Context, sc mnemo.Scope) (int, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return 0, err
	}
	now := s.now()
	var n int
	err := s.mutate(ctx, true, func(mem *inmem.Store) ([]line, error) {
		if st, _ := mem.Stats(ctx, sc); st.Memories+st.Tombstones == 0 {
			return nil, nil
		}
		var err error
		if n, err = mem.Clear(inmem.WithNow(ctx, now), sc); err != nil {
			return nil, err
		}
		s.redact = true
		x := &ext{Op: opClear, Batch: s.newBatch(), Tenant: sc.TenantID, Agent: sc.AgentID, At: now}
		return []line{metaLine(x)}, nil
	}, func(*inmem.Store) error { return s.clearIndex(sc) })
	return n, err
}

// ApplyLife implements mnemo.LifecycleStore.
func (s *Store) ApplyLife(ctx context.Context, sc mnemo.Scope, changes []mnemo.LifeChange, entries []mnemo.LedgerEntry) (int, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return 0, err
	}
	now := s.now()
	var n int
	err := s.mutate(ctx, true, func(mem *inmem.Store) ([]line, error) {
		var err error
		if n, err = mem.ApplyLife(inmem.WithNow(ctx, now), sc, changes, entries); err != nil {
			return nil, err
		}
		if len(changes) == 0 && len(entries) == 0 {
			return nil, nil
		}
		x := &ext{Op: opLife, Batch: s.newBatch(), Tenant: sc.TenantID, Agent: sc.AgentID, At: now, Changes: changes, Entries: entries}
		return []line{metaLine(x)}, nil
	}, nil)
	return n, err
}

// AppendLedger implements mnemo.LifecycleStore.
func (s *Store) AppendLedger(ctx context.Context, sc mnemo.Scope, entries []mnemo.LedgerEntry) error {
	if err := mnemo.CheckScope(sc); err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	now := s.now()
	return s.mutate(ctx, true, func(mem *inmem.Store) ([]line, error) {
		if err := mem.AppendLedger(inmem.WithNow(ctx, now), sc, entries); err != nil {
			return nil, err
		}
		x := &ext{Op: opLedger, Batch: s.newBatch(), Tenant: sc.TenantID, Agent: sc.AgentID, At: now, Entries: entries}
		return []line{metaLine(x)}, nil
	}, nil)
}

// Ledger implements mnemo.LifecycleStore.
func (s *Store) Ledger(ctx context.Context, sc mnemo.Scope, q mnemo.LedgerQuery) ([]mnemo.LedgerEntry, int, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, 0, err
	}
	return mem.Ledger(ctx, sc, q)
}

// Scopes implements mnemo.LifecycleStore.
func (s *Store) Scopes(ctx context.Context) ([]mnemo.Scope, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return mem.Scopes(ctx)
}

// GetState implements mnemo.StateStore.
func (s *Store) GetState(ctx context.Context, sc mnemo.Scope, kind, id string) (mnemo.StateDoc, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return mnemo.StateDoc{}, err
	}
	return mem.GetState(ctx, sc, kind, id)
}

// PutState implements mnemo.StateStore.
func (s *Store) PutState(ctx context.Context, sc mnemo.Scope, doc mnemo.StateDoc) (int64, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return 0, err
	}
	var v int64
	err := s.mutate(ctx, true, func(mem *inmem.Store) ([]line, error) {
		var err error
		if v, err = mem.PutState(ctx, sc, doc); err != nil {
			return nil, err
		}
		d := doc
		x := &ext{Op: opState, Batch: s.newBatch(), Tenant: sc.TenantID, Agent: sc.AgentID, At: s.now(), Doc: &d}
		return []line{metaLine(x)}, nil
	}, nil)
	return v, err
}

// DeleteState implements mnemo.StateStore.
func (s *Store) DeleteState(ctx context.Context, sc mnemo.Scope, kind, id string, version int64) (bool, error) {
	if err := mnemo.CheckScope(sc); err != nil {
		return false, err
	}
	var ok bool
	err := s.mutate(ctx, true, func(mem *inmem.Store) ([]line, error) {
		var err error
		if ok, err = mem.DeleteState(ctx, sc, kind, id, version); err != nil || !ok {
			return nil, err
		}
		x := &ext{Op: opUnstate, Batch: s.newBatch(), Tenant: sc.TenantID, Agent: sc.AgentID, At: s.now(), Kind: kind, DocID: id, Version: version}
		return []line{metaLine(x)}, nil
	}, nil)
	return ok, err
}

// ListState implements mnemo.StateStore.
func (s *Store) ListState(ctx context.Context, sc mnemo.Scope, kind string) ([]mnemo.StateDoc, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return mem.ListState(ctx, sc, kind)
}

// IdleState implements mnemo.StateStore.
func (s *Store) IdleState(ctx context.Context, kind string, before time.Time, n int) ([]mnemo.StateDoc, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return mem.IdleState(ctx, kind, before, n)
}

// VectorSpace implements mnemo.VectorStore.
func (s *Store) VectorSpace(ctx context.Context) (mnemo.VectorSpace, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return mnemo.VectorSpace{}, err
	}
	return mem.VectorSpace(ctx)
}

// SetVectorSpace implements mnemo.VectorStore.
func (s *Store) SetVectorSpace(ctx context.Context, vs mnemo.VectorSpace, reset bool) error {
	return s.mutate(ctx, true, func(mem *inmem.Store) ([]line, error) {
		cur, _ := mem.VectorSpace(ctx)
		if err := mem.SetVectorSpace(ctx, vs, reset); err != nil || cur == vs && !reset {
			return nil, err
		}
		x := &ext{Op: opSpace, Batch: s.newBatch(), At: s.now(), Space: &vs, Reset: reset}
		return []line{metaLine(x)}, nil
	}, nil)
}

// Unembedded implements mnemo.VectorStore.
func (s *Store) Unembedded(ctx context.Context, n int) ([]mnemo.EmbedJob, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return mem.Unembedded(ctx, n)
}

// CountUnembedded implements mnemo.VectorStore.
func (s *Store) CountUnembedded(ctx context.Context) (int, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return 0, err
	}
	return mem.CountUnembedded(ctx)
}

// SetVectors implements mnemo.VectorStore.
func (s *Store) SetVectors(ctx context.Context, jobs []mnemo.EmbedJob, vecs [][]float32) error {
	if len(jobs) == 0 && len(vecs) == 0 {
		return nil
	}
	return s.mutate(ctx, true, func(mem *inmem.Store) ([]line, error) {
		if err := mem.SetVectors(ctx, jobs, vecs); err != nil {
			return nil, err
		}
		x := &ext{Op: opVectors, Batch: s.newBatch(), At: s.now(), Jobs: jobs}
		for _, v := range vecs {
			x.Vectors = append(x.Vectors, encodeVector(v))
		}
		return []line{metaLine(x)}, nil
	}, nil)
}

// SearchVectors implements mnemo.VectorStore.
func (s *Store) SearchVectors(ctx context.Context, sc mnemo.Scope, q mnemo.VectorQuery) ([]mnemo.VectorHit, error) {
	mem, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return mem.SearchVectors(ctx, sc, q)
}
