package sqlite

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/safe"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
	"github.com/mnemo-dev/mnemo/vector"
)

// The ANN index of each scope is kept in memory and persisted beside the
// database, in <db>-vectors/<scope number>.ann, so that a large store opens
// without re-indexing. The memories table stays the truth: a file records
// the highest vector_rev it holds, and on open the index catches up with
// the vectors stored since; a missing, torn or foreign file is rebuilt from
// the table. Deletions that the index missed (another process forgot a
// memory) are harmless: every neighbour is checked against the table before
// it is returned.

// annOptions shape the ANN indexes. Memories on one topic are many
// near-equal vectors (bench/scale), and finding their true ten nearest
// takes a denser graph and a wider search than the vector package's
// defaults, which are tuned on well-separated clusters: at 100k generated
// memories, M 16 / ef 128 found 0.70 of the true ten, M 32 / ef 512 0.94
// and M 32 / ef 1024 0.97, within the latency target (docs/BENCHMARKS.md).
// Options.SearchEffort overrides EfSearch.
var annOptions = vector.Options{M: 32, EfConstruction: 200, EfSearch: 1024}

// annSaveEvery is how many changes since the last save make a scope's index
// worth writing again in the background (besides on Close).
const annSaveEvery = 20000

// annIndexes holds the loaded indexes of a DB.
type annIndexes struct {
	dir  string // where index files live; "" keeps indexes in memory only
	opts vector.Options

	mu     sync.Mutex
	space  mnemo.VectorSpace
	scopes map[int64]*annIndex // by scope number
	saving sync.WaitGroup
	closed bool
	log    *slog.Logger // for a panic in a background save
}

// annIndex is one scope's index.
type annIndex struct {
	scope int64
	ix    *vector.Index

	// mu serialises catching up and saving; searches do not take it.
	mu      sync.Mutex
	rev     int64 // the highest vector_rev the index holds
	unsaved int   // changes since the file was written
}

func newANNIndexes(dbPath string, efSearch int) *annIndexes {
	opts := annOptions
	if efSearch > 0 {
		opts.EfSearch = efSearch
	}
	return &annIndexes{dir: dbPath + "-vectors", opts: opts, scopes: make(map[int64]*annIndex)}
}

// open returns the index of the scope whose seqs are sp, loading or building
// it on first use and catching it up with the table. It returns nil when the
// store has no vector space yet.
func (a *annIndexes) open(ctx context.Context, db *DB, sp span) (*annIndex, error) {
	scope := sp.lo >> scopeBits
	vs, rev, err := vectorSpace(ctx, db.reader)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if vs.Model == "" {
		return nil, nil
	}
	a.mu.Lock()
	if a.space != vs {
		// Another process reindexed: every index is of the old space.
		a.space = vs
		a.scopes = make(map[int64]*annIndex)
	}
	x := a.scopes[scope]
	if x == nil {
		x = &annIndex{scope: scope}
		a.scopes[scope] = x
	}
	a.mu.Unlock()

	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ix == nil {
		if err := x.load(a.path(scope), vs, a.opts.EfSearch); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				db.logger.Warn("vector index unreadable, rebuilding it from the database", "scope", scope, "err", err)
			}
			x.ix, x.rev = vector.New(vs.Dimension, a.opts), 0
		}
	}
	if rev > x.rev {
		n, err := x.catchUp(ctx, db, sp)
		if err != nil {
			return nil, err
		}
		x.unsaved += n
		if x.unsaved >= annSaveEvery {
			a.saveLater(x, vs)
		}
	}
	return x, nil
}

// catchUpBatch is how many vectors catching up inserts at once: the index
// inserts a batch on all cores.
const catchUpBatch = 4096

// catchUp adds the scope's vectors stored after x.rev, and returns how many.
func (x *annIndex) catchUp(ctx context.Context, db *DB, sp span) (int, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT seq, embedding, vector_rev FROM memories
		WHERE vector_rev > ? AND seq >= ? AND seq < ? AND tombstone = 0 ORDER BY vector_rev`, x.rev, sp.lo, sp.hi)
	if err != nil {
		return 0, fmt.Errorf("sqlite: vector index: %w", err)
	}
	defer rows.Close()
	var (
		n    int
		ids  []uint64
		vecs [][]float32
		rev  = x.rev
	)
	flush := func() error {
		if err := x.ix.AddBatch(ids, vecs); err != nil {
			return fmt.Errorf("sqlite: vector index: %w", err)
		}
		x.rev = rev // only what the index holds
		ids, vecs = ids[:0], vecs[:0]
		return nil
	}
	for rows.Next() {
		var (
			seq, r int64
			blob   []byte
		)
		if err := rows.Scan(&seq, &blob, &r); err != nil {
			return n, fmt.Errorf("sqlite: vector index: %w", err)
		}
		rev = max(rev, r)
		n++
		if v := sqlrow.DecodeEmbedding(blob); len(v) == x.ix.Dim() && hasDirection(v) {
			ids, vecs = append(ids, uint64(seq)), append(vecs, v)
		} else {
			// A zero vector (a text of stop words only) has no direction:
			// the memory is found lexically or not at all.
			x.ix.Delete(uint64(seq))
		}
		if len(ids) == catchUpBatch {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("sqlite: vector index: %w", err)
	}
	return n, flush()
}

// hasDirection reports whether v can be normalised.
func hasDirection(v []float32) bool {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	return s > 0 && !math.IsInf(s, 0) && !math.IsNaN(s)
}

// forget drops seqs from the scope's index, if it is loaded: their vectors
// were deleted or replaced by none.
func (a *annIndexes) forget(sp span, seqs []int64) {
	if len(seqs) == 0 {
		return
	}
	a.mu.Lock()
	x := a.scopes[sp.lo>>scopeBits]
	a.mu.Unlock()
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ix == nil {
		return
	}
	for _, s := range seqs {
		if x.ix.Delete(uint64(s)) {
			x.unsaved++
		}
	}
}

// drop forgets the scope's index and its file: the scope was cleared.
func (a *annIndexes) drop(sp span) {
	scope := sp.lo >> scopeBits
	a.mu.Lock()
	delete(a.scopes, scope)
	a.mu.Unlock()
	if a.dir != "" {
		os.Remove(a.path(scope))
	}
}

// reset forgets every index: the vector space changed.
func (a *annIndexes) reset(vs mnemo.VectorSpace) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.space = vs
	a.scopes = make(map[int64]*annIndex)
	if a.dir != "" {
		os.RemoveAll(a.dir)
	}
}

// indexed returns how many vectors the scope's index holds, or -1 when it
// is not loaded.
func (a *annIndexes) indexed(sp span) int {
	a.mu.Lock()
	x := a.scopes[sp.lo>>scopeBits]
	a.mu.Unlock()
	if x == nil {
		return -1
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ix == nil {
		return -1
	}
	return x.ix.Len()
}

func (a *annIndexes) path(scope int64) string {
	return filepath.Join(a.dir, strconv.FormatInt(scope, 10)+".ann")
}

// saveLater writes x in the background. The caller holds x.mu.
func (a *annIndexes) saveLater(x *annIndex, vs mnemo.VectorSpace) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || a.dir == "" {
		return
	}
	x.unsaved = 0 // a failed save is retried after as many changes again
	a.saving.Add(1)
	go func() {
		defer a.saving.Done()
		defer safe.Recover(a.log, "saving a vector index", nil)
		x.mu.Lock()
		defer x.mu.Unlock()
		x.save(a.path(x.scope), vs) // best effort: the table is the truth
	}()
}

// close waits for background saves and writes every index with unsaved
// changes.
func (a *annIndexes) close() error {
	a.mu.Lock()
	a.closed = true
	scopes := make([]*annIndex, 0, len(a.scopes))
	for _, x := range a.scopes {
		scopes = append(scopes, x)
	}
	vs := a.space
	a.mu.Unlock()
	a.saving.Wait()
	var errs []error
	for _, x := range scopes {
		x.mu.Lock()
		if x.ix != nil && x.unsaved > 0 && a.dir != "" {
			if err := x.save(a.path(x.scope), vs); err != nil {
				errs = append(errs, err)
			} else {
				x.unsaved = 0
			}
		}
		x.mu.Unlock()
	}
	return errors.Join(errs...)
}

// annMagic starts every index file; the number is the header's version.
const annMagic = "mnemo-ann-1\n"

// save writes x to path atomically: a temporary file, synced, then renamed,
// so that a crash leaves the old file or the new one, never half of one.
// The caller holds x.mu.
func (x *annIndex) save(path string, vs mnemo.VectorSpace) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("sqlite: save vector index: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".ann-*")
	if err != nil {
		return fmt.Errorf("sqlite: save vector index: %w", err)
	}
	defer os.Remove(f.Name()) // after a successful rename, there is nothing to remove
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := w.Write(annHeader(vs, x.rev)); err == nil {
		_, err = x.ix.WriteTo(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("sqlite: save vector index: %w", err)
	}
	return nil
}

// annHeader is the magic, then the model, dimension and rev, then a CRC-32
// of all that: a header that does not check out is not trusted, since a
// wrong rev would hide vectors from the catch-up.
func annHeader(vs mnemo.VectorSpace, rev int64) []byte {
	b := []byte(annMagic)
	b = binary.AppendUvarint(b, uint64(len(vs.Model)))
	b = append(b, vs.Model...)
	b = binary.AppendUvarint(b, uint64(vs.Dimension))
	b = binary.AppendUvarint(b, uint64(rev))
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// errStale marks an index file of another vector space.
var errStale = errors.New("index file is of another model")

// load reads the index file at path, if it is of space vs. The caller holds
// x.mu.
func (x *annIndex) load(path string, vs mnemo.VectorSpace, efSearch int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// The header is read a byte at a time, so that the file is positioned
	// at the index itself: vector.Read loads from an *os.File in bulk.
	r := fileBytes{f}
	// The header's length depends on the rev; read field by field.
	magic := make([]byte, len(annMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != annMagic {
		return fmt.Errorf("%s: not an index file", path)
	}
	var hdr []byte
	hdr = append(hdr, magic...)
	readUvarint := func() (uint64, error) {
		v, err := binary.ReadUvarint(r)
		hdr = binary.AppendUvarint(hdr, v)
		return v, err
	}
	n, err := readUvarint()
	if err != nil || n > 1<<10 {
		return fmt.Errorf("%s: bad header", path)
	}
	model := make([]byte, n)
	if _, err := io.ReadFull(r, model); err != nil {
		return fmt.Errorf("%s: bad header", path)
	}
	hdr = append(hdr, model...)
	dim, err1 := readUvarint()
	rev, err2 := readUvarint()
	var sum [4]byte
	_, err3 := io.ReadFull(r, sum[:])
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("%s: bad header", path)
	}
	if binary.LittleEndian.Uint32(sum[:]) != crc32.ChecksumIEEE(hdr) {
		return fmt.Errorf("%s: header checksum mismatch", path)
	}
	if string(model) != vs.Model || int(dim) != vs.Dimension {
		return fmt.Errorf("%s: %w", path, errStale)
	}
	ix, err := vector.Read(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ix.SetEfSearch(efSearch) // the file keeps the effort it was built with; use today's
	if ix.Dim() != vs.Dimension {
		return fmt.Errorf("%s: %w", path, errStale)
	}
	x.ix, x.rev, x.unsaved = ix, int64(rev), 0
	return nil
}

// fileBytes reads a file one byte at a time, for the few bytes of a header.
type fileBytes struct{ f *os.File }

func (b fileBytes) Read(p []byte) (int, error) { return b.f.Read(p) }

func (b fileBytes) ReadByte() (byte, error) {
	var c [1]byte
	_, err := io.ReadFull(b.f, c[:])
	return c[0], err
}
