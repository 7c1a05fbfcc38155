package vector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// persisted returns an index with live, dead and freed nodes, and its bytes.
func persisted(t testing.TB, n, dim int) (*Index, []byte) {
	t.Helper()
	x := build(t, dataset(n, dim, 21), Options{ExactBelow: 1, M: 6, Seed: 3})
	for i := 0; i < n; i += 5 {
		x.Delete(uint64(i)) // vacuums along the way
	}
	x.Delete(1) // and leaves some dead
	x.Delete(2)
	var buf bytes.Buffer
	m, err := x.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if m != int64(buf.Len()) {
		t.Fatalf("WriteTo reported %d bytes, wrote %d", m, buf.Len())
	}
	return x, buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name   string
		n, dim int
	}{
		{"empty", 0, 4},
		{"one", 1, 4},
		{"small", 300, 8},
		{"d100", small(3000), 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var x *Index
			var b []byte
			if tt.n == 0 {
				x = New(tt.dim, Options{})
				var buf bytes.Buffer
				if _, err := x.WriteTo(&buf); err != nil {
					t.Fatal(err)
				}
				b = buf.Bytes()
			} else {
				x, b = persisted(t, tt.n, tt.dim)
			}
			// Read at offsets (a bytes.Reader, as a file), after other
			// bytes, and leaving the reader after the index.
			r := bytes.NewReader(append(append([]byte("head"), b...), "tail"...))
			r.Seek(4, io.SeekStart)
			y, err := Read(r)
			if err != nil {
				t.Fatal(err)
			}
			if r.Len() != len("tail") {
				t.Fatalf("Read left %d bytes, want the %d after the index", r.Len(), len("tail"))
			}
			// Read through, of a known size (a bytes.Buffer) and not.
			for _, r := range []io.Reader{bytes.NewBuffer(bytes.Clone(b)), struct{ io.Reader }{bytes.NewReader(b)}} {
				z, err := Read(r)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(z.codes, y.codes) || !reflect.DeepEqual(z.links0, y.links0) ||
					!reflect.DeepEqual(z.ids, y.ids) || !reflect.DeepEqual(z.upper, y.upper) || !reflect.DeepEqual(z.byID, y.byID) {
					t.Fatalf("reading through a %T gave a different index", r)
				}
			}
			if y.Len() != x.Len() || y.Dim() != x.Dim() || y.Options().M != x.Options().M || y.dead != x.dead {
				t.Fatalf("reloaded Len %d Dim %d M %d dead %d; want %d %d %d %d",
					y.Len(), y.Dim(), y.Options().M, y.dead, x.Len(), x.Dim(), x.Options().M, x.dead)
			}
			for _, q := range queries(20, max(tt.n, 1), tt.dim, 22) {
				for _, accept := range []func(uint64) bool{nil, func(id uint64) bool { return id%3 == 0 }} {
					if a, b := x.Search(q, 10, accept), y.Search(q, 10, accept); !reflect.DeepEqual(a, b) {
						t.Fatalf("Search differs after reload:\n%v\n%v", a, b)
					}
				}
			}
			var again bytes.Buffer
			if _, err := y.WriteTo(&again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), b) {
				t.Fatal("rewriting the reloaded index changed its bytes")
			}
			// Both go on identically.
			if tt.n > 0 {
				v := queries(1, tt.n, tt.dim, 23)[0]
				if err := x.Add(1<<40, v); err != nil {
					t.Fatal(err)
				}
				if err := y.Add(1<<40, v); err != nil {
					t.Fatal(err)
				}
				if x.levels[x.byID[1<<40]] != y.levels[y.byID[1<<40]] {
					t.Fatal("level generator state was not restored")
				}
			}
		})
	}
}

func TestReadCorrupt(t *testing.T) {
	_, good := persisted(t, 200, 8)
	check := func(name string, b []byte) {
		t.Helper()
		// A bytes.Reader reads at offsets, a bytes.Buffer tells its size,
		// a plain io.Reader neither.
		for _, r := range []io.Reader{bytes.NewReader(b), bytes.NewBuffer(bytes.Clone(b)), struct{ io.Reader }{bytes.NewReader(b)}} {
			x, err := Read(r)
			if !errors.Is(err, ErrCorrupt) || x != nil {
				t.Fatalf("%s: Read = %v, %v; want ErrCorrupt", name, x, err)
			}
		}
	}
	// Every cut within the header, then every few bytes (every one
	// without the race detector, which slows each Read tenfold).
	step := 1
	if raceEnabled {
		step = 7
	}
	for n := 0; n < len(good); n++ {
		if n > headerSize && n%step != 0 {
			continue
		}
		check("truncated", good[:n])
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range small(2000) {
		b := bytes.Clone(good)
		bit := rng.IntN(len(b) * 8)
		b[bit/8] ^= 1 << (bit % 8)
		check("bit flip", b)
	}
	b := bytes.Clone(good)
	binary.LittleEndian.PutUint32(b[8:], version+1)
	check("version", b)
}

// TestReadValidates damages the body and then fixes the checksum, as a
// buggy writer might: Read must reject the structure or return an index
// that searches without panicking.
func TestReadValidates(t *testing.T) {
	_, good := persisted(t, 200, 8)
	q := queries(3, 200, 8, 1)
	rng := rand.New(rand.NewPCG(3, 4))
	rejected := 0
	for range small(3000) {
		b := bytes.Clone(good)
		for range 1 + rng.IntN(3) {
			i := headerSize + rng.IntN(len(b)-headerSize-4)
			if rng.IntN(4) == 0 {
				i = 8 + rng.IntN(headerSize-8)
			}
			b[i] = byte(rng.Uint32())
		}
		body := b[:len(b)-4]
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(body, castagnoli))
		x, err := Read(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Read error %v does not wrap ErrCorrupt", err)
			}
			rejected++
			continue
		}
		for _, v := range q {
			x.Search(v, 5, nil)
			x.Search(v, 5, func(id uint64) bool { return id%2 == 0 })
			x.SearchIDs(v, 5, []uint64{1, 3, 7})
		}
		x.Add(12345, q[0])
		x.Delete(3)
	}
	if rejected == 0 {
		t.Fatal("no damage was detected")
	}
}

func TestWriteError(t *testing.T) {
	x, good := persisted(t, 200, 8)
	for _, limit := range []int{0, 10, len(good) / 2, len(good) - 1} {
		if _, err := x.WriteTo(&limitWriter{limit}); err == nil {
			t.Errorf("WriteTo succeeded with a writer failing after %d bytes", limit)
		}
	}
}

type limitWriter struct{ left int }

func (w *limitWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, io.ErrShortWrite
	}
	w.left -= len(p)
	return len(p), nil
}

func FuzzRead(f *testing.F) {
	_, good := persisted(f, 60, 4)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[:headerSize])
	f.Add([]byte(magic))
	q := []float32{1, 0.5, -0.25, 2}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := Read(struct{ io.Reader }{bytes.NewReader(b)}); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Read error %v does not wrap ErrCorrupt", err)
		}
		x, err := Read(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Read error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if x.Dim() == len(q) {
			x.Search(q, 3, nil)
		}
	})
}

// TestReadFilePieces reads from a file an index larger than the pieces Read
// checksums apart on several cores, whole and damaged in each section.
func TestReadFilePieces(t *testing.T) {
	x := synthetic(3000, 612, 32, 7) // codes of 1.8 MB: pieces of 1 MB and less
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	read := func(b []byte) (*Index, error) {
		path := filepath.Join(t.TempDir(), "x.vec")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return Read(f)
	}
	y, err := read(good)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if _, err := y.WriteTo(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), good) || y.Len() != x.Len() || y.dead != x.dead {
		t.Fatal("the index read from a file differs")
	}
	n, dim := 3000, 612
	codes := headerSize + n*(8+4+4)
	links := codes + 2*n*dim + 2*n
	for _, tt := range []struct {
		name string
		at   int
	}{
		{"first piece of the codes", codes + 10},
		{"second piece of the codes", codes + 1<<20 + 5},
		{"the fine codes", codes + n*dim + 1<<20 + 3},
		{"the states", codes + 2*n*dim + n + 17},
		{"the links", links + 4*1000},
		{"the upper links", len(good) - 9},
		{"the checksum", len(good) - 2},
	} {
		b := bytes.Clone(good)
		b[tt.at] ^= 0x10
		if y, err := read(b); !errors.Is(err, ErrCorrupt) || y != nil {
			t.Errorf("%s damaged: Read gave an index: %t, %v; want ErrCorrupt", tt.name, y != nil, err)
		}
	}
	for _, cut := range []int{headerSize + 1, codes + 1<<20, len(good) - 1} {
		if y, err := read(good[:cut]); !errors.Is(err, ErrCorrupt) || y != nil {
			t.Errorf("cut at %d: Read gave an index: %t, %v; want ErrCorrupt", cut, y != nil, err)
		}
	}
}
