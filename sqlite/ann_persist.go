package sqlite

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/vector"
)

// annSaveEvery is the fewest changes since the last save that make a
// scope's index worth writing again in the background (besides on Close);
// a larger index waits for more (saveDue).
const annSaveEvery = 20000

// saveDue reports whether an index of n vectors, unsaved changes since its
// file was written, is worth writing again. Every 20,000 changes, a build
// of 1M vectors would rewrite its file 50 times, each write holding the
// index from the indexer (PERF-12); once a quarter of the index has
// changed, the writes come to about five times the final file, and a crash
// costs the indexer at most a quarter of the index to insert again from the
// table.
//
// A bulk build writes its index again only once it has doubled: quarter
// steps would write several times the final file, each write holding the
// build (PERF-12), where doubling writes about the final file's size before
// the last; a crash then costs at most half of a build, which the table
// restarts.
func saveDue(n, unsaved int, bulk bool) bool {
	if bulk {
		return unsaved >= max(annSaveEvery, n/2)
	}
	return unsaved >= max(annSaveEvery, n/4)
}

// preloadBytes is the smallest index file preload loads: a smaller one
// (under about 20,000 vectors at 612 dimensions) loads on its scope's first
// search in tens of milliseconds, and a store of many small, idle scopes
// keeps them out of memory until they are searched.
const preloadBytes = 32 << 20

// preload loads, in the background, every scope's index file of at least
// preloadFrom bytes, as the first search of each would
// (Options.PreloadVectors). A search that comes meanwhile waits on the
// scope's mu for the load under way. then, if not nil, is called once the
// loads are done.
func (a *annIndexes) preload(db *DB, then func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || a.dir == "" {
		if then != nil {
			then()
		}
		return
	}
	a.loading.Go(func() {
		if then != nil {
			defer then()
		}
		defer panics.Recover(a.logger, "loading the vector indexes", nil)
		vs, _, err := vectorSpace(context.Background(), db.reader)
		if err != nil || vs.Model == "" {
			return
		}
		files, _ := os.ReadDir(a.dir) // none yet: nothing to load
		for _, f := range files {
			name, ok := strings.CutSuffix(f.Name(), ".ann")
			scope, err := strconv.ParseInt(name, 10, 64)
			if !ok || err != nil || scope <= 0 {
				continue // a temporary file of a save
			}
			if fi, err := f.Info(); err != nil || fi.Size() < a.preloadFrom {
				continue
			}
			a.mu.Lock()
			closed := a.closed
			a.mu.Unlock()
			if closed {
				return
			}
			x := a.entry(scope, vs)
			x.mu.Lock()
			if !x.dropped {
				a.ensureLoaded(x, vs)
			}
			x.mu.Unlock()
		}
		a.registerUnbuilt(db, vs)
		// The indexer catches up now, not on the first search, and then
		// tells whether it builds an index in bulk, which the in-memory
		// full-text index, started next, waits for (awaitBulk).
		a.mu.Lock()
		if !a.closed {
			a.firstLook = make(chan struct{})
		}
		a.mu.Unlock()
		a.wake(db)
	})
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
		defer panics.Recover(a.logger, "saving a vector index", nil)
		x.mu.Lock()
		defer x.mu.Unlock()
		if !x.dropped {
			x.save(a.path(x.scope), vs) // best effort: the table is the truth
		}
	}()
}

// close stops the indexer, waits for background saves and writes every
// index with unsaved changes. Vectors the indexer had not inserted yet are
// inserted on the next run from the table.
func (a *annIndexes) close() error {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.loading.Wait() // a preload stops before its next file
	a.mu.Lock()
	if a.started {
		a.stop()
		a.mu.Unlock()
		<-a.done
		a.mu.Lock()
	}
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
		if x.ix.Load() != nil && x.unsaved > 0 && !x.dropped && a.dir != "" {
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
// Version 2 pads the header with zeros to a multiple of annAlign bytes, so
// that the index after it can be mapped in place (vector.Read; PERF-13);
// version 1 files are still read, by copying.
const (
	annMagic   = "mnemo-ann-2\n"
	annMagicV1 = "mnemo-ann-1\n"
	annAlign   = 64
)

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
	// Writes of 4 MB at multiples of 4 MB leave the file in the page cache
	// in 2 MB folios, which the next open's mapping of it maps with huge
	// pages (vector.Read; searches read the index at random, and huge
	// pages make that cheaper; PERF-2).
	w := bufio.NewWriterSize(f, 4<<20)
	err = writeANN(w, annHeader(vs, x.rev.Load()), x.ix.Load())
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

// writeANN writes an index file's header, then the index, to w, and
// returns the first error: a file cut short must never be renamed over a
// good one.
func writeANN(w io.Writer, header []byte, ix io.WriterTo) error {
	if _, err := w.Write(header); err != nil {
		return err
	}
	_, err := ix.WriteTo(w)
	return err
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
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return append(b, make([]byte, -len(b)&(annAlign-1))...)
}

// errStale marks an index file of another vector space.
var errStale = errors.New("index file is of another model")

// load reads the index file at path, if it is of space vs, and reports
// whether the file's header is of the first version. The caller holds x.mu.
func (x *annIndex) load(path string, vs mnemo.VectorSpace, effort func(n int) int) (old bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	// The header is read a byte at a time, so that the file is positioned
	// at the index itself: vector.Read loads from an *os.File in bulk.
	r := fileBytes{f}
	// The header's length depends on the rev; read field by field.
	magic := make([]byte, len(annMagic))
	if _, err := io.ReadFull(r, magic); err != nil || (string(magic) != annMagic && string(magic) != annMagicV1) {
		return false, fmt.Errorf("%s: not an index file", path)
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
		return false, fmt.Errorf("%s: bad header", path)
	}
	model := make([]byte, n)
	if _, err := io.ReadFull(r, model); err != nil {
		return false, fmt.Errorf("%s: bad header", path)
	}
	hdr = append(hdr, model...)
	dim, err1 := readUvarint()
	rev, err2 := readUvarint()
	var sum [4]byte
	_, err3 := io.ReadFull(r, sum[:])
	if err := errors.Join(err1, err2, err3); err != nil {
		return false, fmt.Errorf("%s: bad header", path)
	}
	if binary.LittleEndian.Uint32(sum[:]) != crc32.ChecksumIEEE(hdr) {
		return false, fmt.Errorf("%s: header checksum mismatch", path)
	}
	if string(magic) == annMagic {
		pad := make([]byte, -(len(hdr)+len(sum))&(annAlign-1))
		if _, err := io.ReadFull(r, pad); err != nil || slices.ContainsFunc(pad, func(c byte) bool { return c != 0 }) {
			return false, fmt.Errorf("%s: bad header", path)
		}
	}
	if string(model) != vs.Model || int(dim) != vs.Dimension {
		return false, fmt.Errorf("%s: %w", path, errStale)
	}
	ix, err := vector.Read(f)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	ix.SetEfSearch(effort(ix.Len())) // the file keeps the effort it was built with; use today's
	if ix.Dim() != vs.Dimension {
		return false, fmt.Errorf("%s: %w", path, errStale)
	}
	x.rev.Store(int64(rev))
	x.ix.Store(ix)
	x.unsaved = 0
	return string(magic) == annMagicV1, nil
}

// fileBytes reads a file one byte at a time, for the few bytes of a header.
type fileBytes struct{ f *os.File }

func (b fileBytes) Read(p []byte) (int, error) { return b.f.Read(p) }

func (b fileBytes) ReadByte() (byte, error) {
	var c [1]byte
	_, err := io.ReadFull(b.f, c[:])
	return c[0], err
}
