package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo/internal/testwait"
)

// TestPrefixOnlyWrites is issue 15's defect 1 through every way in: a
// memory of nothing but words ending in '*' panicked the Write Guard — a
// 500 over REST, and the end of the process over MCP and the CLI.
func TestPrefixOnlyWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, out, errs := run(t, dir, "", "remember", "Python*"); code != 0 {
		t.Fatalf("mnemo remember Python*: exit %d: %s %s", code, out, errs)
	}
	base := startServe(t, "--data", t.TempDir())
	resp, err := http.Post(base+"/v1/memories", "application/json", strings.NewReader(`{"agent_id":"bot","content":"foo*bar*"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("POST foo*bar*: %d %s", resp.StatusCode, body)
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcpsdk.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: headerTransport{"X-Mnemo-Agent": "bot"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callTool(t, cs, "remember", map[string]any{"content": "Deploys* Tuesdays*"})
	callTool(t, cs, "status", nil) // still serving
}

// TestServeStopsJobsBeforeClosing is issue 15's defect 9: a SIGTERM (the
// cancelled context Main gets from signal.NotifyContext) during a
// scheduled reflect stops it and waits for it before the store closes,
// loses nothing, and exits within 10 s.
func TestServeStopsJobsBeforeClosing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var memories strings.Builder
	for i := range 60 {
		memories.WriteString(`{"content":"note number ` + strings.Repeat("x", i%7+1) + ` about topic ` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `"},`)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu       sync.Mutex
		returned bool // Main has returned
		late     bool // a reflect ended after Main returned
		runs     int
	)
	seeded := make(chan struct{})
	ended := make(chan struct{}, 1)
	var logs syncBuffer
	a := newApp(strings.NewReader(""), &logs, &logs)
	a.jobEvery = 50 * time.Millisecond
	a.jobHook = func(job string, running bool) {
		if job != "reflect" {
			return
		}
		if running {
			<-seeded
			mu.Lock()
			runs++
			mu.Unlock()
			cancel()                // SIGTERM arrives while the reflect runs,
			time.Sleep(time.Second) // and the reflect is not done yet
			return
		}
		mu.Lock()
		late = late || returned
		mu.Unlock()
		select {
		case ended <- struct{}{}:
		default:
		}
	}
	done := make(chan int)
	go func() {
		code := a.main(ctx, []string{"--data", dir, "serve", "--addr", "127.0.0.1:0"})
		mu.Lock()
		returned = true
		mu.Unlock()
		done <- code
	}()
	addrRE := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)
	var addr string
	testwait.Until(t, 10*time.Second, "the server to start", func() bool {
		if m := addrRE.FindStringSubmatch(logs.String()); m != nil {
			addr = m[1]
		}
		return addr != ""
	})
	resp, err := http.Post("http://"+addr+"/v1/memories/batch", "application/json",
		strings.NewReader(`{"agent_id":"default","memories":[`+strings.TrimSuffix(memories.String(), ",")+`]}`))
	if err != nil || resp.StatusCode != 201 && resp.StatusCode != 200 {
		t.Fatalf("batch: %v %v", resp, err)
	}
	resp.Body.Close()
	close(seeded)
	start := time.Now()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d: %s", code, logs.String())
		}
	case <-testwait.After(t, 10*time.Second):
		t.Fatalf("serve did not exit within 10 s of quiet-machine time of the signal: %s", logs.String())
	}
	t.Logf("exited %v after the signal", time.Since(start))
	select { // a reflect not awaited ends after Main has returned
	case <-ended:
	case <-testwait.After(t, 5*time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	if runs == 0 || late {
		t.Fatalf("reflect runs %d; one ended after Main returned (the store closed under it): %v", runs, late)
	}
	// Nothing lost: every memory is in the store the next process opens.
	_, out, errs := run(t, dir, "", "--json", "stats")
	if !strings.Contains(out, `"memories":60`) && !strings.Contains(out, `"memories": 60`) {
		t.Fatalf("stats after the signal: %s %s", out, errs)
	}
}

// A panic in a command is an internal error, exit 1, with the stack
// logged, not a crash (the environment lookup stands in for any bug).
func TestCommandPanicIsInternal(t *testing.T) {
	t.Parallel()
	var errs syncBuffer
	a := newApp(strings.NewReader(""), io.Discard, &errs)
	a.getenv = func(string) string { panic("boom") }
	if code := a.main(t.Context(), []string{"--data", t.TempDir(), "stats"}); code != exitFailure {
		t.Fatalf("exit %d, want %d: %s", code, exitFailure, errs.String())
	}
	if s := errs.String(); !strings.Contains(s, "mnemo: internal error: panic in a mnemo command: boom") || !strings.Contains(s, "goroutine") {
		t.Fatalf("stderr: %s", s)
	}
}
