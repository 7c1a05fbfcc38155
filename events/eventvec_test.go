package events_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/embed/openai"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// newL3Service is a service with an embedder over a fresh store.
func newL3Service(t testing.TB, c *clock, opts service.Options) (*service.Mnemo, *sqlite.DB) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	opts.Now = c.Now
	svc := service.New(db, opts)
	t.Cleanup(func() { svc.Close() })
	return svc, db
}

// fakeEmbeddings is an OpenAI-compatible /embeddings endpoint: the vector
// of an input is its four "feature" counts, so that inputs naming the same
// thing land together whatever their modality. No multimodal model can be
// had offline; this stands in for one.
func fakeEmbeddings(t testing.TB, calls *atomic.Int64) *httptest.Server {
	t.Helper()
	features := []string{"cat", "car", "rain", "music"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if calls != nil {
			calls.Add(1)
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, in := range req.Input {
			v := make([]float32, len(features)+1)
			v[len(features)] = 0.1
			for k, f := range features {
				v[k] = float32(strings.Count(strings.ToLower(in), f))
			}
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func openaiEmbedder(t testing.TB, url, model string) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Config{BaseURL: url, Model: model, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func hitIDs(hs []events.Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Event.ID)
	}
	return out
}

func TestSearchEventsByMeaning(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newL3Service(t, c, service.Options{Embedder: hashed.New(256)})
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	t0 := c.Now()
	es := mustAppend(t, svc, scope,
		ev("user.message", "chat", t0, `{"text":"the database migration failed on the orders table"}`),
		ev("user.message", "chat", t0.Add(time.Minute), `"I booked a flight to Lisbon for the conference"`),
		ev("tool.output", "shell", t0.Add(2*time.Minute), `{"output":"database backup completed, orders table copied"}`),
		ev("AgentStarted", "worker", t0.Add(3*time.Minute), `{"task_id":"x1"}`), // no text: no vector
		ev("user.message", "chat", t0.Add(4*time.Minute), `{"nested":{"note":"weather in Lisbon is sunny today"}}`),
	)
	search := func(q events.Search) []events.Hit {
		t.Helper()
		hs, err := svc.SearchEvents(ctx, scope, q)
		if err != nil {
			t.Fatal(err)
		}
		return hs
	}
	hs := search(events.Search{Query: "database migration orders"})
	if len(hs) != 4 || hs[0].Event.ID != es[0].ID || hs[1].Event.ID != es[2].ID {
		t.Fatalf("search = %v; want %s then %s among the 4 events with text", hitIDs(hs), es[0].ID, es[2].ID)
	}
	if hs[0].Event.Type != "user.message" || len(hs[0].Event.Data) == 0 || hs[0].Modality != mnemo.ModalityText {
		t.Errorf("hit = %+v; want the whole event, by its text", hs[0])
	}
	if hs := search(events.Search{Query: "database", Types: []string{"tool.output"}}); len(hs) != 1 || hs[0].Event.ID != es[2].ID {
		t.Errorf("type filter = %v", hitIDs(hs))
	}
	if hs := search(events.Search{Query: "Lisbon", Sources: []string{"chat"}, From: tptr(t0.Add(90 * time.Second)), Limit: 1}); len(hs) != 1 || hs[0].Event.ID != es[4].ID {
		t.Errorf("source and time filter = %v; want %s", hitIDs(hs), es[4].ID)
	}
	if hs := search(events.Search{Query: "Lisbon sunny", Lexical: 0.5, Limit: 2}); len(hs) != 2 || hs[0].Event.ID != es[4].ID || hs[0].Lexical != 1 {
		t.Errorf("hybrid = %+v", hs)
	}
	for name, q := range map[string]events.Search{
		"empty":     {},
		"backwards": {Query: "x", From: tptr(t0.Add(time.Hour)), To: tptr(t0)},
		"modality":  {Query: "x", Modalities: []string{"smell"}},
		"no model":  {Vector: []float32{1, 0}},
		"nan":       {Vector: []float32{float32(nan())}, Model: "m"},
		"limit":     {Query: "x", Limit: -1},
		"lexical":   {Query: "x", Lexical: 2},
	} {
		if _, err := svc.SearchEvents(ctx, scope, q); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%s: err = %v; want invalid_input", name, err)
		}
	}
	// The export carries L3: the four vectors, found three times by now.
	var buf bytes.Buffer
	n, err := svc.ExportEvents(ctx, scope, mnemo.EventQuery{}, events.ExportJSON, &buf)
	if err != nil || n.Embeddings != 4 {
		t.Fatalf("export = %+v, %v", n, err)
	}
	var doc struct {
		Layers struct {
			L3 []mnemo.StoredEventVector `json:"l3_embeddings"`
		} `json:"layers"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || len(doc.Layers.L3) != 4 || len(doc.Layers.L3[0].Vector) != 256 || doc.Layers.L3[0].Model == "" {
		t.Fatalf("l3_embeddings = %d, %v", len(doc.Layers.L3), err)
	}
	buf.Reset()
	if _, err := svc.ExportEvents(ctx, scope, mnemo.EventQuery{}, events.ExportCSV, &buf); err != nil || strings.Count(buf.String(), "\nL3,") != 4 {
		t.Fatalf("CSV export: %v\n%s", err, buf.String())
	}
	// Another scope sees nothing of these.
	if hs, err := svc.SearchEvents(ctx, mnemo.Scope{TenantID: "t", AgentID: "b"}, events.Search{Query: "database"}); err != nil || len(hs) != 0 {
		t.Errorf("other scope = %v, %v", hitIDs(hs), err)
	}
}

func nan() float64 { var z float64; return z / z }

func TestEventVectorsAsyncRemoteEmbedder(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	var calls atomic.Int64
	srv := fakeEmbeddings(t, &calls)
	emb := openaiEmbedder(t, srv.URL, "fake-text")
	svc, _ := newL3Service(t, c, service.Options{Embedder: emb, AsyncEmbedding: true})
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	es := mustAppend(t, svc, scope,
		ev("note", "chat", c.Now(), `"the cat sat on the car"`),
		ev("note", "chat", c.Now(), `"rain and music all night"`))
	if err := svc.WaitEventVectors(ctx); err != nil {
		t.Fatal(err)
	}
	hs, err := svc.SearchEvents(ctx, scope, events.Search{Query: "music in the rain"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || hs[0].Event.ID != es[1].ID {
		t.Errorf("search = %v; want %s first", hitIDs(hs), es[1].ID)
	}
}

func TestMultimodalEventSearch(t *testing.T) {
	ctx := context.Background()
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	media := func(uri, mime string) string {
		b, _ := json.Marshal(map[string]any{"media": []events.MediaRef{{URI: uri, MIME: mime}}})
		return string(b)
	}
	withMeta := func(e mnemo.Event, md string) mnemo.Event { e.Metadata = json.RawMessage(md); return e }

	t.Run("caller vectors", func(t *testing.T) {
		c := newClock()
		svc, _ := newL3Service(t, c, service.Options{Embedder: hashed.New(64)})
		img := withMeta(ev("photo", "camera", c.Now(), ""), media("file:///cat.png", "image/png"))
		img.Vectors = []mnemo.EventVector{{Modality: mnemo.ModalityImage, Model: "clip-b32", Vector: []float32{1, 0, 0, 0}}}
		aud := withMeta(ev("clip", "mic", c.Now(), ""), media("file:///rain.wav", "audio/wav"))
		aud.Vectors = []mnemo.EventVector{{Modality: mnemo.ModalityAudio, Model: "clip-b32", Vector: []float32{0, 0, 1, 0}}}
		es := mustAppend(t, svc, scope, img, aud, ev("note", "chat", c.Now(), `"a text about cats"`))
		// A query vector of the shared model crosses image and audio.
		hs, err := svc.SearchEvents(ctx, scope, events.Search{Vector: []float32{0.1, 0, 0.9, 0}, Model: "clip-b32"})
		if err != nil || len(hs) != 2 || hs[0].Event.ID != es[1].ID || hs[0].Modality != mnemo.ModalityAudio || hs[1].Modality != mnemo.ModalityImage {
			t.Fatalf("cross-modal = %+v, %v", hs, err)
		}
		// A text query (the hashed model) asked about image vectors made
		// by another model is refused, clearly.
		_, err = svc.SearchEvents(ctx, scope, events.Search{Query: "cat", Modalities: []string{mnemo.ModalityImage}})
		if mnemo.ErrorCode(err) != mnemo.EMISMATCH || !strings.Contains(err.Error(), "clip-b32") {
			t.Errorf("text query on image vectors of another model: err = %v; want model_mismatch naming clip-b32", err)
		}
		// Without modalities a text query searches its own space only.
		if hs, err := svc.SearchEvents(ctx, scope, events.Search{Query: "cats"}); err != nil || len(hs) != 1 || hs[0].Event.ID != es[2].ID {
			t.Errorf("text search = %v, %v", hitIDs(hs), err)
		}
		for name, e := range map[string]mnemo.Event{
			"no model":   {Type: "x", Vectors: []mnemo.EventVector{{Modality: "image", Vector: []float32{1}}}},
			"modality":   {Type: "x", Vectors: []mnemo.EventVector{{Modality: "smell", Model: "m", Vector: []float32{1}}}},
			"twice":      {Type: "x", Vectors: []mnemo.EventVector{{Modality: "image", Model: "m", Vector: []float32{1}}, {Modality: "image", Model: "m", Vector: []float32{1}}}},
			"zero":       {Type: "x", Vectors: []mnemo.EventVector{{Modality: "image", Model: "m", Vector: []float32{0, 0}}}},
			"bad mime":   withMeta(mnemo.Event{Type: "x"}, media("file:///a.txt", "text/plain")),
			"no uri":     withMeta(mnemo.Event{Type: "x"}, media("", "image/png")),
			"media type": withMeta(mnemo.Event{Type: "x"}, `{"media":"a.png"}`),
		} {
			if _, err := svc.AppendEvent(ctx, scope, e); mnemo.ErrorCode(err) != mnemo.EINVALID {
				t.Errorf("%s: err = %v; want invalid_input", name, err)
			}
		}
	})

	t.Run("media embedders in one space", func(t *testing.T) {
		c := newClock()
		srv := fakeEmbeddings(t, nil)
		// One multimodal model embeds texts and media URIs alike.
		mm := openaiEmbedder(t, srv.URL, "fake-multimodal")
		svc, _ := newL3Service(t, c, service.Options{Embedder: mm, Events: events.Options{Vectors: events.VectorOptions{
			Media: map[string]mnemo.Embedder{mnemo.ModalityImage: mm, mnemo.ModalityAudio: mm}}}})
		es := mustAppend(t, svc, scope,
			withMeta(ev("photo", "camera", c.Now(), ""), media("https://example.test/cat.jpg", "image/jpeg")),
			withMeta(ev("recording", "mic", c.Now(), ""), media("https://example.test/music.mp3", "audio/mpeg")),
			ev("note", "chat", c.Now(), `"my car is parked outside"`))
		if err := svc.WaitEventVectors(ctx); err != nil {
			t.Fatal(err)
		}
		hs, err := svc.SearchEvents(ctx, scope, events.Search{Query: "a cat", Limit: 1})
		if err != nil || len(hs) != 1 || hs[0].Event.ID != es[0].ID || hs[0].Modality != mnemo.ModalityImage {
			t.Fatalf("text → image = %+v, %v", hs, err)
		}
		hs, err = svc.SearchEvents(ctx, scope, events.Search{Query: "music", Modalities: []string{mnemo.ModalityAudio}})
		if err != nil || len(hs) != 1 || hs[0].Event.ID != es[1].ID {
			t.Fatalf("text → audio = %+v, %v", hs, err)
		}
	})

	t.Run("media embedder of another space", func(t *testing.T) {
		c := newClock()
		srv := fakeEmbeddings(t, nil)
		svc, _ := newL3Service(t, c, service.Options{Embedder: hashed.New(64), Events: events.Options{Vectors: events.VectorOptions{
			Media: map[string]mnemo.Embedder{mnemo.ModalityImage: openaiEmbedder(t, srv.URL, "fake-image")}}}})
		mustAppend(t, svc, scope, withMeta(ev("photo", "camera", c.Now(), ""), media("https://example.test/cat.jpg", "image/jpeg")))
		if err := svc.WaitEventVectors(ctx); err != nil {
			t.Fatal(err)
		}
		_, err := svc.SearchEvents(ctx, scope, events.Search{Query: "cat", Modalities: []string{mnemo.ModalityImage}})
		if mnemo.ErrorCode(err) != mnemo.EMISMATCH {
			t.Fatalf("err = %v; want model_mismatch", err)
		}
		hs, err := svc.SearchEvents(ctx, scope, events.Search{Vector: []float32{1, 0, 0, 0, 0.1}, Model: "openai:fake-image"})
		if err != nil || len(hs) != 1 {
			t.Fatalf("image-space query = %v, %v", hitIDs(hs), err)
		}
	})
}

func TestPruneEventVectors(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newL3Service(t, c, service.Options{Embedder: hashed.New(64)})
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	old := c.Now().Add(-40 * 24 * time.Hour)
	es := mustAppend(t, svc, scope,
		ev("note", "chat", old, `"an old note about gardening tomatoes"`),
		ev("note", "chat", old, `"an old note about kernel panics"`),
		ev("note", "chat", c.Now(), `"a recent note about kernel builds"`))
	for range 3 { // the old kernel note is found often
		if _, err := svc.SearchEvents(ctx, scope, events.Search{Query: "kernel", Limit: 2}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := svc.PruneEventVectors(ctx, 0, 0)
	if err != nil || n != 1 {
		t.Fatalf("PruneEventVectors = %d, %v; want 1 (the old, rarely found note)", n, err)
	}
	hs, err := svc.SearchEvents(ctx, scope, events.Search{Query: "gardening tomatoes kernel", Limit: 10})
	if err != nil || len(hs) != 2 || slices.Contains(hitIDs(hs), es[0].ID) {
		t.Errorf("after pruning = %v, %v; want the two kept", hitIDs(hs), err)
	}
	// The event itself stays.
	if _, err := svc.GetEvent(ctx, scope, es[0].ID); err != nil {
		t.Errorf("pruned event: %v", err)
	}
	if got := len(allEvents(t, svc, scope, mnemo.EventQuery{})); got != 3 {
		t.Errorf("%d events after pruning; want 3", got)
	}
	// A configurable age: nothing younger than a day is touched.
	if n, err := svc.PruneEventVectors(ctx, 24*time.Hour, 100); err != nil || n != 1 {
		t.Errorf("prune with threshold 100 = %d, %v; want 1 (the old kernel note now)", n, err)
	}
	if _, err := svc.PruneEventVectors(ctx, -time.Hour, 0); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("negative age: %v", err)
	}
}

// TestEventVectorsWhenTheEmbedderFails: an append whose embedding fails is
// stored anyway, its vector queued, and the worker makes it once the
// embedder answers again.
func TestEventVectorsWhenTheEmbedderFails(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	var down atomic.Bool
	down.Store(true)
	good := fakeEmbeddings(t, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		resp, err := http.Post(good.URL+r.URL.Path, "application/json", r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	emb, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "flaky", Dimension: 5, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := newL3Service(t, c, service.Options{Embedder: emb})
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	es := mustAppend(t, svc, scope, ev("note", "chat", c.Now(), `"music in the rain"`))
	if _, err := svc.GetEvent(ctx, scope, es[0].ID); err != nil {
		t.Fatalf("the event was not stored: %v", err)
	}
	down.Store(false)
	if err := svc.WaitEventVectors(ctx); err != nil {
		t.Fatal(err)
	}
	hs, err := svc.SearchEvents(ctx, scope, events.Search{Query: "rain"})
	if err != nil || len(hs) != 1 || hs[0].Event.ID != es[0].ID {
		t.Fatalf("search = %v, %v", hitIDs(hs), err)
	}
}
