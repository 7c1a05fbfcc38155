package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/backup"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// mnemoProcess runs the test binary as mnemo (TestMain), a process of its
// own.
func mnemoCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), readmeCLI+"=1")
	return cmd
}

// `mnemo backup`, a process of its own, backs up the store of a running
// `mnemo serve` while writers post to it; `mnemo restore` into an empty
// directory gives back every write acknowledged before the backup began
// (OPS-11, OPS-12, OPS-13). A damaged copy of the backup is refused with
// exit 2, and its target left absent.
func TestBackupWhileServing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	var logs syncBuffer
	serve := mnemoCommand(ctx, "--data", data, "serve", "--addr", "127.0.0.1:0")
	serve.Stderr = &logs
	serve.Cancel = func() error { return serve.Process.Signal(syscall.SIGTERM) }
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	addrRE := regexp.MustCompile(`addr=(127\.0\.0\.1:\d+)`)
	var addr string
	testwait.Until(t, 20*time.Second, "the server to start", func() bool {
		if m := addrRE.FindStringSubmatch(logs.String()); m != nil {
			addr = m[1]
		}
		return addr != ""
	})

	var (
		mu    sync.Mutex
		acked []string
		wg    sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("/load/w%d/%d", w, i)
				body, _ := json.Marshal(map[string]any{"agent_id": "loader", "key": key,
					"content": fmt.Sprintf("writer %d wrote note %d while a backup ran", w, i)})
				resp, err := http.Post("http://"+addr+"/v1/memories", "application/json", bytes.NewReader(body))
				if err != nil {
					t.Errorf("post %s: %v", key, err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode/100 != 2 {
					t.Errorf("post %s: %s", key, resp.Status)
					return
				}
				mu.Lock()
				acked = append(acked, key)
				mu.Unlock()
			}
		})
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	testwait.Until(t, 20*time.Second, "writes to be acknowledged", func() bool { return count() >= 60 })
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()

	dest := filepath.Join(dir, "backup")
	if out, err := mnemoCommand(ctx, "--data", data, "backup", dest).CombinedOutput(); err != nil {
		t.Fatalf("mnemo backup: %v: %s", err, out)
	}
	n := count()
	testwait.Until(t, 20*time.Second, "writes after the backup", func() bool { return count() >= n+20 })
	close(stop)
	wg.Wait()
	cancel()
	serve.Wait()

	// A damaged copy is refused, and nothing is left where it was to go.
	damaged := filepath.Join(dir, "damaged")
	copyDir(t, dest, damaged)
	f, err := os.OpenFile(filepath.Join(damaged, "mnemo.db"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{0xde, 0xad}, 8192)
	f.Close()
	bad := filepath.Join(dir, "bad-target")
	out, err := mnemoCommand(t.Context(), "--data", bad, "restore", damaged).CombinedOutput()
	if code := exitCode(err); code != exitUsage || !strings.Contains(string(out), "checksum mismatch") || strings.Count(string(out), "\n") != 1 {
		t.Errorf("restore of a damaged backup: exit %d: %q, want exit 2 and one line naming the checksum", code, out)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("after a refused restore, %s: %v", bad, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".bad-target*")); len(left) > 0 {
		t.Errorf("a refused restore left %v", left)
	}

	// A non-empty target is refused, in one line.
	out, err = mnemoCommand(t.Context(), "--data", data, "restore", dest).CombinedOutput()
	if code := exitCode(err); code != exitUsage || !strings.Contains(string(out), "not empty") || strings.Count(string(out), "\n") != 1 {
		t.Errorf("restore into the live data directory: exit %d: %q, want exit 2 and one line", code, out)
	}

	restored := filepath.Join(dir, "restored")
	if out, err := mnemoCommand(t.Context(), "--data", restored, "restore", dest).CombinedOutput(); err != nil {
		t.Fatalf("mnemo restore: %v: %s", err, out)
	}
	db, err := sqlite.Open(t.Context(), filepath.Join(restored, "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sc := mnemo.Scope{TenantID: "default", AgentID: "loader"}
	for _, key := range before {
		if _, err := db.GetByKey(t.Context(), sc, key); err != nil {
			t.Errorf("acknowledged before the backup, %s: %v", key, err)
		}
	}
}

// serve backs the store up every backup.every and keeps the newest
// backup.keep (OPS-14).
func TestScheduledBackups(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	backups := filepath.Join(dir, "backups")
	cfg := filepath.Join(dir, "mnemo.yml")
	os.WriteFile(cfg, []byte("backup:\n  every: 1h\n  keep: 2\n  dir: "+backups+"\n"), 0o644)
	if code, _, errs := run(t, filepath.Join(dir, "data"), "", "remember", "a memory worth keeping"); code != 0 {
		t.Fatal(errs)
	}
	// A backup directory of someone else's is not pruned.
	os.MkdirAll(filepath.Join(backups, "mine"), 0o755)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var logs syncBuffer
	a := newApp(strings.NewReader(""), &logs, &logs)
	a.builtins = sharedBuiltins
	a.jobEvery = 20 * time.Millisecond
	var (
		mu   sync.Mutex
		runs int
	)
	a.jobHook = func(job string, running bool) {
		if job == "backup" && !running {
			mu.Lock()
			runs++
			mu.Unlock()
		}
	}
	done := make(chan int)
	go func() {
		done <- a.main(ctx, []string{"--config", cfg, "--data", filepath.Join(dir, "data"), "serve", "--addr", "127.0.0.1:0"})
	}()
	testwait.Until(t, 20*time.Second, "five scheduled backups", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return runs >= 5
	})
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, logs.String())
	}
	kept, _ := filepath.Glob(filepath.Join(backups, backupPrefix+"*"))
	if len(kept) != 2 {
		t.Fatalf("kept %v, want the newest 2 of at least 5: %s", kept, logs.String())
	}
	for _, k := range kept {
		if _, err := backup.Verify(t.Context(), k); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(backups, "mine")); err != nil {
		t.Errorf("pruning removed a directory not its own: %v", err)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// The stores mnemo does not back up are refused in one line that says
// what to use instead, by `mnemo backup` and by a schedule at serve's
// start (OPS-15).
func TestBackupRefusesPostgres(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mnemo.yml")
	os.WriteFile(cfg, []byte("store:\n  backend: postgres\n  postgres: {dsn: 'postgres://nobody@127.0.0.1:1/none'}\nbackup:\n  every: 1h\n  dir: "+dir+"\n"), 0o644)
	for _, args := range [][]string{
		{"--config", cfg, "backup", filepath.Join(dir, "b")},
		{"--config", cfg, "serve", "--addr", "127.0.0.1:0"},
	} {
		code, _, errs := run(t, dir, "", args...)
		if code != exitUsage || !strings.Contains(errs, "pg_dump") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d: %q, want exit 2 and one line naming pg_dump", args, code, errs)
		}
	}
}
