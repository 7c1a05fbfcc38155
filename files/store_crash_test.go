package files_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
)

// copyDir copies the memory root src to a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// lastLogLine returns the last line of the log of root.
func lastLogLine(t *testing.T, root string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, files.LogName))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	return append(b[bytes.LastIndexByte(b, '\n')+1:], '\n')
}

func appendFile(t *testing.T, p string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(b)
	f.Close()
}

// A compaction, or a forget's rewrite, interrupted at each step leaves a
// root that opens to the same answers, with nothing forgotten left in it
// and the index in agreement.
func TestStoreCompactInterrupted(t *testing.T) {
	keep := files.StoreOptions{History: files.KeepLog, NoSync: true, CompactEvery: -1}
	rotate := files.StoreOptions{History: files.RotateLog, NoSync: true, CompactEvery: -1}
	ctx := t.Context()

	// base is a root after the workload, and want what it answers.
	base := t.TempDir()
	s := open(t, base, keep)
	workload(t, s)
	want := answers(t, s)
	s.Close()

	steps := []struct {
		name  string
		opts  files.StoreOptions
		crash func(t *testing.T, root string)
	}{
		{"state.tmp written, not renamed", keep, func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, files.StateName+".tmp"), []byte(`{"key":"/half`), 0o644)
		}},
		{"state renamed, index.next half built", keep, func(t *testing.T, root string) {
			s := open(t, root, keep)
			s.Compact(ctx)
			s.Close()
			os.MkdirAll(filepath.Join(root, "index.next/user"), 0o755)
			os.WriteFile(filepath.Join(root, "index.next/user/stale.json"), []byte("{}"), 0o644)
		}},
		{"index moved to index.old, index.next not in place", keep, func(t *testing.T, root string) {
			s := open(t, root, keep)
			s.Compact(ctx)
			s.Close()
			os.Rename(filepath.Join(root, files.IndexName), filepath.Join(root, files.IndexName+".old"))
		}},
		{"rotation: state written, log not yet rotated", rotate, func(t *testing.T, root string) {
			s := open(t, root, keep) // a compaction that keeps the log is one stopped before the rotation
			s.Compact(ctx)
			s.Close()
		}},
		{"rotation: log rotated, new log not yet created", rotate, func(t *testing.T, root string) {
			s := open(t, root, keep)
			s.Compact(ctx)
			s.Close()
			os.MkdirAll(filepath.Join(root, "archive"), 0o755)
			os.Rename(filepath.Join(root, files.LogName), filepath.Join(root, "archive/log_20260222.jsonl"))
		}},
		{"state of an older compaction, log since rewritten by a forget", keep, func(t *testing.T, root string) {
			// The old state covers a line that the rewrite changed.
			s := open(t, root, keep)
			s.Compact(ctx)
			old, _ := os.ReadFile(filepath.Join(root, files.StateName))
			s.Write(ctx, home, []mnemo.Record{{Memory: mnemo.Memory{Key: "/tmp/x", Content: "gone soon"}}})
			s.Forget(ctx, home, nil, []string{"/tmp/x"})
			s.Close()
			os.WriteFile(filepath.Join(root, files.StateName), old, 0o644)
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			root := copyDir(t, base)
			st.crash(t, root)
			r := open(t, root, st.opts)
			defer r.Close()
			if got := answers(t, r); got != want {
				t.Fatalf("after the crash:\n%s\nwant\n%s", got, want)
			}
			checkIndex(t, root, r)
			if _, err := r.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			if got := answers(t, r); got != want {
				t.Fatalf("after the next compaction:\n%s\nwant\n%s", got, want)
			}
			checkIndex(t, root, r)
		})
	}

	// A forget whose line was appended but whose rewrite did not happen:
	// the open finishes it.
	t.Run("forget appended, log not rewritten", func(t *testing.T) {
		root := t.TempDir()
		s := open(t, root, keep)
		s.Write(ctx, home, []mnemo.Record{{Memory: mnemo.Memory{Key: "/secret", Content: "the password is hunter2"}, Index: mnemo.IndexText{Text: "password hunter2"}}})
		before := copyDir(t, root)
		if n, err := s.Forget(ctx, home, nil, []string{"/secret"}); err != nil || n != 1 {
			t.Fatalf("forget = %d, %v", n, err)
		}
		want := answers(t, s)
		forget := lastLogLine(t, root)
		s.Close()
		appendFile(t, filepath.Join(before, files.LogName), forget)
		if found := grepRoot(t, before, "hunter2"); len(found) == 0 {
			t.Fatal("the crashed root should still hold the secret")
		}
		r := open(t, before, keep)
		defer r.Close()
		if got := answers(t, r); got != want {
			t.Fatalf("after the crash:\n%s\nwant\n%s", got, want)
		}
		if found := grepRoot(t, before, "hunter2"); len(found) > 0 {
			t.Fatalf("a forgotten memory is still in %v", found)
		}
		checkIndex(t, before, r)
	})
}

// A log of CompactEvery lines compacts by itself, by either option.
func TestStoreCompactsBySize(t *testing.T) {
	for _, h := range []files.History{files.KeepLog, files.RotateLog} {
		root := t.TempDir()
		opts := files.StoreOptions{History: h, NoSync: true, CompactEvery: 10}
		s := open(t, root, opts)
		for i := range 25 {
			if _, err := s.Write(t.Context(), home, batch("s", i)[:1]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := os.Stat(filepath.Join(root, files.StateName)); err != nil {
			t.Fatalf("history %d: no state after 25 writes: %v", h, err)
		}
		arch, _ := filepath.Glob(filepath.Join(root, "archive", "log_*.jsonl"))
		log, _ := os.ReadFile(filepath.Join(root, files.LogName))
		lines := bytes.Count(log, []byte("\n"))
		switch h {
		case files.KeepLog:
			if len(arch) != 0 || lines != 25 {
				t.Fatalf("keep: %d archives, %d log lines; want 0 and 25", len(arch), lines)
			}
		case files.RotateLog:
			if len(arch) != 2 || lines != 5 {
				t.Fatalf("rotate: %d archives, %d log lines; want 2 and 5", len(arch), lines)
			}
		}
		want := answers(t, s)
		s.Close()
		r := open(t, root, opts)
		if got := answers(t, r); got != want {
			t.Fatalf("history %d: reopened:\n%s\nwant\n%s", h, got, want)
		}
		if _, total, _ := r.List(t.Context(), home, mnemo.ListQuery{}); total != 25 {
			t.Fatalf("history %d: %d memories, want 25", h, total)
		}
		r.Close()
	}
}
