package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/cpugate"
	"github.com/mnemo-dev/mnemo/sqlite"
)

var (
	annScope = mnemo.Scope{TenantID: "t", AgentID: "a"}
	annSpace = mnemo.VectorSpace{Model: "test/rand-16", Dimension: 16}
)

// annStore opens the store at path with annSpace set.
func annStore(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetVectorSpace(context.Background(), annSpace, false); err != nil {
		t.Fatal(err)
	}
	return db
}

// annWrite writes memories from..to-1 with seeded random vectors and
// returns the vectors by id.
func annWrite(t *testing.T, db *sqlite.DB, from, to int) map[string][]float32 {
	t.Helper()
	vecs := map[string][]float32{}
	var recs []mnemo.Record
	for n := from; n < to; n++ {
		r := rand.New(rand.NewPCG(uint64(n), 1))
		v := make([]float32, annSpace.Dimension)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		id := fmt.Sprintf("01959581-0000-7000-8000-%012d", n)
		text := fmt.Sprintf("memory %d", n)
		recs = append(recs, mnemo.Record{
			Memory: mnemo.Memory{ID: id, Content: text, Embedding: v, EmbeddingModel: annSpace.Model, Vitality: 1},
			Index:  mnemo.IndexText{Text: text}, Embed: text,
		})
		vecs[id] = v
	}
	if _, err := db.Write(context.Background(), annScope, recs); err != nil {
		t.Fatal(err)
	}
	return vecs
}

func nearest(t *testing.T, db *sqlite.DB, q []float32, k int) []string {
	t.Helper()
	hits, err := db.SearchVectors(context.Background(), annScope, mnemo.VectorQuery{Vector: q, Limit: k})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.Memory.ID)
	}
	return ids
}

// The ANN index is written on close and read on open; a torn or missing
// file is rebuilt from the table; either way answers are the same.
func TestANNIndexPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mnemo.db")
	db := annStore(t, path)
	vecs := annWrite(t, db, 1, 301)
	q := vecs["01959581-0000-7000-8000-000000000007"]
	want := nearest(t, db, q, 5)
	if len(want) != 5 || want[0] != "01959581-0000-7000-8000-000000000007" {
		t.Fatalf("nearest = %v", want)
	}
	if err := db.IndexVectors(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	file := path + "-vectors/1.ann"
	info, err := os.Stat(file)
	if err != nil || info.Size() == 0 {
		t.Fatalf("index file: %v", err)
	}

	db = annStore(t, path)
	if got := nearest(t, db, q, 5); !slices.Equal(got, want) {
		t.Fatalf("after reopen %v, want %v", got, want)
	}
	st, _ := db.Stats(context.Background(), annScope)
	if st.Vectors.Indexed != 300 {
		t.Fatalf("indexed %d after reopen", st.Vectors.Indexed)
	}
	db.Close()

	// A torn file: rebuilt, same answer.
	b, _ := os.ReadFile(file)
	if err := os.WriteFile(file, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	db = annStore(t, path)
	if got := nearest(t, db, q, 5); !slices.Equal(got, want) {
		t.Fatalf("after a torn file %v, want %v", got, want)
	}
	db.Close()

	// A file of another model is not trusted.
	os.Remove(file)
	db = annStore(t, path)
	if got := nearest(t, db, q, 5); !slices.Equal(got, want) {
		t.Fatalf("after a lost file %v, want %v", got, want)
	}
	db.Close()
}

// An index file saved before later writes and deletes catches up with the
// table: new vectors are found, deleted memories never come back.
func TestANNIndexCatchesUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mnemo.db")
	ctx := context.Background()
	reader := annStore(t, path)
	defer reader.Close()
	vecs := annWrite(t, reader, 1, 101)
	first := vecs["01959581-0000-7000-8000-000000000001"]
	if got := nearest(t, reader, first, 1); got[0] != "01959581-0000-7000-8000-000000000001" {
		t.Fatalf("nearest = %v", got)
	}

	// Another process (a CLI call) writes and forgets while reader has its
	// index loaded.
	writer := annStore(t, path)
	more := annWrite(t, writer, 101, 151)
	if _, err := writer.Forget(ctx, annScope, []string{"01959581-0000-7000-8000-000000000001"}, nil); err != nil {
		t.Fatal(err)
	}
	writer.Close()

	if got := nearest(t, reader, more["01959581-0000-7000-8000-000000000120"], 1); got[0] != "01959581-0000-7000-8000-000000000120" {
		t.Fatalf("new vector not found: %v", got)
	}
	for _, id := range nearest(t, reader, first, 150) {
		if id == "01959581-0000-7000-8000-000000000001" {
			t.Fatal("a forgotten memory came back from the index")
		}
	}
}

// A reindex drops the index files of the old space.
func TestANNIndexReset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mnemo.db")
	db := annStore(t, path)
	annWrite(t, db, 1, 11)
	nearest(t, db, make([]float32, 16), 1)
	db.Close()
	db = annStore(t, path)
	defer db.Close()
	if err := db.SetVectorSpace(context.Background(), mnemo.VectorSpace{Model: "test/other", Dimension: 8}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-vectors/1.ann"); !os.IsNotExist(err) {
		t.Fatalf("old index file still there: %v", err)
	}
	if n, _ := db.CountUnembedded(context.Background()); n != 10 {
		t.Fatalf("%d queued after reset, want 10", n)
	}
}

// TestIndexerYieldsToRequests: with the process's gate given (UseGate), the
// indexer inserts only between requests: while one is in flight it waits
// before each insert, up to cpugate.MaxWait at a time, and answers stay
// right meanwhile (PERF-2).
func TestIndexerYieldsToRequests(t *testing.T) {
	ctx := context.Background()
	db := annStore(t, filepath.Join(t.TempDir(), "mnemo.db"))
	defer db.Close()
	g := cpugate.New()
	db.UseGate(g)
	// The recall is in flight before the write, which wakes the background
	// indexer: whichever of it and IndexVectors inserts, each insert waits.
	end := g.Begin()
	vecs := annWrite(t, db, 1, 41)
	if err := db.IndexVectors(ctx); err != nil {
		t.Fatal(err)
	}
	if n := g.Waits(); n < 40 {
		t.Fatalf("40 vectors indexed beside a request with %d waits: the indexer did not yield before each", n)
	}
	end()
	q := vecs["01959581-0000-7000-8000-000000000007"]
	if got := nearest(t, db, q, 1); len(got) != 1 || got[0] != "01959581-0000-7000-8000-000000000007" {
		t.Fatalf("nearest after indexing: %v", got)
	}
	st, err := db.Stats(ctx, annScope)
	if err != nil {
		t.Fatal(err)
	}
	if st.Vectors == nil || st.Vectors.Indexed != 40 {
		t.Fatalf("indexed: %+v", st.Vectors)
	}
}

// TestStatsIndexedInAnotherProcess checks that a store opened afresh, as a
// one-shot command opens it beside a server, reports the vectors its
// index holds, not "not loaded" (-1): that of the file, caught up with
// the vectors written after it was saved.
func TestStatsIndexedInAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mnemo.db")
	db := annStore(t, path)
	annWrite(t, db, 1, 41)
	if err := db.IndexVectors(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil { // saves the index of 40
		t.Fatal(err)
	}
	db = annStore(t, path)
	annWrite(t, db, 41, 46) // five more, not in the file
	db.Close()

	db = annStore(t, path)
	defer db.Close()
	st, err := db.Stats(context.Background(), annScope)
	if err != nil || st.Vectors == nil || st.Vectors.Embedded != 45 || st.Vectors.Indexed != 45 {
		t.Fatalf("Stats of a store opened afresh = %+v, %v; want 45 embedded and indexed", st.Vectors, err)
	}
}
