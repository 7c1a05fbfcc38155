package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEventLayerCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mnemo := runner(t, dir)
	db := strings.TrimSpace(mnemo("events", "append", "--type", "user.message", "--source", "chat", "--payload", `{"text":"the Postgres database migration failed"}`))
	mnemo("events", "append", "--type", "user.message", "--source", "chat", "--payload", `{"text":"I booked a flight to Lisbon"}`)
	if out := mnemo("events", "search", "database", "migration"); !strings.HasPrefix(strings.SplitN(out, " ", 3)[1], db) {
		t.Fatalf("search: %s; want %s first", out, db)
	}
	if out := mnemo("events", "search", "--vector", "[1,0]", "--model", "elsewhere"); out != "" {
		t.Fatalf("search in an empty space: %q", out)
	}
	if out := mnemo("events", "relate-text", db); !strings.Contains(out, db+" -mentions-> entity:Postgres") {
		t.Fatalf("relate-text: %s", out)
	}
	if out := mnemo("events", "profile", "interact", "I love sailing"); !strings.Contains(out, "updated: true") || !strings.Contains(out, "interests: sailing") {
		t.Fatalf("profile interact: %s", out)
	}
	if out := mnemo("events", "profile", "show"); !strings.Contains(out, "version 1: 1 interaction, 1 update; phase initial, every 1, next in 1") {
		t.Fatalf("profile show: %s", out)
	}
	if out := mnemo("events", "prune-vectors", "--older-than", "1ns", "--min-access", "100"); out != "pruned 2 event vectors\n" {
		t.Fatalf("prune-vectors: %q", out)
	}
	if code, _, errs := run(t, dir, "", "events", "search", "--vector", "[1,"); code == 0 || !strings.Contains(errs, "--vector") {
		t.Fatalf("bad vector: %d %s", code, errs)
	}
}

// Options set in the config file take effect: text relations on, and an
// event type counted as a profile interaction, both from one append.
func TestEventConfigTakesEffect(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mnemo.yml")
	os.WriteFile(cfg, []byte("events:\n  text_relations:\n    enabled: true\n  profile:\n    interaction_types: [user.message]\n"), 0o644)
	plain, configured := runner(t, dir), func(args ...string) string {
		t.Helper()
		return runner(t, dir)(append([]string{"--config", cfg}, args...)...)
	}
	// Without the config, an append makes neither.
	id := strings.TrimSpace(plain("events", "append", "--type", "user.message", "--source", "chat", "--payload", `{"text":"I love sailing near Lisbon"}`))
	if out := plain("events", "graph", "neighbours", id); strings.Contains(out, "entity:") {
		t.Fatalf("text relations without the config: %s", out)
	}
	if out := plain("events", "profile", "show"); strings.Contains(out, "sailing") {
		t.Fatalf("an interaction without the config: %s", out)
	}
	id = strings.TrimSpace(configured("events", "append", "--type", "user.message", "--source", "chat", "--payload", `{"text":"I love sailing near Lisbon"}`))
	if out := configured("events", "graph", "neighbours", id); !strings.Contains(out, "-mentions-> entity:Lisbon") {
		t.Fatalf("neighbours of %s with text_relations enabled: %s", id, out)
	}
	if out := configured("events", "profile", "show"); !strings.Contains(out, "interests: sailing") {
		t.Fatalf("profile with interaction_types: %s", out)
	}
	// A replay to a webhook that is down gives up after events.webhook's
	// attempts.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String() + "/hook"
	ln.Close()
	os.WriteFile(cfg, []byte("events:\n  webhook: {attempts: 2, backoff: 1ms, timeout: 2s}\n"), 0o644)
	if code, _, errs := run(t, dir, "", "--config", cfg, "events", "replay", "--webhook", down); code == 0 || !strings.Contains(errs, "after 2 attempts") {
		t.Fatalf("replay to a webhook that is down: %d %s", code, errs)
	}
}
