package postgres_test

import (
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/storetest"
)

func remember(t *testing.T, svc *service.Mnemo, text string, tags ...string) mnemo.Memory {
	t.Helper()
	m, err := svc.Remember(t.Context(), scope, mnemo.Draft{Content: &text, Tags: tags})
	if err != nil {
		t.Fatalf("Remember(%q): %v", text, err)
	}
	return m
}

func recall(t *testing.T, svc *service.Mnemo, query string) memory.Result {
	t.Helper()
	res, err := svc.Recall(t.Context(), scope, memory.Query{Text: query})
	if err != nil {
		t.Fatalf("Recall(%q): %v", query, err)
	}
	return res
}

// TestServiceChinese checks that Chinese is found through the segmented
// text the Service indexes, and that no raw run of Chinese is a lexeme.
func TestServiceChinese(t *testing.T) {
	dsn := pgDSN(t)
	schema := newSchema(t, dsn)
	db := open(t, dsn, postgres.Options{Schema: schema})
	svc := service.New(db, service.Options{})
	want := remember(t, svc, "急跌后反弹信号2小时内有效", "trading", "lesson")
	remember(t, svc, "用户喜欢简洁的回答")
	res := recall(t, svc, "反弹信号")
	if len(res.Results) == 0 || res.Results[0].ID != want.ID {
		t.Fatalf("Recall(反弹信号) = %+v, want %s first", res.Results, want.ID)
	}
	var lexemes string
	if err := connect(t, dsn).QueryRow(t.Context(), `SELECT string_agg(tsv::text, ' ') FROM `+schema+`.memory_entries`).Scan(&lexemes); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(lexemes, "急跌后反弹信号") || !strings.Contains(lexemes, "'反弹'") {
		t.Errorf("lexemes %s: want bigrams, not runs of Chinese", lexemes)
	}
}

// TestServiceWithoutPgvector is PG-2 on PostgreSQL 15,
// which has no pgvector: a memory is written without a vector, and recall
// answers from full text, saying that it degraded.
func TestServiceWithoutPgvector(t *testing.T) {
	dsn := pgDSN(t)
	schema := newSchema(t, dsn)
	db := open(t, dsn, postgres.Options{Schema: schema})
	svc := service.New(db, service.Options{Embedder: hashed.New(64)})
	defer svc.Close()
	m := remember(t, svc, "some content")
	var embedded bool
	err := connect(t, dsn).QueryRow(t.Context(), `SELECT embedding IS NOT NULL OR vectored FROM `+schema+`.memory_entries WHERE id = $1`, m.ID).Scan(&embedded)
	if err != nil || embedded {
		t.Fatalf("stored with a vector: %v, %v", embedded, err)
	}
	res := recall(t, svc, "content")
	if len(res.Results) != 1 || res.Results[0].ID != m.ID {
		t.Fatalf("Recall = %+v, want the memory", res.Results)
	}
	if !res.Degraded || !strings.Contains(res.Reason, "no vector index") {
		t.Errorf("Recall degraded=%v reason %q, want degraded for want of a vector index", res.Degraded, res.Reason)
	}
}

// TestServiceSemantic runs the Service on pgvector: memories are embedded
// on write, and recall finds them by both indexes without degrading.
func TestServiceSemantic(t *testing.T) {
	dsn := pgvectorDSN(t)
	ensureVector(t, dsn)
	serialize(t)
	db := open(t, dsn, postgres.Options{MaxConns: 1})
	svc := service.New(db, service.Options{Embedder: hashed.New(64)})
	defer svc.Close()
	if err := svc.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := remember(t, svc, "the deploy pipeline runs on friday afternoons")
	remember(t, svc, "the user prefers tea over coffee")
	res := recall(t, svc, "when does the deploy pipeline run")
	if res.Degraded || len(res.Results) == 0 || res.Results[0].ID != want.ID {
		t.Fatalf("Recall = %+v degraded=%v %q, want %s first", res.Results, res.Degraded, res.Reason, want.ID)
	}
	st, err := db.Stats(t.Context(), scope)
	if err != nil || st.Vectors == nil || st.Vectors.Embedded != 2 || st.Vectors.Model != "hashed-tfidf-64" {
		t.Fatalf("Stats.Vectors = %+v, %v", st.Vectors, err)
	}
	hits, err := db.SearchVectors(t.Context(), scope, mnemo.VectorQuery{Vector: mustEmbed(t, hashed.New(64), "deploy pipeline friday"), Limit: 1})
	if err != nil || len(hits) != 1 || hits[0].Memory.ID != want.ID {
		t.Fatalf("SearchVectors = %+v, %v", hits, err)
	}
}

func mustEmbed(t *testing.T, e mnemo.Embedder, text string) []float32 {
	t.Helper()
	vs, err := e.Embed(t.Context(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return vs[0]
}

// TestWithoutPgvectorSaysItOnce checks, on PostgreSQL 15 (no pgvector),
// that stats count nothing pending (no vector will ever be made), and that
// the degradation is logged once a process, not per write or recall, while
// every occurrence is counted.
func TestWithoutPgvectorSaysItOnce(t *testing.T) {
	dsn := pgDSN(t)
	db := open(t, dsn, postgres.Options{Schema: newSchema(t, dsn)})
	var (
		logs    strings.Builder
		mu      sync.Mutex
		counted int
	)
	svc := service.New(db, service.Options{
		Embedder: hashed.New(64),
		Logger:   slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil)),
		OnDegraded: func(string) {
			mu.Lock()
			counted++
			mu.Unlock()
		},
	})
	defer svc.Close()
	if err := svc.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"first memory", "second memory", "third memory"} {
		remember(t, svc, text)
	}
	recall(t, svc, "memory")
	recall(t, svc, "third")
	st, err := svc.Stats(t.Context(), scope)
	if err != nil {
		t.Fatal(err)
	}
	if st.Vectors == nil || st.Vectors.Pending != 0 || st.Vectors.Unavailable == "" {
		t.Errorf("Stats.Vectors = %+v, want nothing pending and why vectors are unavailable", st.Vectors)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 {
		t.Errorf("%d warnings, want the degradation logged once:\n%s", n, logs.String())
	}
	if counted < 5 {
		t.Errorf("%d degradations counted, want one per write and recall (5)", counted)
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestImportAcrossScopes: an export imports into another agent of the same
// store, and a tenant's import reveals nothing of another's ids.
func TestImportAcrossScopes(t *testing.T) {
	dsn := pgDSN(t)
	storetest.ImportAcrossScopes(t, open(t, dsn, postgres.Options{Schema: newSchema(t, dsn)}))
}

// TestImportRevisions: a later revision of a memory the store holds
// changes it, keyed or keyless, and every count is true (API-22).
func TestImportRevisions(t *testing.T) {
	dsn := pgDSN(t)
	storetest.ImportRevisions(t, open(t, dsn, postgres.Options{Schema: newSchema(t, dsn)}))
}
