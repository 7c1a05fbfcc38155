package files

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCompact(t *testing.T) {
	for _, h := range []History{KeepLog, RotateLog} {
		root := t.TempDir()
		l, _ := OpenLog(root, LogOptions{NoSync: true})
		at := func(s int) time.Time { return time.Unix(int64(s), 0).UTC() }
		l.Append(
			Envelope{Key: "/user/city", TS: at(10), Valid: true, Content: json.RawMessage(`"Berlin"`)},
			Envelope{Key: "/user/city", TS: at(30), Valid: true, Content: json.RawMessage(`"Lisbon"`)},
			Envelope{Key: "/user/gone", TS: at(5), Valid: true, Content: json.RawMessage(`{}`)},
			Envelope{Key: "/user/gone", TS: at(6), Content: json.RawMessage(`null`)},
		)
		// Another process's log handle, open across the rotation.
		other, _ := OpenLog(root, LogOptions{NoSync: true})
		res, err := Compact(root, l, h, time.Date(2026, 2, 23, 0, 0, 0, 0, time.UTC))
		if err != nil || res.Read != 4 || res.Keys != 2 || res.Live != 1 {
			t.Fatalf("%v: compact = %+v, %v", h, res, err)
		}
		state, _ := os.ReadFile(filepath.Join(root, StateName))
		if lines := strings.Count(string(state), "\n"); lines != 2 || !strings.Contains(string(state), `"Lisbon"`) || strings.Contains(string(state), "Berlin") {
			t.Fatalf("%v: state:\n%s", h, state)
		}
		if h == RotateLog && res.Archived != "archive/log_20260223.jsonl" {
			t.Fatalf("archived as %q", res.Archived)
		}
		// Writes after the compaction, from both handles, land in the current log.
		l.Append(Envelope{Key: "/user/city", TS: at(40), Valid: true, Content: json.RawMessage(`"Porto"`)})
		other.Append(Envelope{Key: "/user/pet", TS: at(41), Valid: true, Content: json.RawMessage(`"cat"`)})
		all, err := ReadAll(root, l)
		if err != nil {
			t.Fatal(err)
		}
		latest := Latest(all)
		if string(latest["/user/city"].Content) != `"Porto"` || string(latest["/user/pet"].Content) != `"cat"` || latest["/user/gone"].Valid {
			t.Fatalf("%v: after compaction and writes: %+v", h, latest)
		}
		// A second compaction the same day, and the index agrees.
		if res, err := Compact(root, other, h, time.Date(2026, 2, 23, 9, 0, 0, 0, time.UTC)); err != nil || res.Live != 2 {
			t.Fatalf("%v: second compact = %+v, %v", h, res, err)
		}
		if data, _ := os.ReadFile(filepath.Join(root, "index/user/city.json")); !strings.Contains(string(data), "Porto") {
			t.Fatalf("%v: index: %s", h, data)
		}
		l.Close()
		other.Close()
	}
}

// A compaction interrupted at each step leaves a root from which nothing
// acknowledged is lost and index and state agree with the log after the
// next compaction.
func TestCompactInterrupted(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(int64(s), 0).UTC() }
	steps := []struct {
		name  string
		crash func(root string)
	}{
		{"state.tmp written, not renamed", func(root string) {
			os.WriteFile(filepath.Join(root, StateName+".tmp"), []byte(`{"key":"/half`), 0o644)
		}},
		{"index.next half built", func(root string) {
			os.MkdirAll(filepath.Join(root, "index.next/user"), 0o755)
			os.WriteFile(filepath.Join(root, "index.next/user/stale.json"), []byte("{}"), 0o644)
		}},
		{"index moved to index.old, index.next not yet in place", func(root string) {
			os.Rename(filepath.Join(root, IndexName), filepath.Join(root, IndexName+".old"))
		}},
		{"log rotated, new log not yet created", func(root string) {
			os.MkdirAll(filepath.Join(root, "archive"), 0o755)
			os.Rename(filepath.Join(root, LogName), filepath.Join(root, "archive/log_19700101.jsonl"))
		}},
	}
	for _, st := range steps {
		root := t.TempDir()
		l, _ := OpenLog(root, LogOptions{NoSync: true})
		l.Append(Envelope{Key: "/user/a", TS: at(1), Valid: true, Content: json.RawMessage(`1`)})
		if _, err := Compact(root, l, KeepLog, at(2)); err != nil {
			t.Fatal(err)
		}
		l.Append(Envelope{Key: "/user/b", TS: at(3), Valid: true, Content: json.RawMessage(`2`)})
		l.Close()
		if st.name == "log rotated, new log not yet created" {
			// The state must hold the log before it is moved: compact first.
			l, _ = OpenLog(root, LogOptions{NoSync: true})
			Compact(root, l, KeepLog, at(4))
			l.Close()
		}
		st.crash(root)
		l, err := OpenLog(root, LogOptions{NoSync: true})
		if err != nil {
			t.Fatalf("%s: reopen: %v", st.name, err)
		}
		all, err := ReadAll(root, l)
		if err != nil {
			t.Fatalf("%s: read: %v", st.name, err)
		}
		latest := Latest(all)
		if !latest["/user/a"].Valid || !latest["/user/b"].Valid {
			t.Fatalf("%s: lost an acknowledged write: %+v", st.name, latest)
		}
		if res, err := Compact(root, l, KeepLog, at(5)); err != nil || res.Live != 2 {
			t.Fatalf("%s: compact after the crash = %+v, %v", st.name, res, err)
		}
		for _, k := range []string{"index/user/a.json", "index/user/b.json"} {
			if _, err := os.Stat(filepath.Join(root, k)); err != nil {
				t.Fatalf("%s: %s missing after repair", st.name, k)
			}
		}
		if _, err := os.Stat(filepath.Join(root, "index/user/stale.json")); err == nil {
			t.Fatalf("%s: stale index file kept", st.name)
		}
		l.Close()
	}
}
