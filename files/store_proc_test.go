package files_test

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
)

// storeOpts are the options of the writers of the process tests: small
// compactions with rotation, so that processes write across each other's
// compactions.
func storeOpts() files.StoreOptions {
	return files.StoreOptions{History: files.RotateLog, CompactEvery: 40}
}

// batch returns writer w's i-th batch: a keyed memory and a keyless one.
func batch(w string, i int) []mnemo.Record {
	text := fmt.Sprintf("writer %s batch %d", w, i)
	idx := mnemo.IndexText{Text: "writer batch w" + w}
	return []mnemo.Record{
		{Memory: mnemo.Memory{Key: fmt.Sprintf("/w%s/%d", w, i), Content: text, Type: "fact"}, Index: idx},
		{Memory: mnemo.Memory{Content: text + " b", Type: "fact", SessionID: "w" + w + "-" + strconv.Itoa(i)}, Index: idx},
	}
}

// TestStoreHelperProcess writes for the tests below: MNEMO_STORE_HELPER is
// the memory root, MNEMO_STORE_N how many batches (0: until killed); it
// prints "ack <n>" after each Write returns.
func TestStoreHelperProcess(t *testing.T) {
	root := os.Getenv("MNEMO_STORE_HELPER")
	if root == "" {
		t.Skip("helper process only")
	}
	n, _ := strconv.Atoi(os.Getenv("MNEMO_STORE_N"))
	id := os.Getenv("MNEMO_STORE_ID")
	s, err := files.OpenStore(t.Context(), root, storeOpts())
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for i := 0; n == 0 || i < n; i++ {
		if _, err := s.Write(t.Context(), home, batch(id, i)); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if i%10 == 5 { // a forget now and then, which rewrites the log
			if _, err := s.Forget(t.Context(), home, nil, []string{fmt.Sprintf("/w%s/%d", id, i-1)}); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
		}
		fmt.Println("ack", i)
	}
	s.Close()
	os.Exit(0)
}

func storeHelper(root, id string, n int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestStoreHelperProcess$")
	cmd.Env = append(os.Environ(), "MNEMO_STORE_HELPER="+root, "MNEMO_STORE_ID="+id, "MNEMO_STORE_N="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	return cmd
}

// forgets reports whether writer w is a helper process, which forgets.
func forgets(w string) bool { return w == "k" || strings.HasPrefix(w, "p") }

// wantWritten checks that writer w's batches up to acked are in s, both
// records of each, but the forgotten ones, and that no batch is half
// there.
func wantWritten(t *testing.T, s *files.Store, w string, acked int) {
	t.Helper()
	ctx := t.Context()
	for i := 0; ; i++ {
		_, kerr := s.GetByKey(ctx, home, fmt.Sprintf("/w%s/%d", w, i))
		ms, _, err := s.List(ctx, home, mnemo.ListQuery{Filter: mnemo.Filter{SessionID: "w" + w + "-" + strconv.Itoa(i)}})
		if err != nil {
			t.Fatal(err)
		}
		forgotten := forgets(w) && i%10 == 4 && i+1 <= acked
		// Past the last acknowledgement seen, the writer may have gone on
		// and forgotten the key too.
		mayBeForgotten := forgets(w) && i%10 == 4
		switch {
		case i <= acked && len(ms) != 1:
			t.Fatalf("writer %s: acknowledged batch %d lost", w, i)
		case i <= acked && !forgotten && kerr != nil:
			t.Fatalf("writer %s: key of acknowledged batch %d: %v", w, i, kerr)
		case i <= acked && forgotten && kerr == nil:
			t.Fatalf("writer %s: forgotten key of batch %d is back", w, i)
		case i > acked && len(ms) == 0:
			return
		case i > acked && (kerr == nil) != (len(ms) == 1) && !mayBeForgotten:
			t.Fatalf("writer %s: batch %d is half there", w, i)
		}
	}
}

// Writers in three processes and in goroutines of this one write, forget
// and compact (rotating the log) on one root at once; then the store of
// this process, caught up, and a store opened afresh agree with each
// other, hold every acknowledged write, and index and state agree with
// the log.
func TestStoreConcurrentWriters(t *testing.T) {
	root := t.TempDir()
	s := open(t, root, storeOpts())
	defer s.Close()
	var cmds []*exec.Cmd
	for p := range 3 {
		cmd := storeHelper(root, "p"+strconv.Itoa(p), 30)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			for i := range 30 {
				if _, err := s.Write(t.Context(), home, batch("g"+strconv.Itoa(g), i)); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Search(t.Context(), home, mnemo.TextQuery{Terms: []string{"writer"}, Limit: 3}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	for p := range 3 {
		wantWritten(t, s, "p"+strconv.Itoa(p), 29)
	}
	for g := range 3 {
		wantWritten(t, s, "g"+strconv.Itoa(g), 29)
	}
	want := answers(t, s)
	r := open(t, root, storeOpts())
	defer r.Close()
	if got := answers(t, r); got != want {
		t.Fatalf("a fresh open answers\n%s\nthe caught-up store\n%s", got, want)
	}
	checkIndex(t, root, r)
	if _, err := r.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, root, r)
}

// A writer killed (SIGKILL) in the middle of its appends loses nothing it
// acknowledged, leaves no half batch, and the root opens clean with its
// index in agreement.
func TestStoreKilledWriter(t *testing.T) {
	root := t.TempDir()
	cmd := storeHelper(root, "k", 0)
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
		if acked >= 50 {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	s := open(t, root, storeOpts())
	defer s.Close()
	wantWritten(t, s, "k", acked)
	checkIndex(t, root, s)
	// And it goes on: a write after the crash lands.
	if _, err := s.Write(t.Context(), home, batch("after", 0)); err != nil {
		t.Fatal(err)
	}
	wantWritten(t, s, "after", 0)
}

// TestStoreOpenRemovesIndexTemporaries: a writer killed between writing an
// index file's temporary and renaming it leaves the temporary; the next
// open removes it, so that grep over the index finds memories only.
func TestStoreOpenRemovesIndexTemporaries(t *testing.T) {
	root := t.TempDir()
	s := open(t, root, storeOpts())
	if _, err := s.Write(t.Context(), home, batch("w", 0)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var tmps []string
	filepath.WalkDir(filepath.Join(root, files.IndexName), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			tmp := filepath.Join(filepath.Dir(p), ".tmp-12345")
			if os.WriteFile(tmp, []byte(`{"key":`), 0o644) == nil {
				tmps = append(tmps, tmp)
			}
		}
		return nil
	})
	if len(tmps) == 0 {
		t.Fatal("the write left no index file")
	}
	r := open(t, root, storeOpts())
	defer r.Close()
	for _, p := range tmps {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there after open (%v)", p, err)
		}
	}
	checkIndex(t, root, r)
}
