package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/vector"
)

// A heapBound collects when the heap has grown past the live heap by more
// than its headroom, and only then; zero headroom never collects.
func TestHeapBound(t *testing.T) {
	// The collector runs only when told to, so that the garbage made below
	// is still there when the bound looks.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const garbage = 8 << 20
	for _, tc := range []struct {
		name     string
		headroom uint64
		collects bool
	}{
		{"off", 0, false},
		{"less garbage than the headroom", 1 << 30, false},
		{"more garbage than the headroom", 1 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GC()
			runtime.KeepAlive(make([]byte, garbage))
			h := heapBound{headroom: tc.headroom}
			h.check()
			if got := h.collections.Load() == 1; got != tc.collects {
				t.Fatalf("collected %d times, want a collection: %v", h.collections.Load(), tc.collects)
			}
		})
	}
}

// An index built from the table in one catch-up bounds the heap as it goes
// (PERF-12: the build's peak), and is the index of every vector: the
// vectors decoded into the buffer a catch-up reuses are each their own.
func TestBuildBoundsHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("checks the heap bound, not concurrency: runs without -race (Makefile FULLSIZE), where it costs a twentieth")
	}
	n := boundFrom + 20*catchUpBatch
	for _, tc := range []struct {
		name     string
		headroom uint64
		collects bool
	}{
		{"bounded", 1, true},
		{"unbounded", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db, err := Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			db.vectors.opts = vector.Options{M: 8, EfConstruction: 32, EfSearch: 64, Seed: 1}
			db.vectors.bound.headroom = tc.headroom
			if err := db.SetVectorSpace(ctx, filterSpace, false); err != nil {
				t.Fatal(err)
			}
			// Written with the indexer held off, so that one catch-up
			// builds the whole index, as from a store without its file.
			db.vectors.work.Lock()
			for from := 0; from < n; from += 1000 {
				var recs []mnemo.Record
				for i := from; i < min(n, from+1000); i++ {
					m := filterMemory(i)
					recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content})
				}
				if _, err := db.Write(ctx, filterScope, recs); err != nil {
					db.vectors.work.Unlock()
					t.Fatal(err)
				}
			}
			db.vectors.work.Unlock()
			if err := db.IndexVectors(ctx); err != nil {
				t.Fatal(err)
			}
			sp, err := db.scopeSpan(ctx, filterScope)
			if err != nil {
				t.Fatal(err)
			}
			if got := db.vectors.indexed(sp); got != n {
				t.Fatalf("indexed %d of %d", got, n)
			}
			if got := db.vectors.bound.collections.Load() > 0; got != tc.collects {
				t.Fatalf("%d collections, want some: %v", db.vectors.bound.collections.Load(), tc.collects)
			}
			for _, i := range []int{0, catchUpBatch - 1, catchUpBatch, n/2 + 3, n - 1} {
				m := filterMemory(i)
				hits, err := db.SearchVectors(ctx, filterScope, mnemo.VectorQuery{Vector: m.Embedding, Limit: 1})
				if err != nil {
					t.Fatal(err)
				}
				if len(hits) != 1 || hits[0].Memory.ID != m.ID {
					t.Fatalf("memory %d's own vector finds %v", i, hits)
				}
			}
		})
	}
}

// A bulk build reads the next batch while one is linked in; a memory
// forgotten meanwhile, whose vector that read holds, stays out of the
// index (annIndex.forgets), and every other vector goes in.
func TestBulkBuildReadAheadForgets(t *testing.T) {
	n := 12 * bulkBatch
	if raceEnabled {
		n = 4 * bulkBatch
	}
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.vectors.opts = vector.Options{M: 8, EfConstruction: 32, EfSearch: 64, Seed: 1}
	db.vectors.bulkBacklog = 2 * bulkBatch
	if err := db.SetVectorSpace(ctx, filterSpace, false); err != nil {
		t.Fatal(err)
	}
	// Each batch read ahead loses a memory before it is added. Set before
	// the write wakes the indexer, which reads it.
	forgot := 0
	db.vectors.readAhead = func(seqs []uint64) {
		if len(seqs) == 0 {
			return
		}
		var id string
		if err := db.reader.QueryRowContext(ctx, `SELECT id FROM memories WHERE seq = ?`, seqs[len(seqs)/2]).Scan(&id); err != nil {
			t.Error(err)
			return
		}
		if _, err := db.Forget(ctx, filterScope, []string{id}, nil); err != nil {
			t.Error(err)
			return
		}
		forgot++
	}
	db.vectors.work.Lock() // one catch-up builds the whole index
	var recs []mnemo.Record
	for i := range n {
		m := filterMemory(i)
		recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content})
	}
	if _, err := db.Write(ctx, filterScope, recs); err != nil {
		db.vectors.work.Unlock()
		t.Fatal(err)
	}
	db.vectors.work.Unlock()

	if err := db.IndexVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if forgot < n/bulkBatch-3 {
		t.Fatalf("%d batches read ahead, want %d", forgot, n/bulkBatch-2)
	}
	sp, err := db.scopeSpan(ctx, filterScope)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT seq FROM memories
		WHERE seq >= ? AND seq < ? AND tombstone = 0`, sp.lo, sp.hi)
	if err != nil {
		t.Fatal(err)
	}
	var live []uint64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			t.Fatal(err)
		}
		live = append(live, uint64(seq))
	}
	rows.Close()
	if len(live) == n {
		t.Fatal("nothing forgotten")
	}
	db.vectors.mu.Lock()
	ix := db.vectors.scopes[sp.lo>>scopeBits].ix.Load()
	db.vectors.mu.Unlock()
	// The index holds every live memory's vector, and nothing else.
	for _, seq := range live {
		if !ix.Has(seq) {
			t.Fatalf("memory %d is not in the index", seq)
		}
	}
	if ix.Len() != len(live) {
		t.Fatalf("index holds %d vectors, %d memories live: it holds forgotten ones", ix.Len(), len(live))
	}
}

// After preload, the in-memory full-text index waits for the indexer's
// first pass to say whether it builds in bulk, and for that build to end
// (awaitBulk): the two builds do not stack their memory (PERF-12).
func TestFullTextIndexWaitsForBulkBuild(t *testing.T) {
	const n = 3 * bulkBatch
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.vectors.opts = vector.Options{M: 8, EfConstruction: 32, EfSearch: 64, Seed: 1}
	db.vectors.bulkBacklog = bulkBatch
	if err := db.SetVectorSpace(ctx, filterSpace, false); err != nil {
		t.Fatal(err)
	}
	db.vectors.work.Lock() // the indexer, woken by the write, waits
	var recs []mnemo.Record
	for i := range n {
		m := filterMemory(i)
		recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content})
	}
	if _, err := db.Write(ctx, filterScope, recs); err != nil {
		db.vectors.work.Unlock()
		t.Fatal(err)
	}
	sp, err := db.scopeSpan(ctx, filterScope)
	if err != nil {
		db.vectors.work.Unlock()
		t.Fatal(err)
	}
	db.vectors.mu.Lock()
	db.vectors.firstLook = make(chan struct{}) // as preload does
	db.vectors.mu.Unlock()
	indexed := make(chan int)
	go func() {
		db.vectors.awaitBulk(ctx)
		indexed <- db.vectors.indexed(sp)
	}()
	db.vectors.work.Unlock()
	if got := <-indexed; got != n {
		t.Fatalf("awaitBulk returned with %d of %d vectors indexed", got, n)
	}
	// Once looked, a pass that is not a bulk build keeps nobody waiting.
	db.vectors.awaitBulk(ctx)
	db.lex.reset()
	for !db.LexicalIndex().Ready {
		time.Sleep(time.Millisecond)
	}
	if got := db.LexicalIndex().Rows; got != n {
		t.Fatalf("the full-text index holds %d rows, want %d", got, n)
	}
}

// A store opened as mnemo serve opens it (PreloadVectors) whose scope has
// a bulk build's worth of vectors and no index file builds the index at
// open, and the in-memory full-text index is built after it.
func TestOpenBuildsMissingIndexFirst(t *testing.T) {
	if raceEnabled {
		t.Skip("10,000 writes and a build: run without -race (Makefile FULLSIZE)")
	}
	n := bulkBacklog // the default threshold: Open sets it
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	db, err := Open(ctx, path, Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetVectorSpace(ctx, filterSpace, false); err != nil {
		t.Fatal(err)
	}
	db.vectors.work.Lock() // no index: the file is what this test lacks
	for from := 0; from < n; from += 2000 {
		var recs []mnemo.Record
		for i := from; i < min(n, from+2000); i++ {
			m := filterMemory(i)
			recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content})
		}
		if _, err := db.Write(ctx, filterScope, recs); err != nil {
			db.vectors.work.Unlock()
			t.Fatal(err)
		}
	}
	db.vectors.work.Unlock()
	db.Close()
	if err := os.RemoveAll(path + "-vectors"); err != nil {
		t.Fatal(err)
	}

	db, err = Open(ctx, path, Options{PreloadVectors: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for !db.LexicalIndex().Ready {
		time.Sleep(time.Millisecond)
	}
	sp, err := db.scopeSpan(ctx, filterScope)
	if err != nil {
		t.Fatal(err)
	}
	if got := db.vectors.indexed(sp); got != n {
		t.Fatalf("the full-text index was ready with %d of %d vectors indexed", got, n)
	}
}

// An index is written again after annSaveEvery changes, or a quarter of
// its size once that is more: a build's writes come to a few times its
// final file, not one file every 20,000 vectors.
func TestSaveDue(t *testing.T) {
	for _, tc := range []struct {
		n, unsaved int
		bulk, due  bool
	}{
		{0, 0, false, false},
		{1000, annSaveEvery - 1, false, false},
		{1000, annSaveEvery, false, true},
		{4 * annSaveEvery, annSaveEvery, false, true},
		{1_000_000, annSaveEvery, false, false},
		{1_000_000, 249_999, false, false},
		{1_000_000, 250_000, false, true},
		// A bulk build writes once it has doubled since the last write.
		{1000, annSaveEvery, true, true},
		{4 * annSaveEvery, annSaveEvery, true, false},
		{400_000, 199_999, true, false},
		{400_000, 200_000, true, true},
	} {
		if got := saveDue(tc.n, tc.unsaved, tc.bulk); got != tc.due {
			t.Errorf("saveDue(%d, %d, bulk %v) = %v, want %v", tc.n, tc.unsaved, tc.bulk, got, tc.due)
		}
	}
}

// The in-memory full-text index's build bounds the heap as it reads the
// table: after a reopen, its garbage beside the loaded ANN index would
// have the runtime hold far more than is live (PERF-12, PERF-13).
func TestLexBuildBoundsHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("checks the heap bound, not concurrency: runs without -race (Makefile FULLSIZE), where it costs a twentieth")
	}
	const n = 3000 // the build looks every 1,024 rows
	for _, tc := range []struct {
		name     string
		headroom uint64
		collects bool
	}{
		{"bounded", 1, true},
		{"unbounded", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db, err := Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for from := 0; from < n; from += 1000 {
				var recs []mnemo.Record
				for i := from; i < from+1000; i++ {
					m := filterMemory(i)
					m.Embedding, m.EmbeddingModel = nil, ""
					recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content}})
				}
				if _, err := db.Write(ctx, filterScope, recs); err != nil {
					t.Fatal(err)
				}
			}
			waitLex(t, db)
			// Built again, from the table, with the headroom of the case.
			db.lex.bound.headroom = tc.headroom
			db.lex.reset()
			waitLex(t, db)
			if got := db.LexicalIndex().Rows; got != n {
				t.Fatalf("built with %d rows, want %d", got, n)
			}
			if got := db.lex.bound.collections.Load() > 0; got != tc.collects {
				t.Fatalf("%d collections, want some: %v", db.lex.bound.collections.Load(), tc.collects)
			}
		})
	}
}
