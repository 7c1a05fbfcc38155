package memory_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// shut is a real embedder (GloVe) that never answers while its gate is
// shut: the worker stays behind the writes.
type shut struct {
	*glove.Embedder
	open chan struct{}
}

func (g shut) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-g.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Embedder.Embed(ctx, texts)
}

// TestAsyncEmbeddingSurvivesClose: in async mode (embedding.mode async)
// writes, conversation messages and WriteWith's bulk writes are
// acknowledged with no vector made; closing the service loses none of
// them, since the queue is the store's rows without a vector; the next
// service embeds them, and recall then finds them by meaning (MEM-3,
// PERF-1).
func TestAsyncEmbeddingSurvivesClose(t *testing.T) {
	c := newClock()
	dir := t.TempDir()
	ctx := context.Background()
	emb := shut{glove.New(), make(chan struct{})}
	svc := newSemantic(t, c, dir, service.Options{Embedder: emb, QueryEmbedder: glove.New(), AsyncEmbedding: true})
	if _, err := svc.Remember(ctx, alice, draft("my cat sleeps on the warm windowsill")); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{
		{Role: "user", Content: "we should book the flight to Lisbon"},
		{Role: "assistant", Content: "I will look at fares on Tuesday"},
	}); err != nil {
		t.Fatal(err)
	}
	drafts := make([]mnemo.Draft, 100)
	for i := range drafts {
		drafts[i] = draft("quarterly tax filing receipts number " + strings.Repeat("x", i%7+1))
	}
	if _, err := svc.WriteWith(ctx, alice, drafts, memory.WriteOptions{AsyncEmbedding: true}); err != nil {
		t.Fatal(err)
	}
	st, err := svc.Stats(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != 103 {
		t.Fatalf("stats: %+v", st)
	}
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "windowsill", Explain: true})
	if err != nil || len(res.Results) == 0 || res.Results[0].Explain.Vector != "pending" {
		t.Fatalf("before the vectors: %+v %v", res, err)
	}
	if err := svc.Close(); err != nil { // the worker is stuck on the shut gate
		t.Fatal(err)
	}

	svc = newSemantic(t, c, dir, service.Options{Embedder: glove.New()})
	wctx, cancel := testwait.Context(ctx, 30*time.Second)
	defer cancel()
	if err := svc.WaitEmbedded(wctx); err != nil {
		t.Fatal(err)
	}
	res, err = svc.Recall(ctx, alice, memory.Query{Text: "kitten napping", Profile: "semantic", Explain: true})
	if err != nil || len(res.Results) == 0 || !strings.Contains(res.Results[0].Content, "cat") || res.Results[0].Explain.Vector != "indexed" {
		t.Fatalf("after reopening: want the cat by meaning: %+v %v", res, err)
	}
	res, err = svc.Recall(ctx, alice, memory.Query{Text: "airplane trip", Profile: "semantic", Explain: true})
	if err != nil || len(res.Results) == 0 || res.Results[0].Explain.Vector != "indexed" {
		t.Fatalf("messages embedded after reopening: %+v %v", res, err)
	}
}

// loading is a real embedder (GloVe) that counts its loads, as an
// in-process model read on first use does (embed.Loader).
type loading struct {
	*glove.Embedder
	loaded chan struct{}
}

func (l loading) Load() (time.Duration, error) {
	select {
	case l.loaded <- struct{}{}:
	default:
	}
	return 0, nil
}

// TestModelLoadsAtStart: a service loads an in-process model in the
// background as it starts, before any write or recall, so that the first
// recall does not wait for it (PERF-2).
func TestModelLoadsAtStart(t *testing.T) {
	emb := loading{glove.New(), make(chan struct{}, 1)}
	svc := newSemantic(t, newClock(), t.TempDir(), service.Options{Embedder: emb})
	if err := svc.Init(context.Background()); err != nil { // as serve and service.Open do
		t.Fatal(err)
	}
	select {
	case <-emb.loaded:
	case <-testwait.After(t, 30*time.Second):
		t.Fatal("the model was not loaded at start")
	}
}
