package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/memory"
)

// fakeOpenAI is an OpenAI-compatible /v1/embeddings server whose vectors are
// hashed TF-IDF vectors, so that similar texts get similar vectors. While
// down, it answers 503.
type fakeOpenAI struct {
	*httptest.Server
	down  atomic.Bool
	calls atomic.Int64
}

func newFakeOpenAI(t *testing.T) *fakeOpenAI {
	f := &fakeOpenAI{}
	emb := hashed.New(64)
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer sk-test-0123456789" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if f.down.Load() {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		vecs, _ := emb.Embed(r.Context(), req.Input)
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Data []datum `json:"data"`
		}{}
		for i, v := range vecs {
			out.Data = append(out.Data, datum{i, v})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(f.Close)
	return f
}

// The OpenAI-compatible provider, end to end through `mnemo serve`: writes
// are acknowledged at once and embedded in the background; while the
// provider is down recall answers from the lexical candidates re-scored by
// hashed TF-IDF, says so and counts it; a store embedded
// by one provider is refused by another until `mnemo reindex`.
func TestServeWithOpenAIEmbedder(t *testing.T) {
	fake := newFakeOpenAI(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mnemo.yml")
	os.WriteFile(cfg, []byte(`embedding:
  provider: openai
  openai:
    base_url: `+fake.URL+`/v1
    model: fake-embed
    api_key: sk-test-0123456789
    max_retries: -1
`), 0o644)
	data := filepath.Join(dir, "data")
	base := startServe(t, "--config", cfg, "--data", data)

	post := func(path, body string) (int, []byte) {
		t.Helper()
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	stats := func() mnemo.Stats {
		t.Helper()
		resp, err := http.Get(base + "/v1/stats?agent_id=a")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st mnemo.Stats
		json.NewDecoder(resp.Body).Decode(&st)
		return st
	}
	waitEmbedded := func() {
		t.Helper()
		testwait.Until(t, 20*time.Second, "the vectors to land", func() bool {
			st := stats()
			return st.Vectors != nil && st.Vectors.Pending == 0
		})
	}

	if code, b := post("/v1/memories", `{"agent_id":"a","content":"The invoice service retries failed payments three times"}`); code != 201 {
		t.Fatalf("remember: %d %s", code, b)
	}
	waitEmbedded()
	if st := stats(); st.Vectors.Model != "openai:fake-embed" || st.Vectors.Dimension != 64 || st.Vectors.Embedded != 1 {
		t.Fatalf("vector stats %+v", st.Vectors)
	}
	var res memory.Result
	code, b := post("/v1/recall", `{"agent_id":"a","query":"payment retries","explain":true}`)
	if json.Unmarshal(b, &res); code != 200 || len(res.Results) != 1 || res.Results[0].Explain.Vector != "indexed" || res.Degraded {
		t.Fatalf("recall: %d %s", code, b)
	}

	// The provider goes down: writes are still acknowledged, recall is
	// lexical and says so.
	fake.down.Store(true)
	if code, b := post("/v1/memories", `{"agent_id":"a","content":"Payments over 10k need a second approval"}`); code != 201 {
		t.Fatalf("remember while the provider is down: %d %s", code, b)
	}
	res = memory.Result{}
	code, b = post("/v1/recall", `{"agent_id":"a","query":"payments approval","explain":true}`)
	if json.Unmarshal(b, &res); code != 200 || !res.Degraded || len(res.Results) == 0 ||
		!strings.Contains(res.Reason, "re-scored by hashed-tfidf-512") || res.Results[0].Explain.Vector != "fallback" {
		t.Fatalf("recall while down: %d %s", code, b)
	}
	if st := stats(); st.Vectors.Pending != 1 {
		t.Fatalf("pending while down: %+v", st.Vectors)
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !regexp.MustCompile(`mnemo_degraded_total\{cause="embedder"\} [1-9]`).Match(m) {
		t.Fatalf("/metrics does not count the embedder's outage")
	}
	fake.down.Store(false)
	waitEmbedded()
}

// A store embedded with one model is refused by another (exit 1, a message
// naming reindex) until `mnemo reindex` re-embeds it.
func TestReindexChangesModel(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := run(t, dir, "", "remember", "Deploys happen on Tuesdays"); code != 0 {
		t.Fatalf("remember: %s", errs)
	}
	if code, _, errs := run(t, dir, "", "remember", "The cafeteria closes at three"); code != 0 {
		t.Fatalf("remember: %s", errs)
	}
	hashedCfg := filepath.Join(t.TempDir(), "hashed.yml")
	os.WriteFile(hashedCfg, []byte("embedding:\n  provider: hashed\n  dimension: 128\n"), 0o644)

	var logs bytes.Buffer
	ctx, cancel := testwait.Context(context.Background(), 10*time.Second)
	defer cancel()
	code := testMain(ctx, []string{"--config", hashedCfg, "--data", dir, "serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), &logs, &logs)
	if code != exitFailure || !strings.Contains(logs.String(), "mnemo reindex") {
		t.Fatalf("serve over another model: exit %d, %s", code, logs.String())
	}

	code, out, errs := run(t, dir, "", "--config", hashedCfg, "--json", "reindex")
	if code != 0 || !strings.Contains(out, `"embedded": 2`) {
		t.Fatalf("reindex: %d %s %s", code, out, errs)
	}
	code, out, _ = run(t, dir, "", "--config", hashedCfg, "--json", "stats")
	var st mnemo.Stats
	if json.Unmarshal([]byte(out), &st); code != 0 || st.Vectors == nil || st.Vectors.Model != "hashed-tfidf-128" || st.Vectors.Embedded != 2 {
		t.Fatalf("stats after reindex: %s", out)
	}
	code, out, _ = run(t, dir, "", "--config", hashedCfg, "--json", "recall", "deploys")
	if code != 0 || !strings.Contains(out, "Tuesdays") {
		t.Fatalf("recall after reindex: %s", out)
	}
}

// OPS-1 and EMB-5 from the command line: mock mode needs no service and
// keeps nothing: its store is in memory.
func TestMockMode(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("MNEMO_MOCK", "true")
	t.Setenv("TMPDIR", dir)
	home := t.TempDir()
	t.Setenv("XDG_DATA_HOME", home) // the default data directory must stay unused
	t.Run("serve", func(t *testing.T) {
		base := startServe(t)
		resp, err := http.Post(base+"/v1/memories", "application/json", strings.NewReader(`{"agent_id":"a","content":"test memory"}`))
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("remember: %v %v", resp, err)
		}
		resp.Body.Close()
		resp, err = http.Post(base+"/v1/recall", "application/json", strings.NewReader(`{"agent_id":"a","query":"test"}`))
		if err != nil {
			t.Fatal(err)
		}
		var res memory.Result
		json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
		if len(res.Results) != 1 || res.Results[0].Content != "test memory" || res.Results[0].EmbeddingModel != "random-256-42" {
			t.Fatalf("recall in mock mode: %+v", res)
		}
		// The store is in memory (inmem): nothing on disk.
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
			t.Fatalf("mock mode wrote %v", left)
		}
	})
	if left, _ := filepath.Glob(filepath.Join(dir, "mnemo-mock-*")); len(left) != 0 {
		t.Fatalf("mock mode left %v behind", left)
	}
	if _, err := os.Stat(filepath.Join(home, "mnemo")); err == nil {
		t.Fatal("mock mode wrote to the default data directory")
	}
}

// TestReindexSameModel checks that reindex does what it says with the
// model the store already has: every memory is embedded again, and stats,
// in a process of its own, counts the index's vectors.
func TestReindexSameModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runner(t, dir)
	r("remember", "Deploys happen on Tuesdays")
	r("remember", "The cafeteria closes at three")
	if out := r("reindex"); out != "re-embedded 2 memories\n" {
		t.Errorf("reindex printed %q, want re-embedded 2 memories", out)
	}
	var st mnemo.Stats
	if err := json.Unmarshal([]byte(r("--json", "stats")), &st); err != nil || st.Vectors == nil || st.Vectors.Embedded != 2 || st.Vectors.Indexed != 2 {
		t.Errorf("stats after reindex: %+v %v; want 2 embedded, 2 indexed", st.Vectors, err)
	}
}

// A one-shot command's write has its vector when the command returns,
// whatever embedding.mode says (EMB-8): its worker stops as it exits, and
// the next command's recall would otherwise race its own worker for it.
func TestOneShotWriteEmbedded(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"sync", "async"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := filepath.Join(t.TempDir(), "mnemo.yml")
			yml := "embedding:\n  provider: hashed\n  dimension: 64\n  mode: " + mode + "\n"
			if err := os.WriteFile(cfg, []byte(yml), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, _, errs := run(t, dir, "", "--config", cfg, "remember", "Deploys happen on Tuesdays"); code != 0 {
				t.Fatalf("remember: %s", errs)
			}
			code, out, errs := run(t, dir, "", "--config", cfg, "--json", "stats")
			var st mnemo.Stats
			if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
				t.Fatalf("stats: %d %v %s %s", code, err, out, errs)
			}
			if st.Vectors == nil || st.Vectors.Embedded != 1 || st.Vectors.Pending != 0 {
				t.Fatalf("after remember: vectors %+v", st.Vectors)
			}
		})
	}
}
