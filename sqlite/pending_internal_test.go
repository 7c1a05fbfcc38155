package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/vector"
)

// pausedStore is filterStore, empty, with the indexer kept from inserting
// (it holds work until the test ends or resume is called) and a search
// scoring at most scan pending vectors.
func pausedStore(t *testing.T, scan int) (db *DB, resume func()) {
	t.Helper()
	db = filterStore(t, 0, exactBelow)
	db.vectors.pendingScan = scan
	db.vectors.work.Lock()
	var once sync.Once
	resume = func() { once.Do(db.vectors.work.Unlock) }
	t.Cleanup(resume)
	return db, resume
}

// writeMemories writes filterMemory(i) for i in [from, to) into scope, in
// batches of batch.
func writeMemories(t *testing.T, db *DB, scope mnemo.Scope, from, to, batch int) {
	t.Helper()
	for i := from; i < to; i += batch {
		var recs []mnemo.Record
		for j := i; j < min(to, i+batch); j++ {
			m := filterMemory(j)
			m.TenantID, m.AgentID = scope.TenantID, scope.AgentID
			m.ID = fmt.Sprintf("01959581-%04d-7000-8000-%012d", len(scope.AgentID), j)
			recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content})
		}
		if _, err := db.Write(context.Background(), scope, recs); err != nil {
			t.Fatal(err)
		}
	}
}

// fromRows runs f with the pending buffers distrusted, so that searches
// read the pending vectors' rows as they did before the buffers.
func fromRows(db *DB, f func()) {
	a := db.vectors
	a.mu.Lock()
	known := a.known
	a.known = -1
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.known = known
		a.mu.Unlock()
	}()
	f()
}

// comparePending checks that scope's pending buffer scores q as the rows
// do (the same seqs in the same order, scores within float rounding, the
// same more), and reports whether the buffer answered.
func comparePending(t *testing.T, db *DB, scope mnemo.Scope, q []float32) (bufferOK bool) {
	t.Helper()
	ctx := context.Background()
	sp, err := db.scopeSpan(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	x, rev, err := db.vectors.open(ctx, db, sp)
	if err != nil {
		t.Fatal(err)
	}
	at := x.current()
	want, wantMore, err := db.scorePending(ctx, sp, at, q)
	if err != nil {
		t.Fatal(err)
	}
	got, more, ok := db.vectors.scorePending(x, at, rev, q)
	if !ok {
		return false
	}
	if more != wantMore {
		t.Errorf("%s: more %v, the rows say %v", scope.AgentID, more, wantMore)
	}
	ids := func(rs []vector.Result) []uint64 {
		var out []uint64
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	if !slices.Equal(ids(got), ids(want)) {
		t.Fatalf("%s: the buffer scores %v, the rows %v", scope.AgentID, ids(got), ids(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i].Score - want[i].Score)); d > 1e-6 {
			t.Fatalf("%s: seq %d scores %v, the rows %v", scope.AgentID, got[i].ID, got[i].Score, want[i].Score)
		}
	}
	return true
}

// searchBoth runs a search with the pending buffers and one reading rows,
// and checks they agree.
func searchBoth(t *testing.T, db *DB, scope mnemo.Scope, q []float32) (hits []mnemo.VectorHit, lag string) {
	t.Helper()
	ctx := context.Background()
	vq := mnemo.VectorQuery{Vector: q, Limit: 10}
	hits, lag, err := db.SearchVectorsLag(ctx, scope, vq)
	if err != nil {
		t.Fatal(err)
	}
	var rowHits []mnemo.VectorHit
	var rowLag string
	fromRows(db, func() { rowHits, rowLag, err = db.SearchVectorsLag(ctx, scope, vq) })
	if err != nil {
		t.Fatal(err)
	}
	if lag != rowLag {
		t.Errorf("%s: lag %q, reading rows %q", scope.AgentID, lag, rowLag)
	}
	if len(hits) != len(rowHits) {
		t.Fatalf("%s: %d hits, reading rows %d", scope.AgentID, len(hits), len(rowHits))
	}
	for i := range hits {
		if hits[i].Memory.ID != rowHits[i].Memory.ID || math.Abs(hits[i].Similarity-rowHits[i].Similarity) > 1e-6 {
			t.Fatalf("%s: hit %d is %s (%v), reading rows %s (%v)", scope.AgentID, i,
				hits[i].Memory.ID, hits[i].Similarity, rowHits[i].Memory.ID, rowHits[i].Similarity)
		}
	}
	return hits, lag
}

// insertOneBatch has the index insert its scope's oldest catchUpBatch
// pending vectors, as one step of the indexer.
func insertOneBatch(t *testing.T, db *DB, scope mnemo.Scope) {
	t.Helper()
	ctx := context.Background()
	sp, err := db.scopeSpan(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := db.vectors.open(ctx, db, sp)
	if err != nil {
		t.Fatal(err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, _, err := x.insertBatch(ctx, db, sp, nil); err != nil {
		t.Fatal(err)
	}
	x.pending.trim(x.current())
}

// TestPendingBuffer: a search scores the vectors the index lacks from the
// pending buffer, with what reading their rows gives (the same hits, the
// same scores within float rounding, the same lag), whatever happened to
// them: more than a search scores, deleted, rewritten, tombstoned, left
// without a vector, partly indexed, beside another agent's. Where the
// buffer cannot know (an evicted vector deleted), it says so and the rows
// are read.
func TestPendingBuffer(t *testing.T) {
	ctx := context.Background()
	other := mnemo.Scope{TenantID: filterScope.TenantID, AgentID: "other"}
	const scan = 50
	forget := func(db *DB, scope mnemo.Scope, ns ...int) {
		var keys []string
		for _, n := range ns {
			keys = append(keys, filterMemory(n).Key)
		}
		if _, err := db.Forget(ctx, scope, nil, keys); err != nil {
			t.Fatal(err)
		}
	}
	rewrite := func(db *DB, n int, vec bool, tombstone bool) {
		m := filterMemory(n)
		if vec {
			m.Embedding = filterMemory(n + 5000).Embedding
		} else {
			m.Embedding, m.EmbeddingModel = nil, ""
		}
		rec := mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content, Tombstone: tombstone}
		if _, err := db.Write(ctx, filterScope, []mnemo.Record{rec}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		setup    func(db *DB)
		bufferOK bool // the buffer answers (else the rows do)
		lag      bool
	}{
		{"fewer than a search scores", func(db *DB) { writeMemories(t, db, filterScope, 0, 30, 7) }, true, false},
		{"as many as a search scores", func(db *DB) { writeMemories(t, db, filterScope, 0, scan, 20) }, true, false},
		{"more than a search scores", func(db *DB) { writeMemories(t, db, filterScope, 0, 130, 20) }, true, true},
		{"more in one batch", func(db *DB) { writeMemories(t, db, filterScope, 0, 130, 130) }, true, true},
		{"deleted", func(db *DB) {
			writeMemories(t, db, filterScope, 0, 40, 40)
			forget(db, filterScope, 3, 17, 39)
		}, true, false},
		{"rewritten with a new vector", func(db *DB) {
			writeMemories(t, db, filterScope, 0, 40, 40)
			rewrite(db, 5, true, false)
			rewrite(db, 5, true, false)
		}, true, false},
		{"rewritten without a vector", func(db *DB) {
			writeMemories(t, db, filterScope, 0, 40, 40)
			rewrite(db, 8, false, false)
		}, true, false},
		{"tombstoned", func(db *DB) {
			writeMemories(t, db, filterScope, 0, 40, 40)
			rewrite(db, 9, false, true)
		}, true, false},
		{"a zero vector", func(db *DB) {
			m := filterMemory(0)
			m.Embedding = make([]float32, filterSpace.Dimension)
			if _, err := db.Write(ctx, filterScope, []mnemo.Record{{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content}}); err != nil {
				t.Fatal(err)
			}
			writeMemories(t, db, filterScope, 1, 30, 30)
		}, true, false},
		{"partly indexed", func(db *DB) {
			writeMemories(t, db, filterScope, 0, 100, 25)
			insertOneBatch(t, db, filterScope)
		}, true, true},
		{"partly indexed, fewer left than a search scores", func(db *DB) {
			writeMemories(t, db, filterScope, 0, 70, 25)
			insertOneBatch(t, db, filterScope)
		}, true, false},
		{"another agent writing between", func(db *DB) {
			for i := 0; i < 120; i += 20 {
				writeMemories(t, db, filterScope, i, i+20, 20)
				writeMemories(t, db, other, 1000+i, 1000+i+20, 20)
			}
		}, true, true},
		{"newest deleted, more than a search scores", func(db *DB) {
			writeMemories(t, db, filterScope, 0, 100, 100)
			forget(db, filterScope, 99, 98)
		}, false, true},
		{"an evicted one deleted", func(db *DB) {
			writeMemories(t, db, filterScope, 0, 100, 100)
			forget(db, filterScope, 2)
		}, false, true},
		{"all evicted deleted", func(db *DB) {
			writeMemories(t, db, filterScope, 0, scan+2, scan+2)
			forget(db, filterScope, 0, 1)
		}, false, false},
		{"an evicted one rewritten", func(db *DB) {
			writeMemories(t, db, filterScope, 0, 100, 100)
			rewrite(db, 3, true, false)
		}, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := pausedStore(t, scan)
			tc.setup(db)
			for qi := range 4 {
				q := filterMemory(9000 + qi).Embedding
				for _, scope := range []mnemo.Scope{filterScope, other} {
					if sp, err := db.scopeSpan(ctx, scope); err != nil {
						t.Fatal(err)
					} else if sp.lo == 0 {
						continue
					}
					ok := comparePending(t, db, scope, q)
					if scope == filterScope && ok != tc.bufferOK {
						t.Fatalf("the buffer answered: %v, want %v", ok, tc.bufferOK)
					}
					_, lag := searchBoth(t, db, scope, q)
					if scope == filterScope && (lag != "") != tc.lag {
						t.Fatalf("lag %q, want one: %v", lag, tc.lag)
					}
				}
			}
		})
	}
}

// TestPendingBufferFindsNewest: a vector just written is found by the
// next search before the indexer inserts it, from the buffer, and the
// indexer empties the buffer as it inserts.
func TestPendingBufferFindsNewest(t *testing.T) {
	ctx := context.Background()
	db, resume := pausedStore(t, pendingScan)
	writeMemories(t, db, filterScope, 0, 300, 100)
	sp, err := db.scopeSpan(ctx, filterScope)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 150, 299} {
		if n%20 == 7 {
			continue // archived
		}
		before := db.vectorExamined.Load()
		hits, err := db.SearchVectors(ctx, filterScope, mnemo.VectorQuery{Vector: filterMemory(n).Embedding, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Memory.Key != filterMemory(n).Key || hits[0].Similarity < 0.9999 {
			t.Fatalf("memory %d not found first: %d hits", n, len(hits))
		}
		if db.vectorExamined.Load() == before {
			t.Fatal("nothing examined")
		}
	}
	if got := db.vectors.indexed(sp); got != 0 {
		t.Fatalf("the index holds %d: it should be paused", got)
	}
	x, _, err := db.vectors.open(ctx, db, sp)
	if err != nil {
		t.Fatal(err)
	}
	if x.pending.live != 300 {
		t.Fatalf("the buffer holds %d of 300", x.pending.live)
	}
	resume()
	if err := db.IndexVectors(ctx); err != nil {
		t.Fatal(err)
	}
	x.pending.mu.RLock()
	live, n := x.pending.live, len(x.pending.entries)
	x.pending.mu.RUnlock()
	if live != 0 || n != 0 {
		t.Fatalf("after indexing, the buffer holds %d live of %d entries", live, n)
	}
}

// TestPendingBufferAfterRestart: a reopened store has empty buffers and
// does not trust them for what was stored before: the vectors its index
// lacks are read from their rows, then and after new writes, until the
// indexer has inserted them; the answers are the same throughout.
func TestPendingBufferAfterRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	open := func() *DB {
		db, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		db.vectors.opts = vector.Options{M: 8, EfConstruction: 48, EfSearch: 128, ExactBelow: 100, Seed: 1}
		db.vectors.pendingScan = 50
		return db
	}
	db := open()
	if err := db.SetVectorSpace(ctx, filterSpace, false); err != nil {
		t.Fatal(err)
	}
	db.vectors.work.Lock()
	writeMemories(t, db, filterScope, 0, 40, 40)
	var want [][]mnemo.VectorHit
	for qi := range 3 {
		hits, _ := searchBoth(t, db, filterScope, filterMemory(9000+qi).Embedding)
		want = append(want, hits)
	}
	db.vectors.work.Unlock()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Whatever the indexer inserted before Close, the reopened index lacks
	// every vector: its file is gone.
	if err := os.RemoveAll(path + "-vectors"); err != nil {
		t.Fatal(err)
	}

	db = open()
	defer db.Close()
	db.vectors.work.Lock()
	defer db.vectors.work.Unlock()
	if comparePending(t, db, filterScope, filterMemory(9000).Embedding) {
		t.Fatal("a reopened store trusted its empty buffer")
	}
	for qi := range 3 {
		got, lag := searchBoth(t, db, filterScope, filterMemory(9000+qi).Embedding)
		if lag != "" || len(got) != len(want[qi]) {
			t.Fatalf("query %d after reopening: %d hits, lag %q; before %d", qi, len(got), lag, len(want[qi]))
		}
		for i := range got {
			if got[i].Memory.ID != want[qi][i].Memory.ID {
				t.Fatalf("query %d after reopening: hit %d is %s, before %s", qi, i, got[i].Memory.ID, want[qi][i].Memory.ID)
			}
		}
	}
	writeMemories(t, db, filterScope, 40, 60, 20)
	if comparePending(t, db, filterScope, filterMemory(9000).Embedding) {
		t.Fatal("the buffer was trusted for vectors stored before the reopening")
	}
	searchBoth(t, db, filterScope, filterMemory(9001).Embedding)
	// Once the index holds everything stored before, the buffer answers.
	sp, err := db.scopeSpan(ctx, filterScope)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.vectors.catchUp(ctx, db, db.vectors.entry(sp.lo>>scopeBits, filterSpace), filterSpace, 0); err != nil {
		t.Fatal(err)
	}
	writeMemories(t, db, filterScope, 60, 80, 20)
	if !comparePending(t, db, filterScope, filterMemory(9000).Embedding) {
		t.Fatal("the buffer was not trusted once the index caught up")
	}
	searchBoth(t, db, filterScope, filterMemory(9002).Embedding)
}

// TestPendingBufferBudget: the buffers of a DB hold at most pendingBudget
// bytes together; a scope that got less than a search scores is read from
// its rows, with the same answer, and the bytes are given back as the
// indexer inserts and scopes are cleared.
func TestPendingBufferBudget(t *testing.T) {
	ctx := context.Background()
	db, resume := pausedStore(t, 50)
	vecBytes := int64(4 * filterSpace.Dimension)
	db.vectors.pendingBudget = 30 * vecBytes
	other := mnemo.Scope{TenantID: filterScope.TenantID, AgentID: "other"}
	writeMemories(t, db, filterScope, 0, 25, 25)
	writeMemories(t, db, other, 1000, 1025, 25)
	if got := db.vectors.pendingUsed.Load(); got > 30*vecBytes {
		t.Fatalf("the buffers hold %d bytes, over the budget of %d", got, 30*vecBytes)
	}
	q := filterMemory(9000).Embedding
	if !comparePending(t, db, filterScope, q) {
		t.Error("the scope within the budget was not answered from its buffer")
	}
	if comparePending(t, db, other, q) {
		t.Error("the scope cut by the budget was answered from its buffer")
	}
	for _, scope := range []mnemo.Scope{filterScope, other} {
		searchBoth(t, db, scope, q)
	}
	if _, err := db.Clear(ctx, other); err != nil {
		t.Fatal(err)
	}
	if got := db.vectors.pendingUsed.Load(); got != 25*vecBytes {
		t.Fatalf("after clearing a scope the buffers hold %d bytes, want %d", got, 25*vecBytes)
	}
	resume()
	if err := db.IndexVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if got := db.vectors.pendingUsed.Load(); got != 0 {
		t.Fatalf("after indexing the buffers hold %d bytes", got)
	}
}

// TestPendingBufferConcurrent: writers of two agents, a deleter, the
// indexer and searches at once (run with -race). Each writer finds its
// newest memory first right after writing it, whether the index or the
// buffer holds it; at the end, the buffers are empty.
func TestPendingBufferConcurrent(t *testing.T) {
	ctx := context.Background()
	db := filterStore(t, 0, exactBelow)
	db.vectors.pendingScan = 64
	scopes := []mnemo.Scope{filterScope, {TenantID: "t2", AgentID: "b"}}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w, scope := range scopes {
		wg.Go(func() {
			for i := 0; i < 300; i++ {
				n := w*100000 + i
				m := filterMemory(n)
				m.Archived = false
				m.TenantID, m.AgentID = scope.TenantID, scope.AgentID
				if _, err := db.Write(ctx, scope, []mnemo.Record{{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content}}); err != nil {
					errs <- err
					return
				}
				if i%5 == 0 {
					hits, err := db.SearchVectors(ctx, scope, mnemo.VectorQuery{Vector: m.Embedding, Limit: 3})
					if err != nil {
						errs <- err
						return
					}
					if len(hits) == 0 || hits[0].Memory.ID != m.ID {
						errs <- fmt.Errorf("%s: memory %d just written not found first", scope.AgentID, n)
						return
					}
				}
				if i%7 == 3 {
					if _, err := db.Forget(ctx, scope, nil, []string{filterMemory(n - 2).Key}); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := db.IndexVectors(ctx); err != nil {
		t.Fatal(err)
	}
	for _, scope := range scopes {
		sp, err := db.scopeSpan(ctx, scope)
		if err != nil {
			t.Fatal(err)
		}
		x := db.vectors.entry(sp.lo>>scopeBits, filterSpace)
		x.pending.mu.RLock()
		live := x.pending.live
		x.pending.mu.RUnlock()
		if live != 0 {
			t.Errorf("%s: %d vectors left in the buffer after indexing", scope.AgentID, live)
		}
	}
}

// BenchmarkSearchPending: a vector search right after a bulk load, the
// indexer not having inserted any of it, at the built-in embedder's 612
// dimensions: the pending vectors scored from the buffer, and from their
// rows as before the buffer (PERF-9).
//
//	go test -run '^$' -bench SearchPending ./sqlite
func BenchmarkSearchPending(b *testing.B) {
	ctx := context.Background()
	space := mnemo.VectorSpace{Model: "test/rand-612", Dimension: 612}
	r := rand.New(rand.NewPCG(1, 2))
	randVec := func() []float32 {
		v := make([]float32, space.Dimension)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	for _, n := range []int{5000, 20000} {
		db, err := Open(ctx, filepath.Join(b.TempDir(), "mnemo.db"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := db.SetVectorSpace(ctx, space, false); err != nil {
			b.Fatal(err)
		}
		db.vectors.work.Lock() // the indexer is behind: it inserts nothing
		for from := 0; from < n; from += 1000 {
			recs := make([]mnemo.Record, 0, 1000)
			for i := from; i < from+1000; i++ {
				text := fmt.Sprintf("memory %d", i)
				recs = append(recs, mnemo.Record{
					Memory: mnemo.Memory{Content: text, Embedding: randVec(), EmbeddingModel: space.Model},
					Index:  mnemo.IndexText{Text: text}, Embed: text,
				})
			}
			if _, err := db.Write(ctx, filterScope, recs); err != nil {
				b.Fatal(err)
			}
		}
		q := randVec()
		for _, path := range []string{"buffer", "rows"} {
			b.Run(fmt.Sprintf("pending=%d/%s", n, path), func(b *testing.B) {
				search := func() {
					if _, _, err := db.SearchVectorsLag(ctx, filterScope, mnemo.VectorQuery{Vector: q, Limit: 10}); err != nil {
						b.Fatal(err)
					}
				}
				for b.Loop() {
					if path == "rows" {
						fromRows(db, search)
					} else {
						search()
					}
				}
			})
		}
		db.vectors.work.Unlock()
		db.Close()
	}
}

// TestIndexVectorsStopsWaiting: IndexVectors waiting for a busy indexer
// returns when its context ends instead of waiting the catch-up out.
func TestIndexVectorsStopsWaiting(t *testing.T) {
	db, resume := pausedStore(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := db.IndexVectors(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("IndexVectors beside a busy indexer = %v, want the context's deadline", err)
	}
	resume()
	if err := db.IndexVectors(context.Background()); err != nil {
		t.Fatalf("IndexVectors once the indexer is free: %v", err)
	}
}
