package inmem_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/inmem"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) mnemo.Store { return inmem.New(inmem.Options{}) })
}

func str(s string) *string { return &s }

// A Service over the store remembers, recalls, forgets and reflects; a
// Restore of its Snapshot answers every read as the store did.
func TestSnapshotRestore(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 2, 22, 10, 0, 0, 0, time.UTC)
	s := inmem.New(inmem.Options{})
	svc := service.New(s, service.Options{Now: func() time.Time { return now }})
	sc := mnemo.Scope{TenantID: "t", AgentID: "a"}
	for i, text := range []string{"the dentist appointment is tomorrow at ten", "prefers green tea over coffee", "works on the mnemo project in Go"} {
		d := mnemo.Draft{Content: str(text), Tags: []string{"t" + strconv.Itoa(i)}}
		if i == 0 {
			d.Key = "/user/calendar/dentist"
		}
		if _, err := svc.Remember(ctx, sc, d); err != nil {
			t.Fatal(err)
		}
	}
	upd := now.Add(time.Minute)
	if _, err := svc.Remember(ctx, sc, mnemo.Draft{Key: "/user/calendar/dentist", Content: str("the dentist moved to friday"), UpdatedAt: &upd}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Recall(ctx, sc, memory.Query{Text: "tea"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Reflect(ctx, sc, lifecycle.ReflectOptions{Now: now.Add(400 * 24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutState(ctx, sc, mnemo.StateDoc{Kind: mnemo.StateRun, ID: "r1", Body: []byte(`{}`), UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}

	r := inmem.Restore(s.Snapshot(), inmem.Options{})
	want, got := answers(t, s, sc), answers(t, r, sc)
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("restored store answers\n%s\nwant\n%s", got, want)
	}
}

// answers is what a store says about a scope, as JSON for comparison.
func answers(t *testing.T, s *inmem.Store, sc mnemo.Scope) string {
	t.Helper()
	ctx := t.Context()
	f := mnemo.Filter{IncludeArchived: true, IncludeExpired: true, Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	ms, total, _ := s.List(ctx, sc, mnemo.ListQuery{Filter: f})
	hits, _ := s.Search(ctx, sc, mnemo.TextQuery{Filter: f, Terms: []string{"dentist", "tea"}, Prefixes: []string{"mn"}})
	hist, _ := s.History(ctx, sc, "/user/calendar/dentist")
	led, n, _ := s.Ledger(ctx, sc, mnemo.LedgerQuery{})
	st, _ := s.Stats(ctx, sc)
	types, _ := s.CountTypes(ctx, sc, f)
	docs, _ := s.ListState(ctx, sc, mnemo.StateRun)
	scopes, _ := s.Scopes(ctx)
	b, err := json.MarshalIndent([]any{ms, total, hits, hist, led, n, st, types, docs, scopes}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Writers and readers at once, for the race detector: every write
// acknowledged is there at the end.
func TestConcurrent(t *testing.T) {
	ctx := t.Context()
	s := inmem.New(inmem.Options{})
	sc := mnemo.Scope{TenantID: "t", AgentID: "a"}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 200 {
				m := mnemo.Memory{Key: fmt.Sprintf("/w%d/%d", w, i), Content: "word", Type: "fact"}
				if _, err := s.Write(ctx, sc, []mnemo.Record{{Memory: m, Index: mnemo.IndexText{Text: "word w" + strconv.Itoa(w)}}}); err != nil {
					t.Error(err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 50 {
				s.Search(ctx, sc, mnemo.TextQuery{Terms: []string{"word"}, Limit: 5})
				s.List(ctx, sc, mnemo.ListQuery{Limit: 5})
				s.Stats(ctx, sc)
			}
		}()
	}
	wg.Wait()
	if _, total, _ := s.List(ctx, sc, mnemo.ListQuery{}); total != 800 {
		t.Fatalf("total %d, want 800", total)
	}
}

func TestImportAcrossScopes(t *testing.T) {
	storetest.ImportAcrossScopes(t, inmem.New(inmem.Options{}))
}

func TestImportRevisions(t *testing.T) {
	storetest.ImportRevisions(t, inmem.New(inmem.Options{}))
}
