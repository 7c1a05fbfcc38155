package backup_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/backup"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/internal/testkit"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// Backup and restore of a store of n generated memories embedded by the
// built-in model (612 dimensions), with its ANN index saved: n is
// $MNEMO_BENCH_BACKUP_N, 100,000 unless set. The store is built once and
// kept in the temp dir. Run with
//
//	go test -run '^$' -bench 'Backup|Restore' -benchtime 3x -timeout 60m ./backup
//
// MB is the backup's size.

func backupFixture(b *testing.B) string {
	n := 100_000
	if s := os.Getenv("MNEMO_BENCH_BACKUP_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("mnemo-bench-backup-v1-%d", n))
	if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "mnemo.db"), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	svc := service.New(db, service.Options{Embedder: builtin.New(), Guard: memory.GuardOptions{Off: true}})
	c := testkit.NewCorpus(1)
	start := time.Now().Add(-time.Duration(n) * time.Minute)
	for i := 0; i < n; i += 1000 {
		drafts := make([]mnemo.Draft, min(1000, n-i))
		for j := range drafts {
			s := c.Sentence(8 + c.Rng.IntN(20))
			at := start.Add(time.Duration(i+j) * time.Minute)
			drafts[j] = mnemo.Draft{Content: &s, CreatedAt: &at, Tags: []string{c.Words[c.Rng.IntN(50)]}}
		}
		if _, err := svc.RememberBatch(ctx, testkit.BenchScope, drafts); err != nil {
			b.Fatal(err)
		}
	}
	// A recall catches the ANN index up with the table; Close saves it.
	if _, err := svc.Recall(ctx, testkit.BenchScope, memory.Query{Text: c.Query()}); err != nil {
		b.Fatal(err)
	}
	if err := svc.Close(); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "done"), nil, 0o644)
	return dir
}

func BenchmarkBackup(b *testing.B) {
	dir := backupFixture(b)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "mnemo.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var size int64
	for b.Loop() {
		dest := filepath.Join(b.TempDir(), "backup")
		m, err := backup.Create(ctx, dest, "sqlite", "bench", time.Now(), db.Snapshot)
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, f := range m.Files {
			size += f.Size
		}
		b.StopTimer()
		os.RemoveAll(dest)
		b.StartTimer()
	}
	b.ReportMetric(float64(size)/1e6, "MB")
}

func BenchmarkRestore(b *testing.B) {
	dir := backupFixture(b)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "mnemo.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	src := filepath.Join(b.TempDir(), "backup")
	if _, err := backup.Create(ctx, src, "sqlite", "bench", time.Now(), db.Snapshot); err != nil {
		b.Fatal(err)
	}
	db.Close()
	for b.Loop() {
		target := filepath.Join(b.TempDir(), "data")
		if _, err := backup.Restore(ctx, src, target, checkSQLite); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(target)
		b.StartTimer()
	}
}
