package files

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPutIndex(t *testing.T) {
	root := t.TempDir()
	at := func(s int) time.Time { return time.Unix(int64(s), 0).UTC() }
	e := Envelope{Key: "/user/calendar/2026-02-23_10-00_牙科复诊", TS: at(1), Valid: true, Source: json.RawMessage(`"chat"`), Content: json.RawMessage(`{"when":"10:00"}`)}
	if err := PutIndex(root, e); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "index/user/calendar/2026-02-23_10-00_牙科复诊.json")
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), `"when": "10:00"`) {
		t.Fatalf("index file: %s, %v", data, err)
	}
	// Shell commands read it (FS-12): ls, find, cat, jq.
	if out, err := exec.Command("sh", "-c", "cd "+root+" && find index -name '*.json' | sort && cat index/user/calendar/*.json | grep -c when").CombinedOutput(); err != nil || !strings.Contains(string(out), "index/user/calendar/2026-02-23_10-00_牙科复诊.json\n1") {
		t.Fatalf("bash view: %s, %v", out, err)
	}
	// A tombstone removes the file, and the directories it empties.
	if err := PutIndex(root, Envelope{Key: e.Key, TS: at(2), Content: json.RawMessage("null")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "index/user")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("empty directories left: %v", err)
	}
	if err := PutIndex(root, Envelope{Key: "/never/written", TS: at(3)}); err != nil {
		t.Fatalf("tombstone of a key with no file: %v", err)
	}
}

// A symbolic link planted in the index is never written through.
func TestPutIndexRefusesSymlinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, IndexName), 0o755)
	if err := os.Symlink(outside, filepath.Join(root, IndexName, "user")); err != nil {
		t.Skip("no symlinks here")
	}
	err := PutIndex(root, Envelope{Key: "/user/x", TS: time.Unix(1, 0), Valid: true, Content: json.RawMessage(`1`)})
	if !errors.Is(err, ErrSymlink) {
		t.Fatalf("write through a symlink: %v", err)
	}
	err = PutIndex(root, Envelope{Key: "/user/x", TS: time.Unix(2, 0)})
	if !errors.Is(err, ErrSymlink) {
		t.Fatalf("remove through a symlink: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("wrote outside the root: %v", entries)
	}
	// A symlink at the file's own name is replaced, its target untouched.
	target := filepath.Join(outside, "secret")
	os.WriteFile(target, []byte("keep"), 0o644)
	os.Remove(filepath.Join(root, IndexName, "user"))
	os.Symlink(target, filepath.Join(root, IndexName, "y.json"))
	if err := PutIndex(root, Envelope{Key: "/y", TS: time.Unix(3, 0), Valid: true, Content: json.RawMessage(`2`)}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(target); string(data) != "keep" {
		t.Fatalf("the link's target was written: %q", data)
	}
}

func TestRebuildIndex(t *testing.T) {
	root := t.TempDir()
	l, _ := OpenLog(root, LogOptions{NoSync: true})
	defer l.Close()
	at := func(s int) time.Time { return time.Unix(int64(s), 0).UTC() }
	l.Append(
		Envelope{Key: "/user/city", TS: at(10), Valid: true, Content: json.RawMessage(`"Berlin"`)},
		Envelope{Key: "/user/city", TS: at(30), Valid: true, Content: json.RawMessage(`"Lisbon"`)},
		Envelope{Key: "/user/city", TS: at(20), Valid: true, Content: json.RawMessage(`"Paris, late"`)}, // older: loses
		Envelope{Key: "/user/gone", TS: at(5), Valid: true, Content: json.RawMessage(`{}`)},
		Envelope{Key: "/user/gone", TS: at(6), Content: json.RawMessage(`null`)},
		Envelope{Key: "/kb/empty", TS: at(7), Valid: true, Content: json.RawMessage(`{}`)}, // {} is content
	)
	// Drift: a stray file and a stale one.
	PutIndex(root, Envelope{Key: "/stray", TS: at(1), Valid: true, Content: json.RawMessage(`1`)})
	os.MkdirAll(filepath.Join(root, IndexName+".next", "junk"), 0o755) // an interrupted rebuild
	n, err := RebuildIndex(root, l)
	if err != nil || n != 2 {
		t.Fatalf("rebuild = %d, %v", n, err)
	}
	var files []string
	filepath.WalkDir(filepath.Join(root, IndexName), func(p string, d os.DirEntry, err error) error {
		if !d.IsDir() {
			rel, _ := filepath.Rel(filepath.Join(root, IndexName), p)
			files = append(files, rel)
		}
		return nil
	})
	if strings.Join(files, " ") != "kb/empty.json user/city.json" {
		t.Fatalf("index after rebuild: %v", files)
	}
	data, _ := os.ReadFile(filepath.Join(root, "index/user/city.json"))
	if !strings.Contains(string(data), `"Lisbon"`) {
		t.Fatalf("city: %s", data)
	}
	for _, left := range []string{IndexName + ".next", IndexName + ".old"} {
		if _, err := os.Stat(filepath.Join(root, left)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s left behind", left)
		}
	}
}
