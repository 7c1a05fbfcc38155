package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// MEM-16: `mnemo serve` on the embedded SQLite store in the default
// configuration, killed with SIGKILL while agents post their turns, one
// and five a request, at once so that their writes share commits: every
// turn acknowledged is in the store opened again, and the file is whole.
func TestServeKilledMidIngest(t *testing.T) {
	t.Parallel()
	bin := buildMnemo(t)
	data := t.TempDir()
	p := spawnServe(t, bin, data, nil)

	const agents = 4
	acked := make([][]string, agents)
	var requests atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: time.Minute}
	for a := range agents {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var msgs []map[string]string
				for j := range 1 + 4*(a%2) {
					msgs = append(msgs, map[string]string{"role": "user", "content": fmt.Sprintf("agent %d says %d.%d about the lake", a, i, j)})
				}
				body, _ := json.Marshal(map[string]any{"agent_id": fmt.Sprintf("a%d", a), "session_id": "s", "messages": msgs})
				resp, err := client.Post("http://"+p.addr+"/v1/messages", "application/json", bytes.NewReader(body))
				if err != nil {
					return // killed: not acknowledged
				}
				var out struct {
					IDs []string `json:"ids"`
				}
				err = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated || err != nil || len(out.IDs) != len(msgs) {
					continue
				}
				acked[a] = append(acked[a], out.IDs...)
				requests.Add(1)
			}
		})
	}
	for deadline := time.Now().Add(2 * time.Minute); requests.Load() < 200 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
	close(stop)
	wg.Wait()
	if n := requests.Load(); n < 20 {
		t.Fatalf("only %d requests acknowledged before the kill: %s", n, p.logs.String())
	}

	ctx := t.Context()
	path := filepath.Join(data, "mnemo.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	var check string
	if err := raw.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q, %v", check, err)
	}
	raw.Close()
	db, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	turns := 0
	for a, ids := range acked {
		scope := mnemo.Scope{TenantID: "default", AgentID: fmt.Sprintf("a%d", a)}
		for _, id := range ids {
			if _, err := db.Get(ctx, scope, id); err != nil {
				t.Errorf("acknowledged turn %s of agent %d: %v", id, a, err)
			}
		}
		turns += len(ids)
	}
	t.Logf("%d requests, %d turns acknowledged before the kill", requests.Load(), turns)
}
