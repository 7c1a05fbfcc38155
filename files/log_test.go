package files

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func env(key string, n int) Envelope {
	content, _ := json.Marshal(map[string]any{"n": n, "pad": strings.Repeat("x", n%300)})
	return Envelope{Key: key, TS: time.Unix(int64(n), 0).UTC(), Valid: true, Source: json.RawMessage(`"test"`), Content: content}
}

// replayAll returns the envelopes of the log in dir.
func replayAll(t *testing.T, dir string) []Envelope {
	t.Helper()
	l, err := OpenLog(dir, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var out []Envelope
	if err := l.Replay(func(e Envelope) error { out = append(out, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLogRoundTrip(t *testing.T) {
	dir := t.TempDir()
	l, err := OpenLog(dir, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tomb := Envelope{Key: "/user/old", TS: time.Unix(9, 0).UTC(), Valid: false, Content: json.RawMessage("null")}
	if err := l.Append(env("/user/a", 1), env("/user/b", 2)); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(tomb); err != nil {
		t.Fatal(err)
	}
	l.Close()
	got := replayAll(t, dir)
	if len(got) != 3 || got[0].Key != "/user/a" || got[2].Valid || string(got[2].Content) != "null" || !got[1].TS.Equal(time.Unix(2, 0)) {
		t.Fatalf("replayed %+v", got)
	}
	// The log is FS-11's: one envelope (FS-8) per line, grep-able.
	data, _ := os.ReadFile(filepath.Join(dir, LogName))
	if lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], `{"key":"/user/a","ts":"1970-01-01T00:00:01Z","valid":true`) {
		t.Fatalf("log.jsonl:\n%s", data)
	}
}

// A crash in the middle of an append leaves a line without its newline:
// it is cut on open, and the next append starts a clean line.
func TestLogRepairsTornTail(t *testing.T) {
	dir := t.TempDir()
	l, _ := OpenLog(dir, LogOptions{})
	l.Append(env("/a", 1))
	l.Close()
	f, _ := os.OpenFile(filepath.Join(dir, LogName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"key":"/torn","ts":"1970-01-0`)
	f.Close()
	l, err := OpenLog(dir, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(env("/b", 2)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	got := replayAll(t, dir)
	if len(got) != 2 || got[0].Key != "/a" || got[1].Key != "/b" {
		t.Fatalf("after repair: %+v", got)
	}
	// A torn tail that another process leaves behind an open log is cut by
	// the next append too.
	l, _ = OpenLog(dir, LogOptions{})
	f, _ = os.OpenFile(filepath.Join(dir, LogName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"key":"/half`)
	f.Close()
	l.Append(env("/c", 3))
	l.Close()
	if got := replayAll(t, dir); len(got) != 3 || got[2].Key != "/c" {
		t.Fatalf("after a torn tail behind an open log: %+v", got)
	}
	// A line that is not an envelope is an error, named.
	os.WriteFile(filepath.Join(dir, LogName), []byte("not json\n"), 0o644)
	l, _ = OpenLog(dir, LogOptions{})
	defer l.Close()
	if err := l.Replay(func(Envelope) error { return nil }); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("garbage: %v", err)
	}
}

func TestLogConcurrentGoroutines(t *testing.T) {
	dir := t.TempDir()
	l, _ := OpenLog(dir, LogOptions{NoSync: true})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				if err := l.Append(env(fmt.Sprintf("/g%d/%d", g, i), i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	l.Close()
	if got := replayAll(t, dir); len(got) != 800 {
		t.Fatalf("%d envelopes, want 800", len(got))
	}
}

// The helper process appends for the tests below: MNEMO_LOG_HELPER is the
// memory root, MNEMO_LOG_N how many appends (0: until killed); it prints
// "ack <n>" after each append returns.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("MNEMO_LOG_HELPER")
	if dir == "" {
		t.Skip("helper process only")
	}
	n, _ := strconv.Atoi(os.Getenv("MNEMO_LOG_N"))
	id := os.Getenv("MNEMO_LOG_ID")
	l, err := OpenLog(dir, LogOptions{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for i := 0; n == 0 || i < n; i++ {
		if err := l.Append(env(fmt.Sprintf("/p%s/%d", id, i), i), env(fmt.Sprintf("/p%s/%d/b", id, i), i)); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("ack", i)
	}
	os.Exit(0)
}

func helper(t *testing.T, dir, id string, n int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "MNEMO_LOG_HELPER="+dir, "MNEMO_LOG_ID="+id, "MNEMO_LOG_N="+strconv.Itoa(n))
	return cmd
}

// Separate processes appending to one root never interleave or tear a
// line.
func TestLogConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for p := range 4 {
		cmd := helper(t, dir, strconv.Itoa(p), 50)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	got := replayAll(t, dir)
	if len(got) != 400 {
		t.Fatalf("%d envelopes, want 400", len(got))
	}
	// Each append's two lines are together.
	for i := 0; i < len(got); i += 2 {
		if got[i+1].Key != got[i].Key+"/b" {
			t.Fatalf("lines %d and %d are of different appends: %s, %s", i, i+1, got[i].Key, got[i+1].Key)
		}
	}
}

// Kill a writer in the middle of appending: every append it acknowledged
// is in the log, and the log reads clean.
func TestLogKilledWriter(t *testing.T) {
	dir := t.TempDir()
	cmd := helper(t, dir, "k", 0)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := -1
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "ack ")); err == nil {
			acked = n
		}
		if acked >= 40 {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	got := replayAll(t, dir)
	have := map[string]bool{}
	for _, e := range got {
		have[e.Key] = true
	}
	for i := 0; i <= acked; i++ {
		if !have[fmt.Sprintf("/pk/%d", i)] || !have[fmt.Sprintf("/pk/%d/b", i)] {
			t.Fatalf("acknowledged append %d lost (%d envelopes)", i, len(got))
		}
	}
	if len(got)%2 != 0 {
		t.Fatalf("half an append survived: %d envelopes", len(got))
	}
}
