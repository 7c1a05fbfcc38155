package files_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// A Store's root is a memory root (FS-11): FS-12's commands work on it,
// and bare envelopes (FS-8) another writer appends to its log are
// memories of the home scope.
func TestStoreSeedLayout(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed")
	}
	ctx := t.Context()
	root := filepath.Join(t.TempDir(), "memory")
	s := open(t, root, files.StoreOptions{NoSync: true})
	defer s.Close()
	svc := service.New(s, service.Options{})
	for _, d := range []mnemo.Draft{
		{Key: "/user/calendar/2026-02-23_10-00_牙科复诊", Data: json.RawMessage(`{"type":"reminder","text":"明天10点牙科复诊","importance":8,"tags":["health"]}`),
			Source: json.RawMessage(`{"kind":"user","name":"chat","retrieved_at":"2026-02-22T10:01:00Z","locator":{"conversation_id":"c1","message_id":"m10"}}`)},
		{Key: "/user/preference/style", Data: json.RawMessage(`{"type":"preference","summary":"用户喜欢中文、偏好简洁","importance":6}`)},
		{Content: str("Deploys happen on Tuesdays")},
	} {
		if _, err := svc.Remember(ctx, home, d); err != nil {
			t.Fatal(err)
		}
	}
	// Another writer appends bare envelopes, a write and a tombstone.
	script := `set -e
cd "$1"
echo '{"key":"/user/calendar/2026-03-01_09-00_team","ts":"2026-02-22T11:00:00Z","valid":true,"source":"chat","content":{"type":"reminder","text":"team sync","tags":["work"]}}' >> memory/log.jsonl
echo '{"key":"/user/preference/style","ts":"2030-01-01T00:00:00Z","valid":false,"source":"chat","content":null}' >> memory/log.jsonl`
	if out, err := exec.Command("bash", "-c", script, "bash", filepath.Dir(root)).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m, err := s.GetByKey(ctx, home, "/user/calendar/2026-03-01_09-00_team")
	if err != nil || m.Content != "team sync" || m.Type != "reminder" || !slices.Equal(m.Tags, []string{"work"}) {
		t.Fatalf("a line of another writer: %+v, %v", m, err)
	}
	if _, err := s.GetByKey(ctx, home, "/user/preference/style"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("a tombstone of another writer: %v", err)
	}
	if hits, _ := s.Search(ctx, home, mnemo.TextQuery{Terms: []string{"team"}}); len(hits.Hits) != 1 {
		t.Fatalf("search for another writer's line: %+v", hits)
	}
	// Its index file lands with the next write, or the next open.
	s.Close()
	open(t, root, files.StoreOptions{NoSync: true}).Close()
	script = `set -e
cd "$1"
ls memory/index/user/calendar/
grep -c "牙科" memory/log.jsonl
cat memory/log.jsonl | jq -c 'select(.valid==true and .content.type=="reminder") | .key'
ls memory/index/@memories/ | wc -l
cat memory/index/user/calendar/2026-02-23_10-00_牙科复诊.json | jq -r .content.text`
	out, err := exec.Command("bash", "-c", script, "bash", filepath.Dir(root)).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	want := "2026-02-23_10-00_牙科复诊.json\n2026-03-01_09-00_team.json\n1\n\"/user/calendar/2026-02-23_10-00_牙科复诊\"\n\"/user/calendar/2026-03-01_09-00_team\"\n1\n明天10点牙科复诊\n"
	if string(out) != want {
		t.Fatalf("FS-12's commands on a store's root:\n%s\nwant:\n%s", out, want)
	}
}

// Replay reads back every record written, in order, across compactions
// that rotate the log; forgotten ones are gone from it.
func TestStoreReplay(t *testing.T) {
	ctx := t.Context()
	s := open(t, t.TempDir(), files.StoreOptions{History: files.RotateLog, NoSync: true, CompactEvery: 7})
	defer s.Close()
	var want []string
	for i := range 20 {
		recs := batch("r", i)
		if _, err := s.Write(ctx, home, recs); err != nil {
			t.Fatal(err)
		}
		if i != 3 {
			want = append(want, recs[0].Memory.Content)
		}
		want = append(want, recs[1].Memory.Content)
	}
	if _, err := s.Write(ctx, other, batch("o", 0)[:1]); err != nil {
		t.Fatal(err)
	}
	want = append(want, batch("o", 0)[0].Memory.Content)
	if _, err := s.Forget(ctx, home, nil, []string{"/wr/3"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	var scopes []mnemo.Scope
	err := s.Replay(ctx, func(sc mnemo.Scope, rec mnemo.Record) error {
		got = append(got, rec.Memory.Content)
		scopes = append(scopes, sc)
		if rec.Memory.ID == "" || rec.Memory.CreatedAt.IsZero() || rec.Index.Text == "" {
			t.Errorf("replayed record without its id, times or index: %+v", rec)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("replayed\n%q\nwant\n%q", got, want)
	}
	if scopes[len(scopes)-1] != other || scopes[0] != home {
		t.Fatalf("scopes %v", scopes)
	}
	_ = time.Now
}

// Writes without the provenance FS-6 and FS-7 ask for are refused with
// the missing fields named, or, when configured, routed to /untrusted/…
// (index/untrusted/… on disk) and tagged so.
func TestStoreUntrustedRouting(t *testing.T) {
	ctx := t.Context()
	root := t.TempDir()
	s := open(t, root, files.StoreOptions{NoSync: true})
	defer s.Close()
	web := json.RawMessage(`{"kind":"web","name":"example_site"}`)
	strict := service.New(s, service.Options{})
	_, err := strict.Remember(ctx, home, mnemo.Draft{Key: "/kb/product/spec", Content: str("the spec"), Source: web})
	if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), "retrieved_at, locator") {
		t.Fatalf("unrouted: %v", err)
	}
	routed := service.New(s, service.Options{Limits: mnemo.Limits{Untrusted: "/untrusted"}})
	tests := []struct {
		key, want string
	}{
		{"/kb/product/spec", "/untrusted/kb/product/spec"},
		{"kb://product/other", "/untrusted/kb/product/other"},
		{"", "/untrusted/"},
	}
	for _, tt := range tests {
		m, err := routed.Remember(ctx, home, mnemo.Draft{Key: tt.key, Content: str("from the web " + tt.key), Source: web})
		if err != nil || !strings.HasPrefix(m.Key, tt.want) || !slices.Contains(m.Tags, "untrusted") {
			t.Fatalf("routed %q: %+v, %v", tt.key, m, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "index/untrusted/kb/product/spec.json")); err != nil {
		t.Fatalf("index file of the routed write: %v", err)
	}
	// A write with full provenance is not routed.
	full := json.RawMessage(`{"kind":"web","name":"apple.com","retrieved_at":"2026-02-22T10:05:00Z","locator":{"url":"https://example.com"}}`)
	if m, err := routed.Remember(ctx, home, mnemo.Draft{Key: "/kb/product/iphone16", Content: str("spec"), Source: full}); err != nil || m.Key != "/kb/product/iphone16" {
		t.Fatalf("full provenance: %+v, %v", m, err)
	}
}

// A forgotten memory's vector goes with it, from the vectors line too.
func TestStoreForgetsVectors(t *testing.T) {
	ctx := t.Context()
	root := t.TempDir()
	s := open(t, root, files.StoreOptions{NoSync: true})
	defer s.Close()
	if err := s.SetVectorSpace(ctx, mnemo.VectorSpace{Model: "m", Dimension: 3}, false); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, sc := range []mnemo.Scope{home, other, other} {
		ms, err := s.Write(ctx, sc, []mnemo.Record{{Memory: mnemo.Memory{Content: "v"}, Embed: "v" + strconv.Itoa(i)}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ms[0].ID)
	}
	vecs := [][]float32{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
	if err := s.SetVectors(ctx, []mnemo.EmbedJob{{ID: ids[0], Text: "v0"}, {ID: ids[1], Text: "v1"}, {ID: ids[2], Text: "v2"}}, vecs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forget(ctx, home, []string{ids[0]}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Clear(ctx, other); err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(filepath.Join(root, files.LogName))
	for _, l := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if strings.Contains(l, `"op":"vectors"`) && strings.Contains(l, `"vectors":[`) {
			t.Fatalf("a vector of a forgotten memory is still in the log: %s", l)
		}
	}
}

// Recall over a files store with an embedder finds by meaning as well as
// by words, and a reopened store recalls the same.
func TestStoreSemanticRecall(t *testing.T) {
	ctx := t.Context()
	root := t.TempDir()
	s := open(t, root, files.StoreOptions{NoSync: true})
	opts := service.Options{Embedder: hashed.New(64)}
	svc := service.New(s, opts)
	for _, text := range []string{"the cat sleeps on the sofa", "stock markets fell sharply today", "a kitten naps on the couch"} {
		if _, err := svc.Remember(ctx, home, mnemo.Draft{Content: str(text)}); err != nil {
			t.Fatal(err)
		}
	}
	recall := func(svc *service.Mnemo) []string {
		res, err := svc.Recall(ctx, home, memory.Query{Text: "kitten couch", Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Results {
			out = append(out, r.Memory.Content)
		}
		return out
	}
	before := recall(svc)
	if len(before) == 0 || before[0] != "a kitten naps on the couch" {
		t.Fatalf("recall = %q", before)
	}
	if st, _ := s.Stats(ctx, home); st.Vectors == nil || st.Vectors.Embedded != 3 {
		t.Fatalf("vectors: %+v", st.Vectors)
	}
	s.Close()
	r := open(t, root, files.StoreOptions{NoSync: true})
	defer r.Close()
	if after := recall(service.New(r, opts)); !slices.Equal(after, before) {
		t.Fatalf("after reopen: %q, want %q", after, before)
	}
}

// A conversation message forgotten leaves its words nowhere under the
// root: not in the lines of the messages around it, whose index contexts
// and embed texts held them, nor in their vectors (REC-37); and a reopened
// store finds by the contexts its lines now hold what the store did.
func TestStoreForgetsMessageFromNeighbours(t *testing.T) {
	ctx := t.Context()
	root := t.TempDir()
	s := open(t, root, files.StoreOptions{NoSync: true})
	opts := service.Options{Embedder: hashed.New(64)}
	svc := service.New(s, opts)
	chat := []memory.Message{
		{Role: "user", Name: "Caroline", Content: "I took the kayak out this morning."},
		{Role: "assistant", Name: "Melanie", Content: "Up near the glacier again?"},
		{Role: "user", Name: "Caroline", Content: "Yes, and a zeppelin flew over us."},
		{Role: "assistant", Name: "Melanie", Content: "The old harbour one?"},
		{Role: "user", Name: "Caroline", Content: "Maybe, I was busy with my canoe."},
	}
	var secret string
	for i, m := range chat { // a message a call: each learns of the replies
		at := t0.Add(time.Duration(i) * time.Second)
		m.CreatedAt = &at
		ms, err := svc.AddMessages(ctx, home, "s1", []memory.Message{m})
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			secret = ms[0].ID
		}
	}
	find := func(svc *service.Mnemo, q string) []string {
		t.Helper()
		res, err := svc.Surface(ctx, home, memory.Query{Text: q, Profile: "lexical", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Results {
			out = append(out, r.Content)
		}
		slices.Sort(out)
		return out
	}
	if got := find(svc, "zeppelin"); len(got) != 5 {
		t.Fatalf("zeppelin before = %q, want all five", got)
	}
	if _, err := svc.Forget(ctx, home, []string{secret}, nil); err != nil {
		t.Fatal(err)
	}
	if err := svc.WaitEmbedded(ctx); err != nil {
		t.Fatal(err)
	}
	if got := find(svc, "zeppelin"); len(got) != 0 {
		t.Fatalf("zeppelin after = %q", got)
	}
	kayak := find(svc, "kayak")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(strings.ToLower(string(b)), "zeppelin") {
			t.Errorf("%s holds the forgotten message's word", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	r := open(t, root, files.StoreOptions{NoSync: true})
	defer r.Close()
	again := service.New(r, opts)
	if got := find(again, "kayak"); !slices.Equal(got, kayak) {
		t.Errorf("kayak after reopening = %q, want %q", got, kayak)
	}
	if got := find(again, "zeppelin"); len(got) != 0 {
		t.Errorf("zeppelin after reopening = %q", got)
	}
}
