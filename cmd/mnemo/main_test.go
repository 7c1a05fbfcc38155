package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// run calls Main with args against data dir dir, in the environment
// setenv gave t.
func run(t *testing.T, dir, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = testApp(t, strings.NewReader(stdin), &out, &errb).main(context.Background(), append([]string{"--data", dir}, args...))
	return code, out.String(), errb.String()
}

// testApp is the app of testMain in the environment setenv gave t.
func testApp(t *testing.T, stdin io.Reader, stdout, stderr io.Writer) *app {
	a := newApp(stdin, stdout, stderr)
	a.builtins = sharedBuiltins
	a.getenv = func(key string) string { return getenv(t, key) }
	a.environ = func() []string { return environ(t) }
	return a
}

// testEnv holds, by test name, the variables setenv set: what the
// commands run gives a test read over the process's environment. A test
// that set the process's own (t.Setenv) could not run in parallel.
var testEnv struct {
	sync.Mutex
	vars map[string]map[string]string
}

// setenv sets key to value for the commands t and its subtests run
// (run, runner), until t ends.
func setenv(t *testing.T, key, value string) {
	testEnv.Lock()
	defer testEnv.Unlock()
	if testEnv.vars == nil {
		testEnv.vars = map[string]map[string]string{}
	}
	name := t.Name()
	if testEnv.vars[name] == nil {
		testEnv.vars[name] = map[string]string{}
		t.Cleanup(func() {
			testEnv.Lock()
			defer testEnv.Unlock()
			delete(testEnv.vars, name)
		})
	}
	testEnv.vars[name][key] = value
}

// overlays returns the variables setenv gave t and the tests it is a
// subtest of, outermost first.
func overlays(t *testing.T) []map[string]string {
	testEnv.Lock()
	defer testEnv.Unlock()
	var out []map[string]string
	for name := t.Name(); ; {
		if vars, ok := testEnv.vars[name]; ok {
			out = append([]map[string]string{maps.Clone(vars)}, out...)
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return out
		}
		name = name[:i]
	}
}

func getenv(t *testing.T, key string) string {
	v := os.Getenv(key)
	for _, vars := range overlays(t) {
		if w, ok := vars[key]; ok {
			v = w
		}
	}
	return v
}

func environ(t *testing.T) []string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for _, vars := range overlays(t) {
		maps.Copy(env, vars)
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// testMain is Main with the compiled-in embedders shared by every command
// of the test binary: each would otherwise decode its models again, which
// under the race detector takes a second.
func testMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := newApp(stdin, stdout, stderr)
	a.builtins = sharedBuiltins
	return a.main(ctx, args)
}

// builtinEmbedders holds one embedder per compiled-in provider, made on
// first use.
var builtinEmbedders sync.Map // provider → func() mnemo.Embedder

func sharedBuiltins(provider string) mnemo.Embedder {
	f, _ := builtinEmbedders.LoadOrStore(provider, sync.OnceValue(func() mnemo.Embedder { return newBuiltin(provider) }))
	return f.(func() mnemo.Embedder)()
}

// runner returns run for dir that fails the test unless the command
// exits 0, and returns its output.
func runner(t *testing.T, dir string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		code, out, errs := run(t, dir, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return out
	}
}

func TestRememberRecallGetForget(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, dir, "", "remember", "--key", "/user/lang", "--tag", "code", "Prefers Python for scripts")
	if code != 0 {
		t.Fatalf("remember: %d %s", code, errs)
	}
	id := strings.TrimSpace(out)
	if _, _, errs := run(t, dir, "Writes Go services at work", "remember", "-"); errs != "" {
		t.Fatalf("remember from stdin: %s", errs)
	}

	code, out, _ = run(t, dir, "", "recall", "--json", "python")
	var res memory.Result
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Results) != 1 || res.Results[0].ID != id {
		t.Fatalf("recall: %d %s", code, out)
	}
	if code, out, _ = run(t, dir, "", "surface", "--explain", "Pyth*"); code != 0 || !strings.Contains(out, "relevance") || !strings.Contains(out, id) {
		t.Fatalf("surface --explain: %d %s", code, out)
	}
	var m mnemo.Memory
	if code, out, _ = run(t, dir, "", "get", "--json", id); code != 0 || json.Unmarshal([]byte(out), &m) != nil || m.AccessCount != 1 {
		t.Fatalf("get: %d %s", code, out)
	}
	if code, out, _ = run(t, dir, "", "get", "--key", "/user/lang"); code != 0 || !strings.Contains(out, "Prefers Python") {
		t.Fatalf("get --key: %d %s", code, out)
	}
	if code, out, _ = run(t, dir, "", "list", "--json"); code != 0 || !strings.Contains(out, `"total": 2`) {
		t.Fatalf("list: %d %s", code, out)
	}
	if code, out, _ = run(t, dir, "", "stats"); code != 0 || !strings.Contains(out, "memories:   2") {
		t.Fatalf("stats: %d %s", code, out)
	}
	// Another agent sees nothing.
	if code, out, _ = run(t, dir, "", "--agent", "other", "recall", "python"); code != 0 || !strings.Contains(out, "no memories found") {
		t.Fatalf("other agent recall: %d %s", code, out)
	}
	if code, out, _ = run(t, dir, "", "forget", "--key", "/user/lang"); code != 0 || out != "forgot 1\n" {
		t.Fatalf("forget: %d %q", code, out)
	}
	if code, _, errs = run(t, dir, "", "get", id); code != 2 || !strings.Contains(errs, "not found") {
		t.Fatalf("get forgotten: %d %s", code, errs)
	}
	if code, out, _ = run(t, dir, "", "clear", "--yes"); code != 0 || out != "cleared 1\n" {
		t.Fatalf("clear: %d %q", code, out)
	}
}

func TestBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	tests := [][]string{
		{"remember"},
		{"remember", "--priority", "9", "x"},
		{"remember", "--key", "no-slash", "x"},
		{"remember", "--value", "{bad", "x"},
		{"remember", strings.Repeat("x", 2001)},
		{"recall"},
		{"recall", "--limit", "50", "x"},
		{"recall", "--now", "the day after never", "x"},
		{"get"},
		{"forget"},
		{"clear"},
		{"nosuchcommand"},
		{"list", "--nosuchflag"},
		{"import", "/does/not/exist.jsonl"},
		{"bench", "locomo", "/does/not/exist.json"},
	}
	for _, args := range tests {
		code, _, errs := run(t, dir, "", args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
		if !strings.HasPrefix(errs, "mnemo: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: want a one-line message, got %q", args, errs)
		}
	}
	if code, out, _ := run(t, dir, "", "--agent", "default", "list", "--json"); code != 0 || !strings.Contains(out, `"total": 0`) {
		t.Fatalf("bad input stored something: %s", out)
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	run(t, src, "", "remember", "--key", "/user/tz", "--tag", "a", "--tag", "b", "--value", `{"tz":"Europe/Paris"}`, "--source", `{"kind":"user","name":"chat"}`, "--pinned", "Lives in Paris")
	run(t, src, "", "remember", "--security", "confidential", "--type", "fact", "--priority", "1", "The vault code is 0000")
	run(t, src, "", "recall", "Paris") // access count 1 must survive
	file := filepath.Join(t.TempDir(), "out.jsonl")
	if code, _, errs := run(t, src, "", "export", "-o", file); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	if code, out, errs := run(t, dst, "", "import", file); code != 0 || out != "imported 2, updated 0, skipped 0\n" {
		t.Fatalf("import: %d %s %s", code, out, errs)
	}
	// Imported again, it changes nothing, and says so (API-22).
	if code, out, errs := run(t, dst, "", "import", file); code != 0 || out != "imported 0, updated 0, skipped 2\n" {
		t.Fatalf("import again: %d %s %s", code, out, errs)
	}
	file2 := filepath.Join(t.TempDir(), "again.jsonl")
	run(t, dst, "", "export", "-o", file2)
	a, _ := os.ReadFile(file)
	b, _ := os.ReadFile(file2)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("export → import → export is not lossless:\n%s\n%s", a, b)
	}
	// The confidential memory is marked on the CLI.
	if _, out, _ := run(t, dst, "", "recall", "vault"); !strings.Contains(out, "[CONFIDENTIAL]") {
		t.Fatalf("confidential memory not marked: %s", out)
	}
	// A bad line stores nothing and names the line.
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, append(a, []byte("{\"content\":\"x\",\"bogus\":1}\n")...), 0o644)
	empty := t.TempDir()
	if code, _, errs := run(t, empty, "", "import", bad); code != 2 || !strings.Contains(errs, "line 3") {
		t.Fatalf("bad import: %d %s", code, errs)
	}
	if _, out, _ := run(t, empty, "", "list", "--json"); !strings.Contains(out, `"total": 0`) {
		t.Fatalf("a bad import stored records: %s", out)
	}
}

// syncBuffer is a bytes.Buffer safe to read while the server writes logs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestServe(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var logs syncBuffer
	done := make(chan int)
	go func() {
		done <- testMain(ctx, []string{"--data", dir, "serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), &logs, &logs)
	}()
	addrRE := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)
	var addr string
	for i := 0; i < 500 && addr == ""; i++ {
		if m := addrRE.FindStringSubmatch(logs.String()); m != nil {
			addr = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if addr == "" {
		t.Fatalf("server did not start: %s", logs.String())
	}
	resp, err := http.Post("http://"+addr+"/v1/memories", "application/json", strings.NewReader(`{"agent_id":"default","content":"served"}`))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("POST: %v %v", resp, err)
	}
	resp.Body.Close()
	// The MCP endpoint is mounted on the same server.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, _ := http.NewRequest("POST", "http://"+addr+"/mcp", strings.NewReader(init))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Mnemo-Agent", "default")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "serverInfo") {
		t.Fatalf("POST /mcp: %d %s", resp.StatusCode, body)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, logs.String())
	}
	// What the server stored, the CLI reads (same embedded store).
	if _, out, _ := run(t, dir, "", "recall", "served"); !strings.Contains(out, "served") {
		t.Fatalf("CLI does not see served memory: %s", out)
	}
	// Non-loopback without auth is refused.
	if code, _, errs := run(t, dir, "", "serve", "--addr", "0.0.0.0:0"); code != 2 || !strings.Contains(errs, "insecure-bind") {
		t.Fatalf("non-loopback serve: %d %s", code, errs)
	}
}

func TestRetrievalLimitFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []string{"tea one", "tea two", "tea three"} {
		run(t, dir, "", "remember", c)
	}
	t.Setenv("MEMORY_RETRIEVAL_LIMIT", "2")
	var res memory.Result
	if code, out, errs := run(t, dir, "", "surface", "--json", "tea"); code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Results) != 2 {
		t.Fatalf("MEMORY_RETRIEVAL_LIMIT=2: %d %s %s", code, out, errs)
	}
	t.Setenv("MEMORY_RETRIEVAL_LIMIT", "lots")
	if code, _, errs := run(t, dir, "", "surface", "tea"); code != 2 || !strings.Contains(errs, "MEMORY_RETRIEVAL_LIMIT") {
		t.Fatalf("bad MEMORY_RETRIEVAL_LIMIT: %d %s", code, errs)
	}
}
