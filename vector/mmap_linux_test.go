package vector

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// isMapped reports whether path is mapped into this process.
func isMapped(t *testing.T, path string) bool {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(maps), path)
}

// sameIndex fails unless x and y hold the same graph and vectors.
func sameIndex(t *testing.T, x, y *Index) {
	t.Helper()
	if !reflect.DeepEqual(x.ids, y.ids) || !reflect.DeepEqual(x.scales, y.scales) ||
		!reflect.DeepEqual(x.codes, y.codes) || !reflect.DeepEqual(x.fine, y.fine) ||
		!reflect.DeepEqual(x.levels, y.levels) || !reflect.DeepEqual(x.state, y.state) ||
		!reflect.DeepEqual(x.links0, y.links0) || !reflect.DeepEqual(x.upOff, y.upOff) ||
		!reflect.DeepEqual(x.upper, y.upper) || !reflect.DeepEqual(x.byID, y.byID) ||
		x.entry != y.entry || x.top != y.top || x.live != y.live || x.dead != y.dead {
		t.Fatal("the indexes differ")
	}
}

// TestReadMapped reads index files in place (PERF-13) and
// by copying, and checks that both give the same index, that changes to a
// mapped index never reach its file, that the file may be replaced while
// mapped, and that the mapping goes with the index.
func TestReadMapped(t *testing.T) {
	if raceEnabled {
		t.Skip("checks the file format, not concurrency: runs without -race (Makefile FULLSIZE), where it costs a tenth")
	}
	// Two chunks, the second partial, and over mapFrom.
	const n, dim = chunkNodes + 1000, 64
	x := synthetic(n, dim, 32, 9)
	encode := func(ver int) []byte {
		var buf bytes.Buffer
		if _, err := x.writeTo(&buf, ver); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	v1, v2 := encode(1), encode(version)
	if len(v2) < mapFrom {
		t.Fatalf("the file is %d bytes, under mapFrom", len(v2))
	}
	want, err := Read(bytes.NewReader(v2))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		file   []byte
		at     int // where the index starts in the file
		mapped bool
	}{
		{"version 2", v2, 0, true},
		{"version 2 after an aligned header", v2, 128, true},
		{"version 2 at an odd offset", v2, 5, false},
		{"version 1", v1, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.vec")
			file := append(make([]byte, tt.at), tt.file...)
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			f.Seek(int64(tt.at), io.SeekStart)
			y, err := Read(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if got := isMapped(t, path); got != tt.mapped {
				t.Fatalf("mapped %t, want %t", got, tt.mapped)
			}
			sameIndex(t, want, y)
			var again bytes.Buffer
			if _, err := y.WriteTo(&again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), v2) {
				t.Fatal("rewriting the index read changed its bytes")
			}

			// Replace the file, as a save does, then change the index:
			// nodes in both chunks and new ones, deletes, a vacuum.
			if err := os.WriteFile(path+".new", []byte("other"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".new", path); err != nil {
				t.Fatal(err)
			}
			for _, z := range []*Index{want, y} {
				for i := range chunkNodes {
					if i%7 == 0 {
						z.Delete(uint64(i)*7 + 1)
					}
				}
				vs := queries(200, n, dim, 10)
				ids := make([]uint64, len(vs))
				for i := range ids {
					ids[i] = uint64(1<<40 + i)
				}
				z.opts.Workers = 1
				if err := z.AddBatch(ids, vs); err != nil {
					t.Fatal(err)
				}
			}
			sameIndex(t, want, y)
			for _, q := range queries(10, n, dim, 11) {
				if a, b := want.Search(q, 10, nil), y.Search(q, 10, nil); !reflect.DeepEqual(a, b) {
					t.Fatalf("searches differ:\n%v\n%v", a, b)
				}
			}
			want, _ = Read(bytes.NewReader(v2)) // for the next case

			// Dropped, the index takes its mapping with it.
			y = nil
			for range 50 {
				if !isMapped(t, path) {
					break
				}
				runtime.GC()
				time.Sleep(10 * time.Millisecond)
			}
			if isMapped(t, path) {
				t.Fatal("the mapping outlived the index")
			}
		})
	}
}

// TestReadMappedUnchanged checks that writing to a mapped index leaves its
// file as it was.
func TestReadMappedUnchanged(t *testing.T) {
	if raceEnabled {
		t.Skip("checks the file, not concurrency: runs without -race (Makefile FULLSIZE), where it costs a tenth")
	}
	x := synthetic(chunkNodes+10, 64, 32, 12)
	path := filepath.Join(t.TempDir(), "x.vec")
	if err := writeFile(path, x.WriteTo); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	y, err := Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !isMapped(t, path) {
		t.Fatal("not mapped")
	}
	for i := range 2000 {
		y.Delete(uint64(i)*7 + 1) // vacuums along the way
	}
	if err := y.Add(1<<40, queries(1, 10, 64, 13)[0]); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("changing the mapped index changed its file")
	}
	runtime.KeepAlive(y)
}
