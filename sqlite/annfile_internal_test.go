package sqlite

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/vector"
)

// TestANNFileHeader: a saved index starts at a multiple of annAlign bytes,
// so that vector.Read can map it (issue 20: reopen at 1M); files of the
// first header version, unpadded, still load; a padding that is not zeros
// does not.
func TestANNFileHeader(t *testing.T) {
	vs := mnemo.VectorSpace{Model: "test/rand-16", Dimension: 16}
	ix := vector.New(vs.Dimension, vector.Options{M: 8, ExactBelow: 1})
	rng := rand.New(rand.NewPCG(1, 2))
	for id := range uint64(300) {
		v := make([]float32, vs.Dimension)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		if err := ix.Add(id+1, v); err != nil {
			t.Fatal(err)
		}
	}
	saved := &annIndex{scope: 1}
	saved.ix.Store(ix)
	saved.rev.Store(12345)
	path := filepath.Join(t.TempDir(), "1.ann")
	if err := saved.save(path, vs); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(good, []byte("mnemovec"))
	if at <= 0 || at%annAlign != 0 {
		t.Fatalf("the index starts at byte %d of the file, not at a multiple of %d", at, annAlign)
	}

	// The same header, version 1: no padding.
	v1 := []byte(annMagicV1)
	v1 = binary.AppendUvarint(v1, uint64(len(vs.Model)))
	v1 = append(v1, vs.Model...)
	v1 = binary.AppendUvarint(v1, uint64(vs.Dimension))
	v1 = binary.AppendUvarint(v1, 12345)
	v1 = binary.LittleEndian.AppendUint32(v1, crc32.ChecksumIEEE(v1))
	v1 = append(v1, good[at:]...)

	badPad := bytes.Clone(good)
	badPad[at-1] = 1

	for _, tt := range []struct {
		name string
		file []byte
		ok   bool
		old  bool
	}{
		{"version 2", good, true, false},
		{"version 1", v1, true, true},
		{"padding not zeros", badPad, false, false},
		{"padding cut", append(bytes.Clone(good[:at-1]), good[at:]...), false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "1.ann")
			if err := os.WriteFile(p, tt.file, 0o600); err != nil {
				t.Fatal(err)
			}
			x := &annIndex{scope: 1}
			old, err := x.load(p, vs, func(int) int { return 64 })
			if (err == nil) != tt.ok || old != tt.old {
				t.Fatalf("load: %t, %v; want old %t, ok %t", old, err, tt.old, tt.ok)
			}
			if tt.ok && (x.ix.Load().Len() != 300 || x.rev.Load() != 12345) {
				t.Fatalf("loaded %d vectors up to rev %d, want 300 up to 12345", x.ix.Load().Len(), x.rev.Load())
			}
		})
	}
}

// TestANNFileUpgrade: a file of the first header version is written again,
// in the current one, once loaded.
func TestANNFileUpgrade(t *testing.T) {
	vs := mnemo.VectorSpace{Model: "test/rand-16", Dimension: 16}
	ix := vector.New(vs.Dimension, vector.Options{})
	if err := ix.Add(1, make16(1)); err != nil {
		t.Fatal(err)
	}
	a := newANNIndexes(filepath.Join(t.TempDir(), "mnemo.db"), 0, slog.Default())
	var body bytes.Buffer
	if _, err := ix.WriteTo(&body); err != nil {
		t.Fatal(err)
	}
	v1 := []byte(annMagicV1)
	v1 = binary.AppendUvarint(v1, uint64(len(vs.Model)))
	v1 = append(v1, vs.Model...)
	v1 = binary.AppendUvarint(v1, uint64(vs.Dimension))
	v1 = binary.AppendUvarint(v1, 7)
	v1 = binary.LittleEndian.AppendUint32(v1, crc32.ChecksumIEEE(v1))
	v1 = append(v1, body.Bytes()...)
	os.MkdirAll(a.dir, 0o755)
	if err := os.WriteFile(a.path(1), v1, 0o600); err != nil {
		t.Fatal(err)
	}
	x := a.entry(1, vs)
	x.mu.Lock()
	a.ensureLoaded(x, vs)
	x.mu.Unlock()
	a.saving.Wait()
	b, err := os.ReadFile(a.path(1))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(annMagic)) || x.ix.Load().Len() != 1 || x.rev.Load() != 7 {
		t.Fatalf("after loading a version 1 file: file starts %q, %d vectors up to rev %d", b[:len(annMagic)], x.ix.Load().Len(), x.rev.Load())
	}
}

func make16(seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 3))
	v := make([]float32, 16)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// failAfter is a writer that takes n bytes, then fails.
type failAfter struct {
	n   int
	err error
}

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	k := w.n
	w.n = 0
	return k, w.err
}

// TestWriteANNFails: a write of the header or of the index that fails is
// the save's error, so that a file cut short is never renamed over a good
// one.
func TestWriteANNFails(t *testing.T) {
	vs := mnemo.VectorSpace{Model: "test/rand-16", Dimension: 16}
	ix := vector.New(vs.Dimension, vector.Options{})
	for id := range uint64(50) {
		if err := ix.Add(id+1, make16(id+1)); err != nil {
			t.Fatal(err)
		}
	}
	header := annHeader(vs, 7)
	var whole bytes.Buffer
	if err := writeANN(&whole, header, ix); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, len(header) - 1, len(header), len(header) + 100, whole.Len() - 1} {
		full := errors.New("no space left on device")
		if err := writeANN(&failAfter{n: n, err: full}, header, ix); !errors.Is(err, full) {
			t.Errorf("a writer that fails after %d of %d bytes: writeANN = %v, want its error", n, whole.Len(), err)
		}
	}
}
