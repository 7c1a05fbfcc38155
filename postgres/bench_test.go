package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/postgres"
)

// Benchmarks:
//
//	go test ./postgres -run '^$' -bench BenchmarkWriteBatch -benchtime 20x
//	MNEMO_TEST_PGVECTOR_DSN=... MNEMO_BENCH_N=10000 go test ./postgres -run '^$' -bench BenchmarkHybridSearch -benchtime 200x -timeout 60m
//	MNEMO_BENCH_N=100000 go test ./postgres -run '^$' -bench BenchmarkTextSearch -benchtime 500x

// corpus makes n memories of 12 words from a vocabulary of 2,000 (Zipf
// distributed, as words are), each with a unit vector of dim dimensions
// near one of 64 topics, so that nearest neighbours mean something.
type corpus struct {
	rng    *rand.Rand
	zipf   *rand.Zipf
	topics [][]float32
	dim    int
}

func newCorpus(dim int) *corpus {
	rng := rand.New(rand.NewPCG(1, 2))
	c := &corpus{rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, 1999), dim: dim}
	for range 64 {
		c.topics = append(c.topics, c.unit(nil, 1))
	}
	return c
}

// unit returns a random unit vector, near center when it is given.
func (c *corpus) unit(center []float32, spread float64) []float32 {
	v := make([]float32, c.dim)
	var norm float64
	for i := range v {
		x := c.rng.NormFloat64() * spread
		if center != nil {
			x += float64(center[i])
		}
		v[i] = float32(x)
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] /= float32(norm)
	}
	return v
}

func (c *corpus) words(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "w" + strconv.FormatUint(c.zipf.Uint64(), 36)
	}
	return out
}

const benchModel = "bench/topics"

func (c *corpus) record(n int) mnemo.Record {
	text := strings.Join(c.words(12), " ")
	m := mnemo.Memory{Content: text, Type: mnemo.TypeFact, Priority: 2, Confidence: 0.8, Vitality: 1,
		CreatedAt: time.Unix(1741964966, 0).Add(time.Duration(n) * time.Second)}
	m.Tags = []string{"t" + strconv.Itoa(n%10)}
	if c.dim > 0 {
		m.Embedding, m.EmbeddingModel = c.unit(c.topics[c.rng.IntN(len(c.topics))], 0.05), benchModel
	}
	return mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: text, Meta: m.Tags[0]}, Embed: text}
}

// BenchmarkWriteBatch measures batch writes of 100 new memories (one
// transaction, multi-row inserts) on PostgreSQL 15.
func BenchmarkWriteBatch(b *testing.B) {
	db := open(b, pgDSN(b), postgres.Options{})
	c := newCorpus(0)
	const batch = 100
	n := 0
	start := time.Now()
	for b.Loop() {
		recs := make([]mnemo.Record, batch)
		for i := range recs {
			recs[i] = c.record(n)
			n++
		}
		if _, err := db.Write(b.Context(), scope, recs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "memories/s")
}

// BenchmarkHybridSearch measures what recall asks of the store, on a
// server with pgvector: a full-text search and a vector search (40
// candidates each, as recall asks for 5 results), one after the other, over
// MNEMO_BENCH_N memories (default 10,000) of one agent with 256-dimension
// vectors in the HNSW index. It reports the P50 and P95 of the pair and of
// each half, and the vector search's recall of the true 40 nearest.
// MNEMO_BENCH_EF sets Options.EfSearch (hnsw.ef_search).
func BenchmarkHybridSearch(b *testing.B) {
	dsn := pgvectorDSN(b)
	ensureVector(b, dsn)
	serialize(b)
	n := 10000
	if s := os.Getenv("MNEMO_BENCH_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	const dim = 256
	schema := os.Getenv("MNEMO_BENCH_SCHEMA")
	if schema == "" {
		schema = newSchema(b, dsn)
	}
	ef := 0 // the store's default
	if s := os.Getenv("MNEMO_BENCH_EF"); s != "" {
		var err error
		if ef, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	db := open(b, dsn, postgres.Options{Schema: schema, MaxConns: 1, EfSearch: ef})
	ctx := b.Context()
	if err := db.SetVectorSpace(ctx, mnemo.VectorSpace{Model: benchModel, Dimension: dim}, false); err != nil {
		b.Fatal(err)
	}
	c := newCorpus(dim)
	st, err := db.Stats(ctx, scope)
	if err != nil {
		b.Fatal(err)
	}
	load := time.Now()
	// A large load goes in without the HNSW and full-text indexes, which
	// are built once after it: building an index is far cheaper than
	// inserting into it row by row (PGlite inserts into HNSW at some 90
	// memories a second).
	bulk := n-st.Memories > 5000
	if bulk {
		if _, err := db.Pool().Exec(ctx, `DROP INDEX memory_entries_vec; DROP INDEX memory_entries_tsv`); err != nil {
			b.Fatal(err)
		}
	}
	for i := st.Memories; i < n; i += 500 {
		recs := make([]mnemo.Record, min(500, n-i))
		for k := range recs {
			recs[k] = c.record(i + k)
		}
		if _, err := db.Write(ctx, scope, recs); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("loaded %d memories in %v (%.0f/s)", n-st.Memories, time.Since(load).Round(time.Millisecond), float64(n-st.Memories)/time.Since(load).Seconds())
	if bulk {
		build := time.Now()
		if _, err := db.Pool().Exec(ctx, `SET maintenance_work_mem = '512MB';
			CREATE INDEX memory_entries_tsv ON memory_entries USING gin (tsv);
			CREATE INDEX memory_entries_vec ON memory_entries USING hnsw (vec vector_cosine_ops);
			RESET maintenance_work_mem`); err != nil {
			b.Fatal(err)
		}
		b.Logf("built the indexes in %v", time.Since(build).Round(time.Millisecond))
	}
	// A server's autovacuum analyses the table after a load; PGlite has none.
	if _, err := db.Pool().Exec(ctx, `ANALYZE memory_entries`); err != nil {
		b.Fatal(err)
	}
	if st, err := db.Stats(ctx, scope); err != nil || st.Vectors == nil || st.Vectors.Embedded != n {
		b.Fatalf("stats = %+v, %v", st.Vectors, err)
	}

	var (
		both, lex, vec []time.Duration
		asked          [][]float32 // the first query vectors, for recall
		found          [][]string  // and the ids the index found for them
	)
	for b.Loop() {
		q := mnemo.TextQuery{Terms: c.words(3), Limit: 40}
		v := c.unit(c.topics[c.rng.IntN(len(c.topics))], 0.05)
		t := time.Now()
		if _, err := db.Search(ctx, scope, q); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		hits, err := db.SearchVectors(ctx, scope, mnemo.VectorQuery{Vector: v, Limit: 40})
		if err != nil {
			b.Fatal(err)
		}
		end := time.Now()
		both, lex, vec = append(both, end.Sub(t)), append(lex, mid.Sub(t)), append(vec, end.Sub(mid))
		if len(hits) != 40 {
			b.Fatalf("%d vector hits, want 40", len(hits))
		}
		if len(asked) < 20 {
			asked, found = append(asked, v), append(found, hitIDs(hits))
		}
	}
	// Recall: the share of the true 40 nearest (an exact scan) that the
	// index found, over the first 20 queries.
	exact, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, MaxConns: 1, NoMigrate: true, ExactSearchBelow: math.MaxInt32})
	if err != nil {
		b.Fatal(err)
	}
	defer exact.Close()
	var same, all int
	for i, v := range asked {
		hits, err := exact.SearchVectors(ctx, scope, mnemo.VectorQuery{Vector: v, Limit: 40})
		if err != nil {
			b.Fatal(err)
		}
		for _, id := range hitIDs(hits) {
			all++
			if slices.Contains(found[i], id) {
				same++
			}
		}
	}
	b.ReportMetric(float64(same)/float64(max(all, 1)), "recall@40")
	pct := func(lat []time.Duration, p float64) float64 {
		slices.Sort(lat)
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(both, 0.50), "p50-ms")
	b.ReportMetric(pct(both, 0.95), "p95-ms")
	b.ReportMetric(pct(lex, 0.50), "text-p50-ms")
	b.ReportMetric(pct(lex, 0.95), "text-p95-ms")
	b.ReportMetric(pct(vec, 0.50), "vector-p50-ms")
	b.ReportMetric(pct(vec, 0.95), "vector-p95-ms")
	b.ReportMetric(float64(n), "memories")
}

// BenchmarkTextSearch measures the full-text half of recall alone (40
// candidates for three words) on PostgreSQL 15, over MNEMO_BENCH_N
// memories (default 10,000) of one agent: the native figure beside PGlite's.
func BenchmarkTextSearch(b *testing.B) {
	n := 10000
	if s := os.Getenv("MNEMO_BENCH_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	db := benchStore(b, pgDSN(b), postgres.Options{})
	ctx := b.Context()
	c := newCorpus(0)
	st, err := db.Stats(ctx, scope)
	if err != nil {
		b.Fatal(err)
	}
	for i := st.Memories; i < n; i += 1000 {
		recs := make([]mnemo.Record, min(1000, n-i))
		for k := range recs {
			recs[k] = c.record(i + k)
		}
		if _, err := db.Write(ctx, scope, recs); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.Pool().Exec(ctx, `ANALYZE memory_entries`); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	for b.Loop() {
		t := time.Now()
		if _, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: c.words(3), Limit: 40}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*95/100)].Microseconds())/1000, "p95-ms")
}

func hitIDs(hits []mnemo.VectorHit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Memory.ID
	}
	return ids
}

// benchStore opens a store in a fresh schema, or, when MNEMO_BENCH_SCHEMA
// is set, in the schema of that name, kept for the next run (and for
// EXPLAIN): a benchmark loads only what it lacks.
func benchStore(b *testing.B, dsn string, opts postgres.Options) *postgres.DB {
	opts.Schema = os.Getenv("MNEMO_BENCH_SCHEMA")
	if opts.Schema == "" {
		return open(b, dsn, opts)
	}
	db, err := postgres.Open(b.Context(), dsn, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkAppendEvents appends batches of 100 events, each related to the
// previous event of its source by a look-up in the append's transaction,
// as the rules do; then reads them back page by page.
func BenchmarkAppendEvents(b *testing.B) {
	db := open(b, pgDSN(b), postgres.Options{})
	ctx := context.Background()
	sc := mnemo.Scope{TenantID: "bench", AgentID: "events"}
	relate := func(ctx context.Context, look mnemo.EventLookup, e mnemo.Event) ([]mnemo.Relation, error) {
		prev, ok, err := look.LastEvent(ctx, e.Scope, e.Source, nil, e.TS)
		if err != nil || !ok {
			return nil, err
		}
		return []mnemo.Relation{{Source: prev.ID, Target: e.ID, Type: mnemo.RelPrecedes, Confidence: 1, CreatedAt: e.TS}}, nil
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batch := make([]mnemo.Event, 100)
		for j := range batch {
			batch[j] = mnemo.Event{ID: fmt.Sprintf("e%d", n), Type: "step", Source: fmt.Sprintf("s%d", n%4), TS: t0.Add(time.Duration(n) * time.Second),
				Data: json.RawMessage(`{"text":"an event of the benchmark"}`)}
			n++
		}
		if _, err := db.AppendEvents(ctx, sc, batch, relate); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
	start := time.Now()
	q, read := mnemo.EventQuery{Limit: 500}, 0
	for {
		p, err := db.QueryEvents(ctx, sc, q)
		if err != nil {
			b.Fatal(err)
		}
		read += len(p.Events)
		if p.Next == "" {
			break
		}
		q.Cursor = p.Next
	}
	if read != n {
		b.Fatalf("read %d of %d", read, n)
	}
	b.ReportMetric(float64(read)/time.Since(start).Seconds(), "read-events/s")
}
