package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// readOnly makes dir unwritable for this process. Root ignores modes, so
// as root the directory is made immutable instead (chattr +i).
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("as root, a directory is unwritable only when immutable, and chattr +i failed: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

// An existing data directory mnemo may not write to is named, with the
// cause, instead of SQLite's "unable to open database file (14)".
func TestDataDirNotWritable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, errs := run(t, dir, "", "stats"); code != 0 {
		t.Fatalf("stats: %d %s", code, errs)
	}
	readOnly(t, dir)
	code, _, errs := run(t, dir, "", "remember", "a fact worth keeping")
	if code != exitUsage || !strings.Contains(errs, dir) || !strings.Contains(errs, "permission denied") || strings.Contains(errs, "(14)") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// A port in use says how to choose another.
func TestServePortInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, errs := run(t, t.TempDir(), "", "serve", "--addr", ln.Addr().String())
	if code == 0 || !strings.Contains(errs, ln.Addr().String()) || !strings.Contains(errs, "--addr") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

// /mcp without X-Mnemo-Agent names the header (with no keys, or a key of
// several agents, the agent cannot be guessed).
func TestMCPNoAgentHeader(t *testing.T) {
	t.Parallel()
	base := startServe(t, "--data", t.TempDir())
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: http.DefaultClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "status"})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcpsdk.TextContent).Text, "X-Mnemo-Agent") {
		t.Fatalf("status without the header: %+v, %v", res, err)
	}
}
