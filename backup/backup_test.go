package backup_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/backup"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/embedded"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/mnemo-dev/mnemo/storetest"
)

var scope = mnemo.Scope{TenantID: "t", AgentID: "a"}

// checkSQLite is the check a restore of the SQLite store runs.
func checkSQLite(ctx context.Context, dir string, _ backup.Manifest) error {
	return sqlite.Check(ctx, filepath.Join(dir, "mnemo.db"))
}

// snapshot backs up s to a new directory under t's temp dir.
func snapshot(t *testing.T, s mnemo.Store, kind string) string {
	t.Helper()
	dest := filepath.Join(t.TempDir(), "backup")
	snap, ok := s.(backup.Snapshotter)
	if !ok {
		t.Fatalf("%T is not a Snapshotter", s)
	}
	if _, err := backup.Create(t.Context(), dest, kind, "test", time.Now(), snap.Snapshot); err != nil {
		t.Fatal(err)
	}
	return dest
}

// writeLoad runs writers goroutines that remember memories with distinct
// keys through svc until stop is closed, and returns a function that
// lists the keys acknowledged so far.
func writeLoad(t *testing.T, svc *service.Mnemo, writers int, stop <-chan struct{}) (acked func() []string, wait func()) {
	var (
		mu   sync.Mutex
		keys []string
		wg   sync.WaitGroup
	)
	for w := range writers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("/load/w%d/%d", w, i)
				text := fmt.Sprintf("writer %d noted item %d about backups of a live store", w, i)
				if _, err := svc.RememberUnguarded(context.Background(), scope, []mnemo.Draft{{Key: key, Content: &text}}); err != nil {
					t.Errorf("remember %s: %v", key, err)
					return
				}
				mu.Lock()
				keys = append(keys, key)
				mu.Unlock()
			}
		})
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), keys...)
	}, wg.Wait
}

// A backup taken while writers run restores every write acknowledged
// before it began, with the vector index files it copied (OPS-12,
// OPS-13).
func TestBackupUnderWriteLoad(t *testing.T) {
	ctx := t.Context()
	data := t.TempDir()
	opts := service.Options{Embedder: hashed.New(64)}
	svc, err := embedded.Open(ctx, data, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		text := fmt.Sprintf("seeded memory %d on the garden and the weather", i)
		if _, err := svc.RememberUnguarded(ctx, scope, []mnemo.Draft{{Key: fmt.Sprintf("/seed/%d", i), Content: &text}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Recall(ctx, scope, memory.Query{Text: "garden weather"}); err != nil {
		t.Fatal(err)
	}
	svc.Close() // saves the vector index files
	svc, err = embedded.Open(ctx, data, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()

	stop := make(chan struct{})
	acked, wait := writeLoad(t, svc, 4, stop)
	for len(acked()) < 50 {
		time.Sleep(5 * time.Millisecond)
	}
	before := acked()
	dest := snapshot(t, svc.Store(), "sqlite")
	for n := len(acked()); len(acked()) < n+20; {
		time.Sleep(5 * time.Millisecond) // writes go on after the backup
	}
	close(stop)
	wait()

	m, err := backup.Verify(ctx, dest)
	if err != nil {
		t.Fatal(err)
	}
	var ann bool
	for _, f := range m.Files {
		ann = ann || strings.HasPrefix(f.Path, "mnemo.db-vectors/") && strings.HasSuffix(f.Path, ".ann")
	}
	if !ann {
		t.Errorf("backup files %v: no vector index file", m.Files)
	}

	target := filepath.Join(t.TempDir(), "restored")
	if _, err := backup.Restore(ctx, dest, target, checkSQLite); err != nil {
		t.Fatal(err)
	}
	restored, err := embedded.Open(ctx, target, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	for _, key := range before {
		if _, err := restored.GetByKey(ctx, scope, key); err != nil {
			t.Errorf("acknowledged before the backup, %s: %v", key, err)
		}
	}
	for i := range 300 {
		if _, err := restored.GetByKey(ctx, scope, fmt.Sprintf("/seed/%d", i)); err != nil {
			t.Fatalf("seed %d: %v", i, err)
		}
	}
	res, err := restored.Recall(ctx, scope, memory.Query{Text: "garden weather"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 {
		t.Error("recall on the restored store found nothing")
	}
}

// A store restored from a backup is a store: the conformance suite
// passes on it (OPS-13).
func TestRestoredSQLiteConformance(t *testing.T) {
	live, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dest := snapshot(t, live, "sqlite")
	live.Close()
	storetest.Run(t, func(t *testing.T) mnemo.Store {
		target := filepath.Join(t.TempDir(), "data")
		if _, err := backup.Restore(t.Context(), dest, target, checkSQLite); err != nil {
			t.Fatal(err)
		}
		db, err := sqlite.Open(t.Context(), filepath.Join(target, "mnemo.db"), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}

// A files store restored from a backup passes the conformance suite too.
func TestRestoredFilesConformance(t *testing.T) {
	live, err := files.OpenStore(t.Context(), t.TempDir(), files.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dest := snapshot(t, live, "files")
	live.Close()
	storetest.Run(t, func(t *testing.T) mnemo.Store {
		target := filepath.Join(t.TempDir(), "files")
		if _, err := backup.Restore(t.Context(), dest, target, nil); err != nil {
			t.Fatal(err)
		}
		s, err := files.OpenStore(t.Context(), target, files.StoreOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// The files store backs up under its writers' lock while they write; the
// restored root opens with every acknowledged write (OPS-12).
func TestFilesBackupUnderWriteLoad(t *testing.T) {
	ctx := t.Context()
	st, err := files.OpenStore(ctx, t.TempDir(), files.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := service.New(st, service.Options{})
	stop := make(chan struct{})
	acked, wait := writeLoad(t, svc, 3, stop)
	for len(acked()) < 30 {
		time.Sleep(5 * time.Millisecond)
	}
	before := acked()
	dest := snapshot(t, st, "files")
	close(stop)
	wait()

	target := filepath.Join(t.TempDir(), "files")
	if _, err := backup.Restore(ctx, dest, target, nil); err != nil {
		t.Fatal(err)
	}
	restored, err := files.OpenStore(ctx, target, files.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	for _, key := range before {
		if _, err := restored.GetByKey(ctx, scope, key); err != nil {
			t.Errorf("acknowledged before the backup, %s: %v", key, err)
		}
	}
}

// A backup that is damaged in any way is refused, and the target is left
// as it was, with nothing half restored beside it (OPS-13).
func TestRestoreRefusesDamagedBackup(t *testing.T) {
	ctx := t.Context()
	live, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		text := fmt.Sprintf("memory %d", i)
		if _, err := live.Write(ctx, scope, []mnemo.Record{{Memory: mnemo.Memory{Content: text}}}); err != nil {
			t.Fatal(err)
		}
	}
	good := snapshot(t, live, "sqlite")
	live.Close()

	db := func(dir string) string { return filepath.Join(dir, "mnemo.db") }
	flip := func(path string, at int64) {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := make([]byte, 1)
		if _, err := f.ReadAt(b, at); err != nil {
			t.Fatal(err)
		}
		b[0] ^= 0xff
		if _, err := f.WriteAt(b, at); err != nil {
			t.Fatal(err)
		}
	}
	editManifest := func(dir string, edit func(m *backup.Manifest)) {
		m, err := backup.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		edit(&m)
		b, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(dir, backup.ManifestName), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// rehash makes the manifest agree with a damaged file, as a backup
	// damaged before it was written would: the integrity check must
	// catch it.
	rehash := func(dir string) {
		editManifest(dir, func(m *backup.Manifest) {
			fresh, err := backup.Create(ctx, filepath.Join(t.TempDir(), "x"), "sqlite", "test", time.Now(),
				func(_ context.Context, to string) error { return os.Link(db(dir), db(to)) })
			if err != nil {
				t.Fatal(err)
			}
			for i := range m.Files {
				if m.Files[i].Path == "mnemo.db" {
					m.Files[i] = fresh.Files[0]
				}
			}
		})
	}

	tests := []struct {
		name   string
		damage func(dir string)
		want   string
	}{
		{"flipped byte", func(dir string) { flip(db(dir), 5000) }, "checksum mismatch"},
		{"truncated", func(dir string) { os.Truncate(db(dir), 4096) }, "truncated"},
		{"longer", func(dir string) {
			f, _ := os.OpenFile(db(dir), os.O_APPEND|os.O_WRONLY, 0)
			f.Write([]byte("x"))
			f.Close()
		}, "longer than"},
		{"file deleted", func(dir string) { os.Remove(db(dir)) }, "missing"},
		{"extra file", func(dir string) { os.WriteFile(filepath.Join(dir, "stray"), []byte("x"), 0o644) }, "not in the manifest"},
		{"no manifest", func(dir string) { os.Remove(filepath.Join(dir, backup.ManifestName)) }, "no manifest.json"},
		{"manifest not JSON", func(dir string) { os.WriteFile(filepath.Join(dir, backup.ManifestName), []byte("{"), 0o644) }, "bad manifest"},
		{"manifest of another format", func(dir string) { editManifest(dir, func(m *backup.Manifest) { m.Format = 99 }) }, "format 99"},
		{"manifest with a wrong sum", func(dir string) {
			editManifest(dir, func(m *backup.Manifest) { m.Files[len(m.Files)-1].SHA256 = strings.Repeat("0", 64) })
		}, "checksum mismatch"},
		{"manifest escaping the backup", func(dir string) {
			editManifest(dir, func(m *backup.Manifest) { m.Files[0].Path = "../mnemo.db" })
		}, "not a relative path"},
		{"corrupt pages, matching sum", func(dir string) {
			for page := int64(1); page < 6; page++ {
				flip(db(dir), page*4096) // each b-tree page's type
			}
			rehash(dir)
		}, "mnemo.db"},
		{"not a database, matching sum", func(dir string) {
			os.WriteFile(db(dir), []byte(strings.Repeat("not sqlite ", 1000)), 0o644)
			rehash(dir)
		}, "mnemo.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "backup")
			copyTree(t, good, src)
			tt.damage(src)
			parent := t.TempDir()
			target := filepath.Join(parent, "data")
			_, err := backup.Restore(ctx, src, target, checkSQLite)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("restore: %v, want an error with %q", err, tt.want)
			}
			t.Log(err)
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("the target's directory holds %v after a refused restore", left)
			}
		})
	}

	// The undamaged copy restores: the damage, not the copying, was refused.
	src := filepath.Join(t.TempDir(), "backup")
	copyTree(t, good, src)
	if _, err := backup.Restore(ctx, src, filepath.Join(t.TempDir(), "data"), checkSQLite); err != nil {
		t.Fatal(err)
	}
}

// A restore goes only into an empty directory, and a backup only into a
// new one.
func TestRefusesNonEmpty(t *testing.T) {
	ctx := t.Context()
	live, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	good := snapshot(t, live, "sqlite")

	target := t.TempDir()
	os.WriteFile(filepath.Join(target, "keep"), []byte("mine"), 0o644)
	if _, err := backup.Restore(ctx, good, target, checkSQLite); !errors.Is(err, backup.ErrNotEmpty) {
		t.Errorf("restore into a non-empty directory: %v, want ErrNotEmpty", err)
	}
	if b, _ := os.ReadFile(filepath.Join(target, "keep")); string(b) != "mine" {
		t.Error("the non-empty target was changed")
	}
	if _, err := backup.Create(ctx, good, "sqlite", "test", time.Now(), live.Snapshot); !errors.Is(err, backup.ErrNotEmpty) {
		t.Errorf("backup over a backup: %v, want ErrNotEmpty", err)
	}
	empty := t.TempDir()
	if _, err := backup.Restore(ctx, good, empty, checkSQLite); err != nil {
		t.Errorf("restore into an empty directory: %v", err)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
