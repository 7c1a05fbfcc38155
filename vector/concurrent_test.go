package vector

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/testwait"
)

// TestSearchDuringBatch: a search answers while a batch is being linked
// into the graph (issue 20: it waited for the whole batch under the write
// lock). The batch is held at the start of its linking; a search that
// needed the write lock would never return.
func TestSearchDuringBatch(t *testing.T) {
	const dim = 16
	data := dataset(3000, dim, 1)
	x := build(t, data[:2000], Options{ExactBelow: 1})
	held, release := make(chan struct{}), make(chan struct{})
	x.linking = func() { close(held); <-release }
	ids := make([]uint64, 1000)
	for i := range ids {
		ids[i] = uint64(2000 + i)
	}
	added := make(chan error)
	go func() { added <- x.AddBatch(ids, data[2000:]) }()
	<-held
	found := make(chan []Result)
	go func() { found <- x.Search(data[5], 10, nil) }()
	select {
	case res := <-found:
		if len(res) != 10 || res[0].ID != 5 {
			t.Fatalf("search beside a batch: %+v", res)
		}
	case <-testwait.After(t, 30*time.Second):
		t.Fatal("the search waited for the batch")
	}
	x.linking = nil
	close(release)
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	if x.Len() != 3000 {
		t.Fatalf("len %d", x.Len())
	}
	if res := x.Search(data[2500], 1, nil); len(res) != 1 || res[0].ID != 2500 {
		t.Fatalf("the batch's vector: %+v", res)
	}
}

// TestSearchWhileBatchYields: a batch whose owner yields before each insert
// (SetYield: background indexing stepping aside for a recall, PERF-2) is
// paused while searches answer, and every vector lands once it goes on.
func TestSearchWhileBatchYields(t *testing.T) {
	const dim = 16
	data := dataset(1500, dim, 2)
	x := build(t, data[:1000], Options{ExactBelow: 1})
	var calls atomic.Int64
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	x.SetYield(func() {
		if calls.Add(1) == 1 {
			once.Do(func() { close(paused) })
			<-resume
		}
	})
	ids := make([]uint64, 500)
	for i := range ids {
		ids[i] = uint64(1000 + i)
	}
	added := make(chan error)
	go func() { added <- x.AddBatch(ids, data[1000:]) }()
	<-paused
	if res := x.Search(data[7], 5, nil); len(res) != 5 || res[0].ID != 7 {
		t.Fatalf("search while the batch yields: %+v", res)
	}
	close(resume)
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	// The first node of a batch into a non-empty graph is inserted too:
	// one yield per insert.
	if n := calls.Load(); n != int64(len(ids)) {
		t.Fatalf("yield called %d times for %d inserts", n, len(ids))
	}
	x.SetYield(nil)
	if err := x.Add(5000, data[3]); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != int64(len(ids)) {
		t.Fatalf("yield called after SetYield(nil): %d", n)
	}
}

// TestSearchDuringVacuum: a search answers while a vacuum repairs the graph
// (issue 20: the vacuum held the write lock). The vacuum is held at the
// start of its repair; a search that needed the write lock would never
// return. Deleted vectors are never answered, before or after.
func TestSearchDuringVacuum(t *testing.T) {
	const dim = 16
	data := dataset(3000, dim, 3)
	x := build(t, data, Options{ExactBelow: 1})
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	x.repairing = func() { once.Do(func() { close(held); <-release }) }
	deleted := make(chan struct{})
	go func() {
		// 1/32 of the graph dead makes the last of these deletes vacuum.
		for i := range 100 {
			x.Delete(uint64(2 * i))
		}
		close(deleted)
	}()
	<-held
	found := make(chan []Result)
	go func() { found <- x.Search(data[5], 10, nil) }()
	select {
	case res := <-found:
		if len(res) != 10 || res[0].ID != 5 {
			t.Fatalf("search beside a vacuum: %+v", res[:min(3, len(res))])
		}
		for _, r := range res {
			if r.ID < 200 && r.ID%2 == 0 {
				t.Fatalf("a deleted vector answered beside the vacuum: %d", r.ID)
			}
		}
	case <-testwait.After(t, 30*time.Second):
		t.Fatal("the search waited for the vacuum")
	}
	close(release)
	<-deleted
	x.repairing = nil
	if x.Len() != 2900 {
		t.Fatalf("len %d", x.Len())
	}
	x.mu.RLock()
	dead, freed := x.dead, len(x.freed)
	x.mu.RUnlock()
	if freed == 0 {
		t.Fatalf("the vacuum freed nothing (dead %d)", dead)
	}
	if res := x.Search(data[7], 1, nil); len(res) != 1 || res[0].ID != 7 {
		t.Fatalf("after the vacuum: %+v", res)
	}
}
