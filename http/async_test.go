package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/embed/glove"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// gated is a real embedder (GloVe) that makes no vector before open is
// closed: the background worker waits, so that what a write acknowledged
// without vectors can be seen.
type gated struct {
	*glove.Embedder
	open chan struct{}
}

func (g gated) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-g.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Embedder.Embed(ctx, texts)
}

// TestBatchAsyncEmbedding: POST /v1/memories/batch with async_embedding is
// acknowledged before any vector is made (the embedder is held shut; a
// synchronous write would wait for it), recall meanwhile finds the
// memories by their words and explain says their vector is pending; once
// the worker has embedded them, recall finds them by meaning (MEM-3,
// PERF-1).
func TestBatchAsyncEmbedding(t *testing.T) {
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	emb := gated{glove.New(), make(chan struct{})}
	svc := service.New(db, service.Options{Embedder: emb, QueryEmbedder: glove.New()})
	if err := svc.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv := mhttp.NewServer(svc, mhttp.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		svc.Close()
	})
	base := "http://" + ln.Addr().String()
	client := &http.Client{Timeout: testwait.D(10 * time.Second)}
	post := func(path string, body any) (int, []byte) {
		t.Helper()
		b, _ := json.Marshal(body)
		resp, err := client.Post(base+path, "application/json", strings.NewReader(string(b)))
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		defer resp.Body.Close()
		var out json.RawMessage
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}

	mems := []map[string]any{{"content": "my cat sleeps on the warm windowsill every afternoon"}}
	for i := range 49 {
		mems = append(mems, map[string]any{"content": fmt.Sprintf("note %d about quarterly tax filing deadlines and receipts", i)})
	}
	code, body := post("/v1/memories/batch", map[string]any{"agent_id": "a", "memories": mems, "async_embedding": true})
	if code != 201 {
		t.Fatalf("batch: %d %s", code, body)
	}
	var ack struct{ IDs []string }
	json.Unmarshal(body, &ack)
	if len(ack.IDs) != 50 {
		t.Fatalf("batch acknowledged %d ids: %s", len(ack.IDs), body)
	}

	type result struct {
		Results []struct {
			Content string
			Explain struct{ Vector string }
		}
	}
	recall := func(q, profile string) result {
		t.Helper()
		code, body := post("/v1/recall", map[string]any{"agent_id": "a", "query": q, "explain": true, "profile": profile})
		if code != 200 {
			t.Fatalf("recall: %d %s", code, body)
		}
		var r result
		json.Unmarshal(body, &r)
		return r
	}
	r := recall("cat windowsill", "")
	if len(r.Results) == 0 || !strings.Contains(r.Results[0].Content, "cat") || r.Results[0].Explain.Vector != "pending" {
		t.Fatalf("before the vectors: want the cat, found by its words, vector pending: %+v", r)
	}

	close(emb.open)
	ctx, cancel := testwait.Context(t.Context(), 30*time.Second)
	defer cancel()
	if err := svc.WaitEmbedded(ctx); err != nil {
		t.Fatal(err)
	}
	// By meaning alone: no word of the query is in the memory.
	r = recall("kitten napping", "semantic")
	if len(r.Results) == 0 || !strings.Contains(r.Results[0].Content, "cat") || r.Results[0].Explain.Vector != "indexed" {
		t.Fatalf("after the vectors: want the cat first by meaning, vector indexed: %+v", r)
	}
}
