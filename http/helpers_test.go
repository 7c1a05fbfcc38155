package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// testServer is a real server over a real SQLite store on a loopback port.
type testServer struct {
	URL  string
	Srv  *mhttp.Server
	Path string // the SQLite file
}

// start starts a server with opts; mount, if not nil, may mount handlers
// before it serves. The default request timeout stretches with the
// machine's load (QUAL-3).
func start(t *testing.T, opts mhttp.Options, mount func(*mhttp.Server)) *testServer {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = testwait.D(mhttp.DefaultTimeout)
	}
	path := filepath.Join(t.TempDir(), "mnemo.db")
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := mhttp.NewServer(service.New(db, service.Options{}), opts)
	if mount != nil {
		mount(srv)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		db.Close()
	})
	return &testServer{URL: "http://" + ln.Addr().String(), Srv: srv, Path: path}
}

// serve starts a server with opts and returns its base URL.
func serve(t *testing.T, opts mhttp.Options) string {
	t.Helper()
	return start(t, opts, nil).URL
}

// send sends a request with secret as its bearer token (none if empty) and
// returns the response with its body read.
func send(t *testing.T, secret, method, url string, body any) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, raw
}

// callAs sends a request as the holder of secret and decodes a successful
// JSON answer into out (if not nil), returning the status and the raw body.
func callAs(t *testing.T, secret, method, url string, body, out any) (int, []byte) {
	t.Helper()
	resp, raw := send(t, secret, method, url, body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: decoding %s: %v", method, url, raw, err)
		}
	}
	return resp.StatusCode, raw
}

// call is callAs without credentials.
func call(t *testing.T, method, url string, body, out any) (int, []byte) {
	t.Helper()
	return callAs(t, "", method, url, body, out)
}

func problem(t *testing.T, raw []byte) mhttp.Problem {
	t.Helper()
	var p mhttp.Problem
	if err := json.Unmarshal(raw, &p); err != nil || p.Code == "" {
		t.Fatalf("not a problem: %s", raw)
	}
	return p
}

// secret is the secret of the test key named name.
func secret(name string) string { return "mnemo-test-secret-" + name }

// apiKey returns a key named name whose secret is secret(name).
func apiKey(name, tenant string, agents []string, scopes ...string) mhttp.APIKey {
	return mhttp.APIKey{Name: name, Hash: mhttp.HashKey(secret(name)), Tenant: tenant, Agents: agents, Scopes: scopes}
}

var allScopes = []string{mhttp.ScopeRead, mhttp.ScopeWrite, mhttp.ScopeAdmin}

// page is the paging part of a list answer.
type page struct {
	Total      int  `json:"total"`
	Limit      int  `json:"limit"`
	Offset     int  `json:"offset"`
	HasMore    bool `json:"has_more"`
	NextOffset *int `json:"next_offset"`
}

type listAnswer struct {
	Memories []mnemo.Memory `json:"memories"`
	page
}

type historyAnswer struct {
	Revisions []mnemo.Revision `json:"revisions"`
	page
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// covers fails t unless every route in routes has a test case in covered,
// so that a new route cannot go untested.
func covers(t *testing.T, routes []string, covered map[string]bool, skip ...string) {
	t.Helper()
	for _, r := range routes {
		if !covered[r] && !slices.Contains(skip, r) {
			t.Errorf("route %s has no case in this test", r)
		}
	}
}
