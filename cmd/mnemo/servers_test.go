package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/postgres"
)

// mnemoProcess is a `mnemo serve` process of the built binary.
type mnemoProcess struct {
	cmd  *exec.Cmd
	addr string
	logs *syncBuffer
}

// spawnServe starts bin serving with env and extra serve flags, and waits
// until it listens.
func spawnServe(t testing.TB, bin, data string, env []string, flags ...string) *mnemoProcess {
	t.Helper()
	logs := &syncBuffer{}
	args := append([]string{"--data", data, "serve", "--addr", "127.0.0.1:0"}, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &mnemoProcess{cmd: cmd, logs: logs}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	addrRE := regexp.MustCompile(`msg="mnemo serving" addr=(127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(logs.String()); m != nil {
			p.addr = m[1]
			return p
		}
	}
	t.Fatalf("mnemo serve did not start: %s", logs.String())
	return nil
}

// buildMnemo builds the mnemo binary into a temporary directory.
func buildMnemo(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mnemo")
	if out, err := exec.Command("go", "build", "-ldflags=-w", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// PG-10: three `mnemo serve` processes on one PostgreSQL store, with a
// writer on each (each writer's writes going round the servers), one
// server killed with SIGKILL mid-run and started again. Every
// acknowledged write is in the store, every key at its last acknowledged
// value, and each background job ran at most once a period across the
// servers, on after the kill as before.
func TestServersShareOneDatabase(t *testing.T) {
	t.Parallel()
	bin := buildMnemo(t)
	dsn := pgtest.Native(t)
	env := []string{"MNEMO_STORE=postgres", "MNEMO_POSTGRES_DSN=" + dsn, "MNEMO_EMBEDDING=none"}
	const n = 3
	start := func(i int) *mnemoProcess {
		return spawnServe(t, bin, filepath.Join(t.TempDir(), fmt.Sprint(i)), env, "--job-every", "200ms", "--log-level", "debug")
	}
	var (
		addrs [n]atomic.Value
		procs [n]*mnemoProcess
		logs  []*syncBuffer
	)
	for i := range n {
		procs[i] = start(i)
		addrs[i].Store(procs[i].addr)
		logs = append(logs, procs[i].logs)
	}

	type acked struct {
		ids  []string          // keyless memories
		last map[string]string // key → last acknowledged content
	}
	results := make([]acked, n)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second}
	for w := range n {
		results[w].last = map[string]string{}
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body := map[string]string{"agent_id": fmt.Sprintf("w%d", w), "content": fmt.Sprintf("writer %d wrote note %d", w, i)}
				if i%2 == 0 {
					body["key"] = fmt.Sprintf("/writer/k%d", i%10)
				}
				b, _ := json.Marshal(body)
				base := "http://" + addrs[(w+i)%n].Load().(string)
				resp, err := client.Post(base+"/v1/memories", "application/json", bytes.NewReader(b))
				if err != nil {
					continue // not acknowledged: the server is down
				}
				var m struct {
					ID string `json:"id"`
				}
				err = json.NewDecoder(resp.Body).Decode(&m)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK || err != nil {
					continue
				}
				if k := body["key"]; k != "" {
					results[w].last[k] = body["content"]
				} else {
					results[w].ids = append(results[w].ids, m.ID)
				}
			}
		})
	}

	time.Sleep(1500 * time.Millisecond)
	procs[1].cmd.Process.Signal(syscall.SIGKILL)
	procs[1].cmd.Wait()
	killed := time.Now()
	time.Sleep(time.Second)
	procs[1] = start(1)
	addrs[1].Store(procs[1].addr)
	logs = append(logs, procs[1].logs)
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	wg.Wait()
	for _, p := range procs {
		p.cmd.Process.Signal(os.Interrupt)
		p.cmd.Wait()
	}

	ctx := t.Context()
	db, err := postgres.Open(ctx, dsn, postgres.Options{NoMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	writes := 0
	for w, r := range results {
		scope := mnemo.Scope{TenantID: "default", AgentID: fmt.Sprintf("w%d", w)}
		for _, id := range r.ids {
			if _, err := db.Get(ctx, scope, id); err != nil {
				t.Errorf("acknowledged memory %s of writer %d: %v", id, w, err)
			}
		}
		for k, want := range r.last {
			if m, err := db.GetByKey(ctx, scope, k); err != nil || m.Content != want {
				t.Errorf("writer %d's %s: %q %v, want its last acknowledged %q", w, k, m.Content, err, want)
			}
		}
		writes += len(r.ids) + len(r.last)
	}
	if writes < 3*n {
		t.Fatalf("only %d acknowledged writes: the servers did not serve", writes)
	}

	// Every run a server logged is the one run of its job's period.
	runs, err := db.JobRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]bool{}
	after := map[string]bool{}
	for _, r := range runs {
		recorded[fmt.Sprintf("%s@%d", r.Job, r.Period.UnixNano())] = true
		if r.Started.After(killed) {
			after[r.Job] = true
		}
	}
	ranRE := regexp.MustCompile(`msg="background job ran" job=(\w+) period=(\d+)`)
	logged := map[string]int{}
	for _, l := range logs {
		for _, m := range ranRE.FindAllStringSubmatch(l.String(), -1) {
			logged[m[1]+"@"+m[2]]++
		}
	}
	for run, k := range logged {
		if k > 1 || !recorded[run] {
			t.Errorf("job run %s: logged %d times, recorded %v; want once", run, k, recorded[run])
		}
	}
	for _, job := range []string{"sweep", "reflect"} {
		if !after[job] {
			t.Errorf("no %s run after the kill: %d runs in all", job, len(runs))
		}
	}
	if len(logged) == 0 {
		t.Fatal("no job run was logged")
	}
	t.Logf("%d acknowledged writes; %d job runs, %d logged", writes, len(runs), len(logged))
}

// BenchmarkServersRecall measures recall throughput of 1, 2 and 3 `mnemo
// serve` processes on one PostgreSQL store (PG-10), eight clients spread
// over the servers, on a store of 2,000 memories, full text and recency
// (PostgreSQL 15 without pgvector, embedding none). Server, database and
// clients share the machine.
//
//	go test -run '^$' -bench ServersRecall -benchtime 2000x ./cmd/mnemo
func BenchmarkServersRecall(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "mnemo")
	if out, err := exec.Command("go", "build", "-ldflags=-w", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	dsn := pgtest.Native(b)
	env := []string{"MNEMO_STORE=postgres", "MNEMO_POSTGRES_DSN=" + dsn, "MNEMO_EMBEDDING=none"}
	var procs []*mnemoProcess
	for i := range 3 {
		procs = append(procs, spawnServe(b, bin, filepath.Join(b.TempDir(), fmt.Sprint(i)), env))
	}
	topics := []string{"deploy", "invoice", "editor", "birthday", "standup", "database", "auditor", "vacation"}
	var batch []map[string]string
	for i := range 2000 {
		batch = append(batch, map[string]string{"content": fmt.Sprintf("note %d about the %s of team %d and the %s", i, topics[i%8], i%37, topics[(i/8)%8])})
		if len(batch) == 100 {
			body, _ := json.Marshal(map[string]any{"agent_id": "bench", "memories": batch})
			resp, err := http.Post("http://"+procs[0].addr+"/v1/memories/batch", "application/json", bytes.NewReader(body))
			if err != nil || resp.StatusCode >= 300 {
				b.Fatalf("seed: %v %v", resp, err)
			}
			resp.Body.Close()
			batch = batch[:0]
		}
	}
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			var next atomic.Uint64
			b.SetParallelism(4)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				client := &http.Client{}
				for pb.Next() {
					i := next.Add(1)
					body := fmt.Sprintf(`{"agent_id":"bench","query":"the %s of team %d","limit":5}`, topics[i%8], i%37)
					resp, err := client.Post("http://"+procs[int(i)%n].addr+"/v1/recall", "application/json", strings.NewReader(body))
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("recall: %s", resp.Status)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "recalls/s")
		})
	}
}

// PG-11 through `mnemo serve`: store.postgres.read_dsn in the config file
// sends recall to the replica, and a replica stopped is skipped, recall
// answering from the primary flagged degraded.
func TestServeReadReplica(t *testing.T) {
	t.Parallel()
	bin := buildMnemo(t)
	pair := pgtest.StreamingPair(t)
	cfg := filepath.Join(t.TempDir(), "mnemo.yml")
	yml := fmt.Sprintf("store:\n  backend: postgres\n  postgres:\n    dsn: %s\n    read_dsn: %s\n    read_your_writes: -1s\n    replica_max_lag: 1m\n", pair.Primary, pair.Replica)
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	p := spawnServe(t, bin, t.TempDir(), []string{"MNEMO_CONFIG=" + cfg, "MNEMO_EMBEDDING=none"})
	base := "http://" + p.addr
	resp, err := http.Post(base+"/v1/memories", "application/json", strings.NewReader(`{"agent_id":"a","content":"The replica serves the harbour timetable"}`))
	if err != nil {
		t.Fatalf("remember: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("remember: %s %s\nserver log:\n%s", resp.Status, body, p.logs.String())
	}
	if err := pair.WaitReplayed(t.Context()); err != nil {
		t.Fatal(err)
	}
	recall := func() (n int, degraded bool, reason string) {
		t.Helper()
		resp, err := http.Post(base+"/v1/recall", "application/json", strings.NewReader(`{"agent_id":"a","query":"harbour timetable"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r struct {
			Results  []json.RawMessage `json:"results"`
			Degraded bool              `json:"degraded"`
			Reason   string            `json:"reason"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("recall: %s %v", resp.Status, err)
		}
		return len(r.Results), r.Degraded, r.Reason
	}
	var (
		n        int
		degraded bool
		reason   string
	)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if n, degraded, _ = recall(); n == 1 && !degraded {
			break
		}
	}
	if n != 1 || degraded {
		t.Fatalf("recall with the replica up: %d results, degraded %v", n, degraded)
	}
	if out, err := pair.StopReplica(); err != nil {
		t.Fatalf("stop the replica: %v\n%s", err, out)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if n, degraded, reason = recall(); degraded {
			break
		}
	}
	if n != 1 || !degraded || !strings.Contains(reason, "unreachable") {
		t.Fatalf("recall with the replica stopped: %d results, degraded %v (%s); want the primary's answer, flagged", n, degraded, reason)
	}
}
