package files_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
)

// FuzzStoreLog opens a root whose log holds anything: the open fails with
// an error or skips what it cannot read, and what is written after is
// kept across a reopen.
func FuzzStoreLog(f *testing.F) {
	f.Add([]byte(`{"key":"/user/a","ts":"2026-02-22T10:00:00Z","valid":true,"source":"chat","content":{"type":"note","text":"hi"}}` + "\n"))
	f.Add([]byte(`{"key":"/user/a","ts":"2026-02-22T10:00:00Z","valid":false,"content":null}` + "\n" + `{"key":"/x","ts":"2026-02-22T10:00:00Z","valid":true,"content":"t","mnemo":{"op":"write","batch":"b","n":2,"tenant":"default","agent":"default","at":"2026-02-22T10:00:00Z","memory":{"id":"1","key":"/x"}}}` + "\n"))
	f.Add([]byte(`{"key":"/@mnemo/forget","ts":"2026-02-22T10:00:00Z","valid":false,"content":null,"mnemo":{"op":"forget","batch":"c","tenant":"default","agent":"default","at":"2026-02-22T10:00:00Z","ids":["1"],"keys":["/x"]}}` + "\n"))
	f.Add([]byte(`{"key":"/v","ts":"2026-02-22T10:00:00Z","valid":true,"content":null,"mnemo":{"op":"vectors","batch":"d","at":"2026-02-22T10:00:00Z","jobs":[{"ID":"1","Text":"t"}],"vectors":["!!"]}}` + "\n"))
	// Contexts lines: alone, and closing a batch of writes (REC-36).
	f.Add([]byte(`{"key":"/@mnemo/contexts","ts":"2026-02-22T10:00:00Z","valid":false,"content":null,"mnemo":{"op":"contexts","batch":"f","tenant":"default","agent":"default","at":"2026-02-22T10:00:00Z","contexts":[{"ID":"1","Context":"words","Embed":"text"},{"ID":""}]}}` + "\n"))
	f.Add([]byte(`{"key":"/x","ts":"2026-02-22T10:00:00Z","valid":true,"content":"t","mnemo":{"op":"write","batch":"g","n":2,"tenant":"default","agent":"default","at":"2026-02-22T10:00:00Z","memory":{"id":"1","key":"/x"}}}` + "\n" +
		`{"key":"/@mnemo/contexts","ts":"2026-02-22T10:00:00Z","valid":false,"content":null,"mnemo":{"op":"contexts","batch":"g","n":2,"tenant":"default","agent":"default","at":"2026-02-22T10:00:00Z","contexts":[{"ID":"1","Context":"around"}]}}` + "\n"))
	f.Add([]byte("not json\n{\"key\":\n"))
	// Another writer's content nested deeper than mnemo takes (API-21).
	f.Add([]byte(`{"key":"/deep","ts":"2026-02-22T10:00:00Z","valid":true,"content":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "}\n"))
	f.Add([]byte("not json\n" + `{"key":"/@mnemo/clear","ts":"2026-02-22T10:00:00Z","valid":false,"content":null,"mnemo":{"op":"clear","batch":"e","tenant":"default","agent":"default","at":"2026-02-22T10:00:00Z"}}` + "\n"))
	base := fastDir(f)
	f.Fuzz(func(t *testing.T, log []byte) {
		root, err := os.MkdirTemp(base, "")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
		if err := os.WriteFile(filepath.Join(root, files.LogName), log, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := files.StoreOptions{NoSync: true}
		s, err := files.OpenStore(t.Context(), root, opts)
		if err != nil {
			return
		}
		_, err = s.Write(t.Context(), home, []mnemo.Record{{Memory: mnemo.Memory{Key: "/fuzz/kept", Content: "kept"}}})
		s.Close()
		if err != nil {
			t.Fatalf("write after open: %v", err)
		}
		s, err = files.OpenStore(t.Context(), root, opts)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		defer s.Close()
		if m, err := s.GetByKey(t.Context(), home, "/fuzz/kept"); err != nil || m.Content != "kept" {
			t.Fatalf("after reopen: %+v, %v", m, err)
		}
	})
}

// fastDir is a directory for many small stores: in memory (/dev/shm) where
// there is one, since creating, renaming and removing files on a
// journaling disk made this fuzzer run a few inputs a second; else a
// temporary directory.
func fastDir(f *testing.F) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "mnemo-fuzz-"); err == nil {
			f.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return f.TempDir()
}
