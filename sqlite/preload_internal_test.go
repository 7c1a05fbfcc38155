package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/testwait"
)

// TestPreloadVectors reopens a store and preloads its vectors, as
// PreloadVectors does: its saved index is loaded without a search asking,
// from the file (nothing inserted again), unless the file is too small to
// be worth it; and a store closed at once, mid-load, closes cleanly.
func TestPreloadVectors(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetVectorSpace(ctx, filterSpace, false); err != nil {
		t.Fatal(err)
	}
	writeMemories(t, db, filterScope, 0, 300, 100)
	if err := db.IndexVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-vectors"); err != nil {
		t.Fatal("no index file was saved:", err)
	}

	for _, tt := range []struct {
		name    string
		preload bool
		from    int64 // the smallest file preloaded
		want    bool  // loaded before any search
	}{
		{"off", false, 0, false},
		{"on", true, 0, true},
		{"small file", true, 1 << 30, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if tt.preload {
				db.vectors.preloadFrom = tt.from
				db.vectors.preload(db, nil)
			}
			sp, err := db.scopeSpan(ctx, filterScope)
			if err != nil {
				t.Fatal(err)
			}
			loaded := func() bool { return db.vectors.indexed(sp) >= 0 }
			if tt.want {
				testwait.Until(t, 10*time.Second, "the index to load", loaded)
			} else {
				time.Sleep(50 * time.Millisecond) // time enough to load, were it asked
			}
			if got := loaded(); got != tt.want {
				t.Fatalf("loaded before a search: %t, want %t", got, tt.want)
			}
			hits, err := db.SearchVectors(ctx, filterScope, mnemo.VectorQuery{Vector: filterMemory(9000).Embedding, Limit: 10})
			if err != nil || len(hits) == 0 {
				t.Fatalf("search after the load: %d hits, %v", len(hits), err)
			}
			if n := db.vectors.indexed(sp); n != 300 {
				t.Fatalf("index holds %d vectors, want 300", n)
			}
			db.vectors.mu.Lock()
			x := db.vectors.scopes[sp.lo>>scopeBits]
			db.vectors.mu.Unlock()
			if n := x.inserted.Load(); n != 0 {
				t.Fatalf("%d vectors inserted again: the file was not loaded", n)
			}
		})
	}

	// Closed as it opens: Close waits for the load, and nothing races
	// (go test -race).
	for i := range 6 {
		db, err := Open(ctx, path, Options{PreloadVectors: i == 0}) // too small a file: none
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			db.vectors.preloadFrom = 0
			db.vectors.preload(db, nil)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
