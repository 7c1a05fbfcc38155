package http

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/testwait"
)

// TestTimeout mounts handlers of its own as JSON API routes, since no
// real route can be made slow on purpose, and calls them over HTTP.
func TestTimeout(t *testing.T) {
	// A quick handler answers within the timeout on a busy machine too.
	s := NewServer(nil, Options{Timeout: testwait.D(300 * time.Millisecond)})
	s.register(route{method: "GET", path: "/slow", handler: func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		s.writeError(w, r, r.Context().Err())
	}})
	s.register(route{method: "GET", path: "/fast", handler: func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, r, http.StatusOK, map[string]string{"ok": "yes"})
	}})
	// A handler that ignores its context: the client is answered at the
	// deadline all the same, and what the handler writes later is dropped.
	release := make(chan struct{})
	s.register(route{method: "GET", path: "/stuck", handler: func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-testwait.After(t, 5*time.Second): // fails the test rather than hang it
		}
		writeJSON(w, r, http.StatusOK, map[string]string{"ok": "late"})
	}})
	// One that answers in time and then overruns: its answer stands.
	s.register(route{method: "GET", path: "/answered", handler: func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, r, http.StatusOK, map[string]string{"ok": "yes"})
		<-r.Context().Done()
	}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer close(release) // before Close, which waits for the handler

	tests := []struct {
		path   string
		status int
		ctype  string
		code   string
	}{
		{"/slow", 503, "application/problem+json", mnemo.EUNAVAILABLE},
		{"/fast", 200, "application/json", ""},
		{"/stuck", 503, "application/problem+json", mnemo.EUNAVAILABLE},
		{"/answered", 200, "application/json", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, err := http.Get(ts.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != tt.ctype {
				t.Fatalf("%d %s, want %d %s", resp.StatusCode, resp.Header.Get("Content-Type"), tt.status, tt.ctype)
			}
			if tt.code == "" {
				return
			}
			var p Problem
			if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || p.Code != tt.code || p.Status != tt.status || p.Detail == "" {
				t.Fatalf("problem %+v, %v; want code %s", p, err, tt.code)
			}
		})
	}
}
