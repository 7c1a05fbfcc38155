package memory_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/embed/openai"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// The SQLite store says when its ANN index has not caught up with its
// vectors; recall flags such an answer degraded.
var _ memory.VectorLagSearcher = (*sqlite.DB)(nil)

// embeddingServer is an OpenAI-compatible /v1/embeddings server whose
// vectors come from GloVe, so that texts of like meaning are near. It can
// be taken down (503) or made to hang until the client gives up.
type embeddingServer struct {
	*httptest.Server
	down atomic.Bool
	hang atomic.Bool
}

func newEmbeddingServer(t *testing.T) *embeddingServer {
	s := &embeddingServer{}
	emb := glove.New()
	closing := make(chan struct{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.hang.Load() {
			// Read the body, so that the server notices the client
			// hanging up, then answer nothing.
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-closing:
			}
			return
		}
		if s.down.Load() {
			http.Error(w, "upstream down", http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		vecs, err := emb.Embed(r.Context(), req.Input)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []datum `json:"data"`
		}
		for i, v := range vecs {
			out.Data = append(out.Data, datum{i, v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(func() { close(closing); s.Close() })
	return s
}

// degradeCounter counts OnDegraded calls by cause.
type degradeCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *degradeCounter) add(cause string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[cause]++
}

func (c *degradeCounter) get(cause string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[cause]
}

// waitNoPending waits until every memory of scope has its vector.
func waitNoPending(t *testing.T, svc *service.Mnemo, scope mnemo.Scope) {
	t.Helper()
	ctx, cancel := testwait.Context(context.Background(), 30*time.Second)
	defer cancel()
	for {
		st, err := svc.Stats(ctx, scope)
		if err != nil {
			t.Fatal(err)
		}
		if st.Vectors != nil && st.Vectors.Pending == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("memories never embedded: %+v", st.Vectors)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// PG-3: with the embedding provider down, writes are kept and
// queued for their vectors, and recall answers from the lexical candidates
// re-scored by hashed TF-IDF similarity, said to be degraded, counted and
// ledgered; when the provider is back, the queue drains and recall is whole
// again. The TF-IDF vectors are never stored: the index keeps one space.
func TestEmbedderDownFallsBackToHashedTFIDF(t *testing.T) {
	ctx := context.Background()
	srv := newEmbeddingServer(t)
	emb, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "glove-remote", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	var counts degradeCounter
	svc := newSemantic(t, newClock(), "", service.Options{
		Embedder: emb, FallbackEmbedder: hashed.New(0), OnDegraded: counts.add,
	})
	if err := svc.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Remember(ctx, alice, draft("Lunch with Dana is moved to Thursday")); err != nil {
		t.Fatal(err)
	}

	srv.down.Store(true)
	written, err := svc.Remember(ctx, alice, draft("Dana prefers the Thai place for lunch"))
	if err != nil {
		t.Fatalf("a write during the outage: %v", err)
	}
	if st, err := svc.Stats(ctx, alice); err != nil || st.Vectors.Pending != 1 {
		t.Fatalf("the outage's write is not queued: %+v %v", st.Vectors, err)
	}
	res, err := svc.Surface(ctx, alice, memory.Query{Text: "lunch with Dana", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || !res.Degraded || !strings.Contains(res.Reason, "glove-remote unavailable") ||
		!strings.Contains(res.Reason, "hashed-tfidf") {
		t.Fatalf("during the outage: %q degraded %v %q", ids(res), res.Degraded, res.Reason)
	}
	for _, r := range res.Results {
		if r.Explain.Vector != "fallback" || r.Explain.Semantic <= 0 {
			t.Fatalf("%q is not re-scored by TF-IDF: %+v", r.Content, r.Explain)
		}
	}
	// The fallback's vectors were for this recall only.
	if m, err := svc.Get(ctx, alice, written.ID); err != nil || len(m.Embedding) != 0 {
		t.Fatalf("a fallback vector was stored: %d components, %v", len(m.Embedding), err)
	}
	if counts.get(mnemo.DegradedEmbedder) < 2 {
		t.Fatalf("degradations counted: %v", counts.n)
	}
	es, _, err := svc.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionDegrade})
	if err != nil {
		t.Fatal(err)
	}
	var sawWrite, sawRecall bool
	for _, e := range es {
		sawWrite = sawWrite || strings.Contains(e.Reason, "queued for embedding")
		sawRecall = sawRecall || strings.Contains(e.Reason, "re-scored by hashed-tfidf")
	}
	if !sawWrite || !sawRecall {
		t.Fatalf("ledger: %+v", es)
	}

	srv.down.Store(false)
	waitNoPending(t, svc, alice)
	// By meaning alone (no word in common): the vector index is back.
	res, err = svc.Surface(ctx, alice, memory.Query{Text: "a meal with a friend", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Degraded {
		t.Fatalf("after the outage: %q degraded %v %q", ids(res), res.Degraded, res.Reason)
	}
	for _, r := range res.Results {
		if r.Explain.Vector != "indexed" {
			t.Fatalf("%q: %+v", r.Content, r.Explain)
		}
	}
}

// A provider that hangs degrades recall once the query's embedding takes
// longer than its timeout, rather than stalling it.
func TestEmbedderTimeoutDegrades(t *testing.T) {
	ctx := context.Background()
	srv := newEmbeddingServer(t)
	emb, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "glove-remote", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	svc := newSemantic(t, newClock(), "", service.Options{
		Embedder: emb, FallbackEmbedder: hashed.New(0), QueryEmbedTimeout: 100 * time.Millisecond, AsyncEmbedding: true,
	})
	if err := svc.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Remember(ctx, alice, draft("The staging token rotates every Monday")); err != nil {
		t.Fatal(err)
	}
	srv.hang.Store(true)
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "staging token"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || !res.Degraded || !strings.Contains(res.Reason, "hashed-tfidf") {
		t.Fatalf("%q degraded %v %q", ids(res), res.Degraded, res.Reason)
	}
	srv.hang.Store(false)
}

// Without a fallback embedder the lexical score alone answers, still
// flagged.
func TestEmbedderDownWithoutFallback(t *testing.T) {
	ctx := context.Background()
	g := newGated(glove.New())
	close(g.open)
	svc := newSemantic(t, newClock(), "", service.Options{Embedder: g})
	if _, err := svc.Remember(ctx, alice, draft("Lunch with Dana is moved to Thursday")); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	g.broken = true
	g.mu.Unlock()
	res, err := svc.Surface(ctx, alice, memory.Query{Text: "lunch with Dana", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || !res.Degraded || !strings.Contains(res.Reason, "lexical index alone") ||
		res.Results[0].Explain.Vector == "fallback" {
		t.Fatalf("%q degraded %v %q", ids(res), res.Degraded, res.Reason)
	}
}

// lexicalOnly is a real store seen without its vectors: a backend
// that keeps no vectors.
type lexicalOnly struct{ mnemo.LifecycleStore }

// PG-2 on a store with no vector index: memories are written
// without vectors and recall answers by full text and recency, flagged,
// counted and ledgered.
func TestNoVectorIndexDegradesToFullText(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	var counts degradeCounter
	svc := service.New(lexicalOnly{db}, service.Options{Now: c.Now, Embedder: glove.New(), OnDegraded: counts.add})
	defer svc.Close()
	if _, err := svc.Remember(ctx, alice, draft("some content")); err != nil {
		t.Fatal(err)
	}
	for _, profile := range []string{"", "semantic"} {
		res, err := svc.Recall(ctx, alice, memory.Query{Text: "content", Profile: profile})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != 1 || !res.Degraded || !strings.Contains(res.Reason, "no vector index") {
			t.Fatalf("profile %q: %q degraded %v %q", profile, ids(res), res.Degraded, res.Reason)
		}
	}
	if counts.get(mnemo.DegradedVectorIndex) != 3 {
		t.Fatalf("counted: %v", counts.n)
	}
	if es, n, err := svc.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionDegrade}); err != nil || n != 2 {
		t.Fatalf("ledger: %+v %v", es, err)
	}
}

// ctxEmbedder embeds with hashed vectors unless its context has ended,
// as an embedder that checks its context between steps does.
type ctxEmbedder struct{ mnemo.Embedder }

func (e ctxEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return e.Embedder.Embed(ctx, texts)
}

// inProcess is ctxEmbedder as an in-process model: it loads.
type inProcess struct{ ctxEmbedder }

func (inProcess) Load() (time.Duration, error) { return 0, nil }

// Only a remote provider's query embedding is timed (EMB-8): an in-process
// model's is bounded work, answered alike however long a busy machine
// takes over it, where a remote one past its timeout degrades the recall.
func TestQueryEmbedTimeoutRemoteOnly(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		emb      mnemo.Embedder
		degraded bool
	}{
		{"remote", ctxEmbedder{hashed.New(0)}, true},
		{"in process", inProcess{ctxEmbedder{hashed.New(0)}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// A timeout already spent: what a slow embedding meets.
			svc := newSemantic(t, newClock(), "", service.Options{Embedder: tt.emb, QueryEmbedTimeout: time.Nanosecond})
			if err := svc.Init(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Remember(ctx, alice, draft("Deploys happen on Tuesdays")); err != nil {
				t.Fatal(err)
			}
			res, err := svc.Recall(ctx, alice, memory.Query{Text: "which day are deploys?", Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Results) != 1 || res.Degraded != tt.degraded {
				t.Fatalf("%q degraded %v %q, want degraded %v", ids(res), res.Degraded, res.Reason, tt.degraded)
			}
			if vec := res.Results[0].Explain.Vector; !tt.degraded && vec != "indexed" {
				t.Fatalf("vector %q, want indexed", vec)
			}
		})
	}
}
