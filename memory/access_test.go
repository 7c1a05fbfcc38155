package memory_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// slowTouch is the real SQLite store whose access records wait for held to
// close: a writer busy with someone else's batch.
type slowTouch struct {
	*sqlite.DB
	held chan struct{}
}

func (s slowTouch) Touch(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error {
	<-s.held
	return s.DB.Touch(ctx, scope, ids, at)
}

// TestRecallDoesNotWaitForAccessRecord: recall answers while the store's
// writer cannot take its access record (PERF-2); the record lands in the
// background, a read of the scope sees it, and Close writes what is left,
// a memory recalled twice counted twice.
func TestRecallDoesNotWaitForAccessRecord(t *testing.T) {
	c := newClock()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	store := slowTouch{db, make(chan struct{})}
	svc := service.New(store, service.Options{Now: c.Now})
	ctx := context.Background()
	m, err := svc.Remember(ctx, alice, draft("the boat is moored in the north harbour"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan memory.Result)
	go func() {
		res, err := svc.Recall(ctx, alice, memory.Query{Text: "boat harbour"})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case res := <-done:
		if len(res.Results) != 1 || res.Results[0].AccessCount != 1 {
			t.Fatalf("recall: %+v", res)
		}
	case <-testwait.After(t, 10*time.Second):
		t.Fatal("recall waited for its access record")
	}
	if _, err := svc.Recall(ctx, alice, memory.Query{Text: "boat"}); err != nil {
		t.Fatal(err)
	}
	close(store.held)
	got, err := svc.Get(ctx, alice, m.ID) // a read of the scope writes its waiting records first
	if err != nil || got.AccessCount != 2 || !got.AccessedAt.Equal(c.Now()) {
		t.Fatalf("after two recalls: %+v %v", got, err)
	}

	c.Advance(time.Hour)
	for range 3 {
		if _, err := svc.Recall(ctx, alice, memory.Query{Text: "boat"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.Close(); err != nil { // writes the three waiting
		t.Fatal(err)
	}
	db, err = sqlite.Open(context.Background(), path, sqlite.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err = db.Get(ctx, alice, m.ID)
	if err != nil || got.AccessCount != 5 || !got.AccessedAt.Equal(c.Now()) {
		t.Fatalf("after close: %+v %v", got, err)
	}
}

// TestRecallTrace: a query that asks for a trace gets the time of each
// stage; one that does not gets none.
func TestRecallTrace(t *testing.T) {
	svc := newSemantic(t, newClock(), "", service.Options{})
	ctx := context.Background()
	if _, err := svc.Remember(ctx, alice, draft("the boat is moored in the north harbour")); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "boat harbour", Trace: true})
	if err != nil || res.Trace == nil || len(res.Results) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	tr := res.Trace
	if tr.Total <= 0 || tr.Find <= 0 || tr.Lexical <= 0 || tr.Embed <= 0 || tr.Vector <= 0 || tr.Total < tr.Find {
		t.Fatalf("trace: %+v", tr)
	}
	if res, _ := svc.Recall(ctx, alice, memory.Query{Text: "boat"}); res.Trace != nil {
		t.Fatalf("a trace not asked for: %+v", res.Trace)
	}
}
