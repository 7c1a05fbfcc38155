package memory_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/cache"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/embed/random"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

func ids(res memory.Result) []string {
	var out []string
	for _, r := range res.Results {
		out = append(out, r.Content)
	}
	return out
}

// REC-8: a Chinese query finds the Chinese memory it is about,
// with a relevance over 0.7.
func TestSeed000Scenario1ChineseRecall(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newSemantic(t, c, "", service.Options{})
	for _, d := range []mnemo.Draft{
		draft("急跌后反弹信号2小时内有效", "trading", "lesson"),
		draft("周末和朋友去看了电影"),
		draft("The deploy script needs the staging token"),
	} {
		if _, err := svc.Remember(ctx, alice, d); err != nil {
			t.Fatal(err)
		}
	}
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "市场暴跌后的反弹规律", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].Content != "急跌后反弹信号2小时内有效" {
		t.Fatalf("results %q", ids(res))
	}
	if top := res.Results[0]; top.Score <= 0.7 {
		t.Fatalf("score %.3f, want > 0.7 (%+v)", top.Score, top.Explain)
	}
	if res.Results[0].Explain.Vector != "indexed" || res.Results[0].Embedding != nil {
		t.Fatalf("explain %+v, embedding %d", res.Results[0].Explain, len(res.Results[0].Embedding))
	}
}

// REC-3: of two similar memories, the one a day old ranks
// above the one a month old.
func TestSeed000Scenario2TimeDecay(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newSemantic(t, c, "", service.Options{})
	old, fresh := c.T.AddDate(0, 0, -30), c.T.AddDate(0, 0, -1)
	if _, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("The nightly backup job failed because the disk was full"), CreatedAt: &old}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("The nightly backup job failed because the disk filled up"), CreatedAt: &fresh}); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Surface(ctx, alice, memory.Query{Text: "why did the backup fail", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || !strings.Contains(res.Results[0].Content, "filled up") {
		t.Fatalf("results %q", ids(res))
	}
	decay := func(r memory.Scored) float64 {
		for _, c := range r.Explain.Components {
			if c.Name == "decay" {
				return c.Value
			}
		}
		t.Fatalf("no decay component in %+v", r.Explain)
		return 0
	}
	if !(decay(res.Results[0]) > decay(res.Results[1])) {
		t.Fatalf("decay %v then %v", decay(res.Results[0]), decay(res.Results[1]))
	}
}

// OPS-1, EMB-5: mock mode, with seeded random vectors and nothing
// else, still remembers and recalls.
func TestSeed000Scenario5MockMode(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newSemantic(t, c, "", service.Options{Embedder: random.New(64, 42)})
	if _, err := svc.Remember(ctx, alice, draft("test memory")); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Content != "test memory" || res.Degraded {
		t.Fatalf("results %q degraded %v", ids(res), res.Degraded)
	}
}

// A memory is found by meaning when it shares no word with the query.
func TestRecallByMeaning(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newSemantic(t, c, "", service.Options{})
	for _, s := range []string{
		"My car broke down on the highway last night",
		"She adopted a kitten from the shelter",
		"The quarterly report is due on Friday",
		"We planted tomatoes and basil in the garden",
	} {
		if _, err := svc.Remember(ctx, alice, draft(s)); err != nil {
			t.Fatal(err)
		}
	}
	for q, want := range map[string]string{
		"vehicle trouble":         "My car broke down on the highway last night",
		"pets":                    "She adopted a kitten from the shelter",
		"vegetables we grew":      "We planted tomatoes and basil in the garden",
		"deadline for the budget": "The quarterly report is due on Friday",
	} {
		res, err := svc.Surface(ctx, alice, memory.Query{Text: q, Limit: 1, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) != 1 || res.Results[0].Content != want {
			t.Errorf("%q: got %q, want %q", q, ids(res), want)
			continue
		}
		if ex := res.Results[0].Explain; ex.Lexical != 0 || ex.Semantic != 1 {
			t.Errorf("%q: lexical %v semantic %v, want found by meaning alone", q, ex.Lexical, ex.Semantic)
		}
	}
	// The lexical profile cannot find them.
	res, err := svc.Surface(ctx, alice, memory.Query{Text: "vehicle trouble", Profile: "lexical"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 0 {
		t.Fatalf("lexical found %q", ids(res))
	}
}

// gated is an embedder that waits for its gate to open, or fails while
// broken: a stand-in for a slow or unreachable embedding service.
type gated struct {
	mnemo.Embedder
	mu     sync.Mutex
	open   chan struct{}
	broken bool
}

func newGated(inner mnemo.Embedder) *gated {
	return &gated{Embedder: inner, open: make(chan struct{})}
}

func (g *gated) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	g.mu.Lock()
	broken, open := g.broken, g.open
	g.mu.Unlock()
	if broken {
		return nil, errors.New("connection refused")
	}
	select {
	case <-open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Embedder.Embed(ctx, texts)
}

// Asynchronous embedding: a write is acknowledged before its vector is made;
// the memory is found lexically at once, "pending" in explain, and by meaning
// once the vector lands.
func TestAsyncEmbeddingIsFoundLexicallyAtOnce(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	g := newGated(glove.New())
	close(g.open) // the vector space probe and the query pass ...
	svc := newSemantic(t, c, "", service.Options{Embedder: g, QueryEmbedder: glove.New(), AsyncEmbedding: true})
	if err := svc.Init(ctx); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	g.open = make(chan struct{}) // ... and the worker waits
	g.mu.Unlock()

	if _, err := svc.Remember(ctx, alice, draft("The staging database password rotates every Monday")); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Surface(ctx, alice, memory.Query{Text: "staging password", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Explain.Vector != "pending" {
		t.Fatalf("before the vector: %q %+v", ids(res), res.Results)
	}
	st, err := svc.Stats(ctx, alice)
	if err != nil || st.Vectors == nil || st.Vectors.Pending != 1 {
		t.Fatalf("stats %+v %v", st.Vectors, err)
	}

	close(g.open)
	wctx, cancel := testwait.Context(ctx, 10*time.Second)
	defer cancel()
	if err := svc.WaitEmbedded(wctx); err != nil {
		t.Fatal(err)
	}
	res, err = svc.Surface(ctx, alice, memory.Query{Text: "credentials change weekly", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Explain.Vector != "indexed" {
		t.Fatalf("after the vector: %q", ids(res))
	}
}

// With the embedder down, writes still succeed and recall answers from the
// lexical index, saying it is degraded; once it is back, the queue drains.
func TestEmbedderOutageDegradesToLexical(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	g := newGated(glove.New())
	close(g.open)
	svc := newSemantic(t, c, "", service.Options{Embedder: g})
	if err := svc.Init(ctx); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	g.broken = true
	g.mu.Unlock()

	if _, err := svc.Remember(ctx, alice, draft("Lunch with Dana is moved to Thursday")); err != nil {
		t.Fatalf("write during an outage: %v", err)
	}
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "lunch with Dana"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || !res.Degraded || !strings.Contains(res.Reason, "unavailable") {
		t.Fatalf("during the outage: %q degraded %v %q", ids(res), res.Degraded, res.Reason)
	}
	// The degradations (the write's, the recall's) are in the ledger, once
	// each however many recalls say it.
	svc.Recall(ctx, alice, memory.Query{Text: "lunch with Dana"})
	if es, n, _ := svc.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionDegrade}); n != 2 || !strings.Contains(es[0].Reason, "unavailable") {
		t.Fatalf("degradations in the ledger: %+v", es)
	}

	g.mu.Lock()
	g.broken = false
	g.mu.Unlock()
	wctx, cancel := testwait.Context(ctx, 10*time.Second)
	defer cancel()
	// The worker retries with backoff; wait for the queue, not the clock.
	for {
		st, err := svc.Stats(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		if st.Vectors.Pending == 0 {
			break
		}
		select {
		case <-wctx.Done():
			t.Fatal("the queued memory was never embedded")
		case <-time.After(50 * time.Millisecond):
		}
	}
	res, err = svc.Recall(ctx, alice, memory.Query{Text: "meeting a friend for a meal"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Degraded {
		t.Fatalf("after the outage: %q degraded %v %q", ids(res), res.Degraded, res.Reason)
	}
}

// A store embedded with one model refuses another until it is reindexed.
func TestModelMismatchAndReindex(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "mnemo.db"), sqlite.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(db, service.Options{Now: c.Now, Embedder: glove.New()})
	for _, s := range []string{"alpha beta", "gamma delta", "epsilon"} {
		if _, err := svc.Remember(ctx, alice, draft(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}

	svc = newSemantic(t, c, dir, service.Options{Embedder: random.New(32, 7)})
	err = svc.Init(ctx)
	if mnemo.ErrorCode(err) != mnemo.EMISMATCH || !strings.Contains(err.Error(), "reindex") {
		t.Fatalf("Init with another model: %v", err)
	}
	var last [2]int
	if err := svc.Reindex(ctx, func(done, total int) { last = [2]int{done, total} }); err != nil {
		t.Fatal(err)
	}
	if last != [2]int{3, 3} {
		t.Fatalf("progress ended at %v", last)
	}
	st, err := svc.Stats(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if v := st.Vectors; v.Model != "random-32-7" || v.Dimension != 32 || v.Embedded != 3 || v.Pending != 0 {
		t.Fatalf("after reindex: %+v", v)
	}
	m, err := svc.GetByKey(ctx, alice, "/missing")
	if mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("%v %v", m, err)
	}
}

// Forgetting and rewriting a memory change what vector search finds, at
// once: the ANN index never answers with a memory that is gone or changed.
func TestVectorSearchFollowsWrites(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newSemantic(t, c, "", service.Options{})
	m, err := svc.Remember(ctx, alice, mnemo.Draft{Key: "/pets", Content: str("She adopted a kitten from the shelter")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Remember(ctx, alice, draft("The quarterly report is due on Friday")); err != nil {
		t.Fatal(err)
	}
	find := func(q string) []string {
		res, err := svc.Surface(ctx, alice, memory.Query{Text: q, Limit: 1, Profile: "semantic"})
		if err != nil {
			t.Fatal(err)
		}
		return ids(res)
	}
	if got := find("animals"); len(got) != 1 || got[0] != m.Content {
		t.Fatalf("before: %q", got)
	}
	if _, err := svc.Remember(ctx, alice, mnemo.Draft{Key: "/pets", Content: str("We sold the old piano to a neighbour")}); err != nil {
		t.Fatal(err)
	}
	if got := find("musical instrument"); len(got) != 1 || got[0] != "We sold the old piano to a neighbour" {
		t.Fatalf("after the rewrite: %q", got)
	}
	if _, err := svc.Forget(ctx, alice, nil, []string{"/pets"}); err != nil {
		t.Fatal(err)
	}
	if got := find("musical instrument"); len(got) != 1 || got[0] != "The quarterly report is due on Friday" {
		t.Fatalf("after forget: %q", got)
	}
	// Other agents never see each other's vectors.
	res, err := svc.Surface(ctx, bob, memory.Query{Text: "report", Profile: "semantic"})
	if err != nil || len(res.Results) != 0 {
		t.Fatalf("bob sees %q %v", ids(res), err)
	}
}

// REC-19: surface's weighting ranks by priority × vitality ×
// keyword hits, filters by type and vitality, and records no access.
func TestSeed003Surface(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newSemantic(t, c, "", service.Options{})
	p0, p3 := 0, 3
	if _, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("deploy the api to kitty"), Type: "event", Priority: &p3}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("deploy checklist: tag, build, deploy"), Type: "knowledge", Priority: &p0}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("felt relieved after the deploy"), Type: "emotion"}); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Surface(ctx, alice, memory.Query{Text: "deploy api", Profile: "seed003", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 3 || res.Results[0].Priority != 0 {
		t.Fatalf("order %q", ids(res))
	}
	for _, r := range res.Results {
		if r.AccessCount != 0 {
			t.Fatalf("surface recorded an access: %+v", r.Memory)
		}
	}
	res, err = svc.Surface(ctx, alice, memory.Query{Text: "deploy", Profile: "seed003", Filter: mnemo.Filter{Types: []string{"emotion"}}})
	if err != nil || len(res.Results) != 1 || res.Results[0].Type != "emotion" {
		t.Fatalf("type filter: %q %v", ids(res), err)
	}
	all, _, err := svc.List(ctx, alice, mnemo.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if m.AccessCount != 0 {
			t.Fatalf("surface recorded an access: %+v", m)
		}
	}
	// A faded memory (vitality 0.3, as lifecycle leaves it) falls under a
	// vitality threshold of 0.5.
	faded := `{"content":"deploy notes from last year","type":"event","vitality":0.3}` + "\n"
	if _, err := svc.Import(ctx, strings.NewReader(faded), memory.ImportOptions{Scope: &alice}); err != nil {
		t.Fatal(err)
	}
	res, err = svc.Surface(ctx, alice, memory.Query{Text: "deploy notes", Profile: "seed003"})
	if err != nil || len(res.Results) != 4 {
		t.Fatalf("no threshold: %q %v", ids(res), err)
	}
	res, err = svc.Surface(ctx, alice, memory.Query{Text: "deploy notes", Profile: "seed003", Filter: mnemo.Filter{MinVitality: 0.5}})
	if err != nil || len(res.Results) != 3 {
		t.Fatalf("min_vitality 0.5: %q %v", ids(res), err)
	}
	for _, r := range res.Results {
		if r.Vitality < 0.5 {
			t.Fatalf("min_vitality 0.5 returned %+v", r.Memory)
		}
	}
	_, err = svc.Surface(ctx, alice, memory.Query{Text: "deploy", Filter: mnemo.Filter{MinVitality: 1.5}})
	if mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Fatalf("min_vitality 1.5: %v", err)
	}
}

// Query embeddings are cached (EMB-4), and stats report the
// cache's hit rate.
func TestQueryCacheHitRate(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	emb := glove.New()
	svc := newSemantic(t, c, "", service.Options{Embedder: emb, QueryEmbedder: cache.New(emb, 10)})
	if _, err := svc.Remember(ctx, alice, draft("The office moves to the fifth floor in May")); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"office move", "office move", "office move", "new floor"} {
		if _, err := svc.Recall(ctx, alice, memory.Query{Text: q}); err != nil {
			t.Fatal(err)
		}
	}
	// The ANN index takes vectors in the background: catch it up, or a
	// loaded machine finds it behind (Indexed 0).
	if err := svc.Store().(interface{ IndexVectors(context.Context) error }).IndexVectors(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := svc.Stats(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if st.Vectors == nil || st.Vectors.CacheHitRate == nil || *st.Vectors.CacheHitRate != 0.5 {
		t.Fatalf("vector stats %+v", st.Vectors)
	}
	if st.Vectors.Model != emb.Model() || st.Vectors.Embedded != 1 || st.Vectors.Indexed != 1 {
		t.Fatalf("vector stats %+v", st.Vectors)
	}
}

// The semantic profile on a service with no embedder answers lexically and
// says so.
func TestSemanticProfileWithoutEmbedder(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newService(t, c)
	if _, err := svc.Remember(ctx, alice, draft("The printer on floor two is broken")); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Surface(ctx, alice, memory.Query{Text: "printer", Profile: "semantic"})
	if err != nil || len(res.Results) != 1 || !res.Degraded || !strings.Contains(res.Reason, "no embedder") {
		t.Fatalf("%q degraded %v %q %v", ids(res), res.Degraded, res.Reason, err)
	}
}
