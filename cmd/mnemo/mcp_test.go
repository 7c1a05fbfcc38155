package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPStdioBinary drives `mnemo mcp` as an MCP client does: spawn it,
// talk on its stdin and stdout. The test binary stands in for mnemo
// (TestMain), rather than a build of its own beside it.
func TestMCPStdioBinary(t *testing.T) {
	t.Parallel()
	if !registered("mcp") {
		t.Skip("mnemo mcp is not in rootCommand yet: add a.mcpCommand() to its commands")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	var stderr bytes.Buffer
	cmd := exec.Command(self, "--data", dir, "--agent", "tester", "mcp")
	cmd.Env = append(os.Environ(), readmeCLI+"=1")
	cmd.Stderr = &stderr
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "0"}, nil)
	start := time.Now()
	cs, err := client.Connect(t.Context(), &mcpsdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	// Clients spawn the server on demand and wait for it: start-up is part
	// of every first call. Its time is BenchmarkMCPStart's, not asserted.
	t.Logf("start-up and initialize took %v", time.Since(start))
	if got := cs.InitializeResult().ServerInfo.Name; got != "mnemo" {
		t.Errorf("server name %q", got)
	}

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	names := map[string]bool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = true
	}
	for _, want := range []string{"remember", "recall", "surface", "recall_path", "forget", "status", "set_memory", "boot", "reflect", "ingest", "capabilities", "event_summary", "search_events"} {
		if !names[want] {
			t.Errorf("list tools: no %s among %d tools", want, len(tools.Tools))
		}
	}
	// Text of only prefix tokens is handled, not a crash (OPS-8).
	callTool(t, cs, "remember", map[string]any{"content": "Python*"})
	res := callTool(t, cs, "remember", map[string]any{"content": "The deploy window is Thursday 14:00", "key": "/team/deploy"})
	var rem struct{ ID string }
	decodeJSON(t, res.StructuredContent, &rem)
	res = callTool(t, cs, "recall", map[string]any{"query": "deploy window"})
	var got struct {
		Count    int
		Memories []struct{ ID string }
	}
	decodeJSON(t, res.StructuredContent, &got)
	if rem.ID == "" || got.Count != 1 || got.Memories[0].ID != rem.ID {
		t.Fatalf("recall: %+v, want %s", got, rem.ID)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if s := stderr.String(); strings.Contains(s, "level=ERROR") {
		t.Errorf("stderr: %s", s)
	}

	// The CLI sees what MCP wrote, in the same agent only.
	if code, out, errs := run(t, dir, "", "--agent", "tester", "get", "--key", "/team/deploy"); code != 0 || !strings.Contains(out, "Thursday 14:00") {
		t.Fatalf("get after mcp: %d %s %s", code, out, errs)
	}
	if code, _, _ := run(t, dir, "", "--agent", "other", "get", "--key", "/team/deploy"); code != exitUsage {
		t.Fatalf("another agent sees the memory: exit %d", code)
	}
}

// BenchmarkMCPStart measures what a client waits for on its first call:
// spawning `mnemo mcp` on a new store and the initialize handshake.
//
//	go test -run '^$' -bench MCPStart ./cmd/mnemo
func BenchmarkMCPStart(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "mnemo")
	if out, err := exec.Command("go", "build", "-ldflags=-w", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench", Version: "0"}, nil)
	for b.Loop() {
		cmd := exec.Command(bin, "--data", b.TempDir(), "--agent", "bench", "mcp")
		cs, err := client.Connect(b.Context(), &mcpsdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatalf("initialize: %v", err)
		}
		b.StopTimer()
		cs.Close()
		b.StartTimer()
	}
}

// TestMCPCommand runs the mcp command in process over pipes, and checks that
// a bad scope stops it before it serves.
func TestMCPCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	cfg := defaultConfig()
	cfg.Data, cfg.Tenant, cfg.Agent = dir, "t1", "a1"
	a := &app{stdin: inR, stdout: outW, stderr: &stderr, getenv: os.Getenv, cfg: cfg}
	ctx, cancel := context.WithCancel(t.Context())
	cmd := a.mcpCommand()
	cmd.SetContext(ctx)
	done := make(chan error, 1)
	go func() {
		done <- cmd.RunE(cmd, nil)
		outW.Close()
	}()

	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcpsdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := callTool(t, cs, "status", nil)
	var st struct {
		TenantID string `json:"tenant_id"`
		AgentID  string `json:"agent_id"`
	}
	decodeJSON(t, res.StructuredContent, &st)
	if st.TenantID != "t1" || st.AgentID != "a1" {
		t.Fatalf("status scope: %+v, want t1/a1 from the flags", st)
	}
	cs.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("mcp: %v", err)
	}

	cfg.Agent = "has space"
	a = &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: os.Getenv, cfg: cfg}
	cmd = a.mcpCommand()
	cmd.SetContext(t.Context())
	var ue usageError
	if err := cmd.RunE(cmd, nil); !errors.As(err, &ue) {
		t.Fatalf("bad agent: %v, want a usage error", err)
	}
}

// registered reports whether the root command has a subcommand name.
func registered(name string) bool {
	root := (&app{}).rootCommand()
	for _, c := range root.Commands() {
		if c.Name() == name {
			return true
		}
	}
	return false
}

func callTool(t *testing.T, cs *mcpsdk.ClientSession, name string, args any) *mcpsdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcpsdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		t.Fatalf("%s: %s", name, b.String())
	}
	return res
}

func decodeJSON(t *testing.T, v, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}
