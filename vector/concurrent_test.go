package vector

import (
	"testing"
	"time"
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
	case <-time.After(30 * time.Second):
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
