package webhook_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/webhook"
)

var scope = mnemo.Scope{TenantID: "t", AgentID: "a"}

func newService(t *testing.T) (*service.Mnemo, []mnemo.Event) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := service.New(db, service.Options{})
	start := time.Now().Add(-time.Hour)
	var in []mnemo.Event
	for i := range 5 {
		in = append(in, mnemo.Event{Type: "step", Source: "s", TS: start.Add(time.Duration(i) * time.Millisecond)})
	}
	in, err = svc.AppendEvents(ctx, scope, in)
	if err != nil {
		t.Fatal(err)
	}
	return svc, in
}

// receiver is a subscriber's endpoint: it answers with the statuses of
// fail (then 204) and records the event ids it took.
type receiver struct {
	mu       sync.Mutex
	fail     []int
	got      []string
	attempts int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.attempts++
	var e mnemo.Event
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&e) != nil ||
		r.Header.Get("Mnemo-Event-Id") != e.ID || r.Header.Get("Authorization") != "Bearer s3cret" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if len(rc.fail) > 0 {
		code := rc.fail[0]
		rc.fail = rc.fail[1:]
		if code == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "0")
		}
		w.WriteHeader(code)
		return
	}
	rc.got = append(rc.got, e.ID)
	w.WriteHeader(http.StatusNoContent)
}

func opts() webhook.Options {
	return webhook.Options{Attempts: 3, Backoff: time.Millisecond, Header: http.Header{"Authorization": {"Bearer s3cret"}}}
}

func TestReplayToWebhook(t *testing.T) {
	ctx := context.Background()
	svc, in := newService(t)
	want := make([]string, len(in))
	for i, e := range in {
		want[i] = e.ID
	}
	tests := []struct {
		name      string
		fail      []int
		published int
		errMsg    string
	}{
		{"every event, in order", nil, 5, ""},
		{"retried while down", []int{503, 429}, 5, ""},
		{"gives up when it stays down", []int{500, 500, 500}, 0, "gave up on event " + in[0].ID + " after 3 attempts: answered 500"},
		{"gives up at once when refused", []int{410}, 0, "refused event " + in[0].ID + ": answered 410"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := &receiver{fail: slices.Clone(tt.fail)}
			srv := httptest.NewServer(rc)
			defer srv.Close()
			sink, err := webhook.New(srv.URL+"/hook", opts())
			if err != nil {
				t.Fatal(err)
			}
			res, err := svc.Replay(ctx, scope, events.ReplayOptions{}, sink)
			if res.Published != tt.published {
				t.Fatalf("published %d, want %d (%v)", res.Published, tt.published, err)
			}
			if tt.errMsg == "" {
				if err != nil || !slices.Equal(rc.got, want) {
					t.Fatalf("got %v, %v; want %v", rc.got, err, want)
				}
				return
			}
			if mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE || !strings.Contains(mnemo.ErrorMessage(err), tt.errMsg) {
				t.Fatalf("got %v, want unavailable: %s", err, tt.errMsg)
			}
		})
	}
}

func TestWebhookUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	sink, err := webhook.New("http://"+addr+"/hook", opts())
	if err != nil {
		t.Fatal(err)
	}
	err = sink.Publish(context.Background(), mnemo.Event{ID: "e1", Type: "x"})
	if mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE || !strings.Contains(mnemo.ErrorMessage(err), "gave up on event e1 after 3 attempts") {
		t.Fatalf("unreachable: %v", err)
	}
}

func TestWebhookCancelWhileWaiting(t *testing.T) {
	rc := &receiver{fail: []int{503, 503, 503, 503}}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	o := opts()
	o.Attempts, o.Backoff = 10, time.Hour
	sink, err := webhook.New(srv.URL, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- sink.Publish(ctx, mnemo.Event{ID: "e1", Type: "x"}) }()
	for {
		rc.mu.Lock()
		n := rc.attempts
		rc.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("cancelled during backoff: %v", err)
	}
}

func TestNewRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"", "ftp://x/y", "not a url", "http://", "/relative"} {
		if _, err := webhook.New(u, webhook.Options{}); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%q: %v", u, err)
		}
	}
}
