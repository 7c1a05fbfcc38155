package files_test

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/service"
)

// TestLargeWritesLetOthersThrough: while one agent writes the largest and
// deepest data a write may hold (API-21) back to back, another agent's
// writes go through one after another, between them (FS-16). It asserts
// progress, not time: the writer of large data keeps going until the
// other is done, and must not reach its cap first.
func TestLargeWritesLetOthersThrough(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir(), files.StoreOptions{NoSync: true})
	defer s.Close()
	svc := service.New(s, service.Options{})
	ctx := t.Context()
	// 60 KB at the deepest level allowed: the worst case for an index
	// file that indents every level.
	d := mnemo.MaxJSONDepth
	big := strings.Repeat("[", d) + strings.TrimSuffix(strings.Repeat("0,", 30000), ",") + strings.Repeat("]", d)
	const (
		others   = 20  // the other agent's writes
		maxLarge = 400 // large writes after which the other agent counts as starved
	)
	var done atomic.Bool
	large := make(chan int, 1)
	started := make(chan struct{})
	go func() {
		n := 0
		for ; !done.Load() && n < maxLarge; n++ {
			_, err := svc.Remember(ctx, home, mnemo.Draft{Key: "/big", Data: []byte(big)})
			if n == 0 {
				close(started)
			}
			if err != nil {
				t.Error(err)
				break
			}
		}
		large <- n
	}()
	<-started
	for i := range others {
		if _, err := svc.Remember(ctx, other, mnemo.Draft{Content: str("small note " + strconv.Itoa(i))}); err != nil {
			t.Fatal(err)
		}
	}
	done.Store(true)
	if n := <-large; n >= maxLarge {
		t.Fatalf("the large writer wrote %d times before the other agent's %d writes went through", n, others)
	}
	if _, total, err := s.List(ctx, other, mnemo.ListQuery{}); err != nil || total != others {
		t.Fatalf("the other agent holds %d memories (%v), want %d", total, err, others)
	}
}
