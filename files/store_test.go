package files_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/storetest"
)

func TestStore(t *testing.T) {
	for _, h := range []files.History{files.KeepLog, files.RotateLog} {
		t.Run([]string{"KeepLog", "RotateLog"}[h], func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) mnemo.Store {
				s, err := files.OpenStore(t.Context(), t.TempDir(), files.StoreOptions{History: h, NoSync: true})
				if err != nil {
					t.Fatal(err)
				}
				return s
			})
		})
	}
}

var (
	home  = mnemo.Scope{TenantID: "default", AgentID: "default"}
	other = mnemo.Scope{TenantID: "acme", AgentID: "bot/1"}
	t0    = time.Date(2026, 2, 22, 10, 0, 0, 0, time.UTC)
)

func str(s string) *string { return &s }

func open(t *testing.T, root string, opts files.StoreOptions) *files.Store {
	t.Helper()
	s, err := files.OpenStore(t.Context(), root, opts)
	if err != nil {
		t.Fatalf("OpenStore: %v", err)
	}
	return s
}

// workload writes through a Service what every part of the store keeps:
// keyed and keyless memories, upserts, a tombstone, accesses, vectors, a
// reflect (vitality and the ledger), a forget, a clear of another scope,
// state documents.
func workload(t *testing.T, s *files.Store) {
	t.Helper()
	ctx := t.Context()
	now := t0
	svc := service.New(s, service.Options{Now: func() time.Time { return now }})
	if err := s.SetVectorSpace(ctx, mnemo.VectorSpace{Model: "test/3", Dimension: 3}, false); err != nil {
		t.Fatal(err)
	}
	for _, sc := range []mnemo.Scope{home, other} {
		for i, text := range []string{"dentist appointment tomorrow at ten", "prefers green tea over coffee", "works on the mnemo project", "the secret code is swordfish"} {
			d := mnemo.Draft{Content: str(text), Tags: []string{"t" + strconv.Itoa(i)}}
			if i%2 == 0 {
				d.Key = "/user/note/" + strconv.Itoa(i)
			}
			m, err := svc.Remember(ctx, sc, d)
			if err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				if err := s.SetVectors(ctx, []mnemo.EmbedJob{{ID: m.ID, Text: "x"}}, [][]float32{{1, 0, 0}}); err != nil {
					t.Fatal(err)
				}
			}
			if i%2 == 1 {
				// A keyless memory changed in place (Replace); the one
				// forgotten below, too.
				if _, err := svc.Update(ctx, sc, m.ID, memory.Patch{Content: str(text + ", still")}, "test"); err != nil {
					t.Fatal(err)
				}
			}
		}
		now = now.Add(time.Minute)
		if _, err := svc.Remember(ctx, sc, mnemo.Draft{Key: "/user/note/0", Content: str("dentist moved to friday")}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Remember(ctx, sc, mnemo.Draft{Key: "/user/note/2", Data: json.RawMessage(`null`)}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Remember(ctx, sc, mnemo.Draft{Key: "/user/calendar/2026-02-23_10-00_牙科复诊",
			Data: json.RawMessage(`{"type":"reminder","text":"明天10点牙科复诊","importance":8,"tags":["health"]}`), Content: str("明天10点牙科复诊")}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Recall(ctx, sc, memory.Query{Text: "tea dentist"}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Reflect(ctx, sc, lifecycle.ReflectOptions{Now: now.Add(200 * 24 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.PutState(ctx, sc, mnemo.StateDoc{Kind: mnemo.StateRun, ID: "r1", Body: []byte(`{"n":1}`), UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		hits, err := s.Search(ctx, sc, mnemo.TextQuery{Terms: []string{"swordfish"}, Filter: mnemo.Filter{IncludeArchived: true, IncludeExpired: true}})
		if err != nil || len(hits.Hits) != 1 {
			t.Fatalf("swordfish: %+v %v", hits, err)
		}
		if n, err := svc.Forget(ctx, sc, []string{hits.Hits[0].Memory.ID}, nil); err != nil || n != 1 {
			t.Fatalf("forget = %d, %v", n, err)
		}
	}
	if _, err := s.Clear(ctx, other); err != nil {
		t.Fatal(err)
	}
	m, err := svc.Remember(ctx, other, mnemo.Draft{Content: str("after the clear")})
	if err != nil {
		t.Fatal(err)
	}
	// Changed in place after the last forget: only the log holds it.
	if _, err := svc.Update(ctx, other, m.ID, memory.Patch{Content: str("after the clear, changed")}, "test"); err != nil {
		t.Fatal(err)
	}
}

// answers is everything a store says about the scopes, as JSON.
func answers(t *testing.T, s mnemo.Store) string {
	t.Helper()
	ctx := t.Context()
	var all []any
	f := mnemo.Filter{IncludeArchived: true, IncludeExpired: true, Now: t0.Add(time.Hour)}
	for _, sc := range []mnemo.Scope{home, other} {
		ms, total, err := s.List(ctx, sc, mnemo.ListQuery{Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		hits, _ := s.Search(ctx, sc, mnemo.TextQuery{Filter: f, Terms: []string{"dentist", "tea", "after"}, Prefixes: []string{"mn"}})
		var hist []any
		for _, k := range []string{"/user/note/0", "/user/note/2", "/user/calendar/2026-02-23_10-00_牙科复诊"} {
			h, _ := s.History(ctx, sc, k)
			hist = append(hist, h)
		}
		st, _ := s.Stats(ctx, sc)
		types, _ := s.CountTypes(ctx, sc, f)
		all = append(all, ms, total, hits, hist, st, types)
		if ls, ok := s.(mnemo.LifecycleStore); ok {
			led, n, _ := ls.Ledger(ctx, sc, mnemo.LedgerQuery{})
			all = append(all, led, n)
		}
		if ss, ok := s.(mnemo.StateStore); ok {
			docs, _ := ss.ListState(ctx, sc, mnemo.StateRun)
			all = append(all, docs)
		}
		if vs, ok := s.(mnemo.VectorStore); ok {
			vh, _ := vs.SearchVectors(ctx, sc, mnemo.VectorQuery{Vector: []float32{1, 0, 0}, Filter: f})
			all = append(all, vh)
		}
	}
	if ls, ok := s.(mnemo.LifecycleStore); ok {
		scopes, _ := ls.Scopes(ctx)
		all = append(all, scopes)
	}
	if vs, ok := s.(mnemo.VectorStore); ok {
		space, _ := vs.VectorSpace(ctx)
		jobs, _ := vs.Unembedded(ctx, 100)
		all = append(all, space, jobs)
	}
	b, err := json.MarshalIndent(all, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// grepRoot reports the files under root holding word.
func grepRoot(t *testing.T, root, word string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), word) {
				found = append(found, p)
			}
		}
		return nil
	})
	return found
}

// After every kind of change, a reopened store answers as the store did,
// with and without a compaction in between, by either history option; and
// nothing of a forgotten memory is left in any file.
func TestReopen(t *testing.T) {
	for _, h := range []files.History{files.KeepLog, files.RotateLog} {
		for _, compact := range []bool{false, true} {
			t.Run(fmt.Sprintf("history=%d/compact=%v", h, compact), func(t *testing.T) {
				root := t.TempDir()
				opts := files.StoreOptions{History: h, NoSync: true}
				s := open(t, root, opts)
				workload(t, s)
				want := answers(t, s)
				if compact {
					if _, err := s.Compact(t.Context()); err != nil {
						t.Fatal(err)
					}
					if got := answers(t, s); got != want {
						t.Fatalf("after compaction:\n%s\nwant\n%s", got, want)
					}
				}
				s.Close()
				if found := grepRoot(t, root, "swordfish"); len(found) > 0 {
					t.Errorf("a forgotten memory is still in %v", found)
				}
				r := open(t, root, opts)
				defer r.Close()
				if got := answers(t, r); got != want {
					t.Fatalf("reopened:\n%s\nwant\n%s", got, want)
				}
				checkIndex(t, root, r)
			})
		}
	}
}

// checkIndex checks that index/ holds one file per live memory of the
// store, with its content, and nothing else.
func checkIndex(t *testing.T, root string, s *files.Store) {
	t.Helper()
	ctx := t.Context()
	want := map[string]string{}
	for _, sc := range []mnemo.Scope{home, other} {
		ms, _, err := s.List(ctx, sc, mnemo.ListQuery{Filter: mnemo.Filter{IncludeArchived: true, IncludeExpired: true}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			want[m.ID] = string(files.ContentOf(&m))
		}
	}
	got := map[string]string{}
	filepath.WalkDir(filepath.Join(root, files.IndexName), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		var e files.Envelope
		if err := json.Unmarshal(b, &e); err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		var c struct {
			ID string `json:"id"`
		}
		json.Unmarshal(e.Content, &c)
		id := c.ID
		if id == "" {
			for _, sc := range []mnemo.Scope{home, other} {
				if m, err := s.GetByKey(ctx, sc, e.Key); err == nil && strings.Contains(p, "@scopes") == (sc != home) {
					id = m.ID
				}
			}
		}
		got[id] = string(e.Content)
		return nil
	})
	if len(got) != len(want) {
		t.Errorf("index has %d files, want %d", len(got), len(want))
	}
	for id, c := range want {
		if !sameJSON(got[id], c) {
			t.Errorf("index file of %s = %s, want %s", id, got[id], c)
		}
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func TestImportAcrossScopes(t *testing.T) {
	s, err := files.OpenStore(t.Context(), t.TempDir(), files.StoreOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.ImportAcrossScopes(t, s)
}

func TestImportRevisions(t *testing.T) {
	s, err := files.OpenStore(t.Context(), t.TempDir(), files.StoreOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.ImportRevisions(t, s)
}
