package postgres_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/postgres"
)

// eventually polls cond until it holds, failing t after a minute.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("waited a minute for %s", what)
}

// PG-11 on a real primary and streaming replica (two PostgreSQL 15
// clusters): searches read the replica; a replica behind past the bound
// is skipped and the answer flagged degraded; a writer reads its writes
// for the window after them; a replica stopped mid-run is skipped without
// one failed read, and read again once it is back.
func TestReadReplicas(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pair := pgtest.StreamingPair(t)
	replica, err := pgx.Connect(ctx, pair.Replica)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { replica.Close(context.Background()) }()
	replay := func(on bool) {
		t.Helper()
		fn := "pg_wal_replay_pause"
		if on {
			fn = "pg_wal_replay_resume"
		}
		if _, err := replica.Exec(ctx, `SELECT `+fn+`()`); err != nil {
			t.Fatal(err)
		}
	}

	// The replica has not replayed the migrations when the server opens:
	// it lacks every table, however little time it is behind, so reads go
	// to the primary, flagged, until it has caught up.
	replay(false)
	writer, err := postgres.Open(ctx, pair.Primary, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	db, err := postgres.Open(ctx, pair.Primary, postgres.Options{
		ReadDSNs: []string{pair.Replica}, ReadYourWrites: time.Second, MaxReplicaLag: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var where string
	for w := range db.Replicas() {
		where = w
	}
	usable := func() bool { return db.Replicas()[where] == "" }

	search := func(word string) (bool, mnemo.SearchResult) {
		t.Helper()
		sr, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{word}, Limit: 10})
		if err != nil {
			t.Fatalf("search %s: %v", word, err)
		}
		return len(sr.Hits) == 1, sr
	}
	write := func(db *postgres.DB, text string) {
		t.Helper()
		if _, err := db.Write(ctx, scope, []mnemo.Record{put("", text, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, sr := search("alpha"); !sr.Degraded || !strings.Contains(sr.Reason, "catching up") {
		t.Fatalf("search before the replica has the schema: degraded %v (%s); want the primary's answer, flagged", sr.Degraded, sr.Reason)
	}
	replay(true)
	if err := pair.WaitReplayed(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the replica to be usable", usable)

	// Another server's write, which the replica has not replayed: the
	// search reads the replica, within the bound, and misses it.
	replay(false)
	write(writer, "bravo lives on the primary")
	if found, sr := search("bravo"); found || sr.Degraded {
		t.Fatalf("search within the bound: found %v degraded %v; want it read from the replica, which lacks it", found, sr.Degraded)
	}
	// Past the bound the replica is skipped: the primary answers, flagged.
	eventually(t, "the lagging replica to be skipped", func() bool {
		found, sr := search("bravo")
		return found && sr.Degraded && sr.Cause == mnemo.DegradedReplica && strings.Contains(sr.Reason, "behind")
	})
	replay(true)
	eventually(t, "the replica to catch up", func() bool {
		found, sr := search("bravo")
		return found && !sr.Degraded && usable()
	})

	// Read your writes: the writer's own search goes to the primary for
	// the window, then to the replica again.
	replay(false)
	write(db, "charlie was written here")
	if found, _ := search("charlie"); !found {
		t.Fatal("the writer does not read its own write")
	}
	eventually(t, "reads to go back to the replica after the window", func() bool {
		found, _ := search("charlie")
		return !found
	})
	replay(true)
	eventually(t, "the replica to catch up", func() bool { found, _ := search("charlie"); return found && usable() })

	// The replica stops mid-run: not one read fails.
	var (
		reads, failed atomic.Int32
		wg            sync.WaitGroup
		stop          = make(chan struct{})
	)
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			sr, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"bravo"}, Limit: 10})
			reads.Add(1)
			if err != nil || len(sr.Hits) != 1 {
				failed.Add(1)
				t.Errorf("search while the replica stops: %d hits, %v", len(sr.Hits), err)
			}
		}
	})
	time.Sleep(200 * time.Millisecond)
	if out, err := pair.StopReplica(); err != nil {
		t.Fatalf("stop the replica: %v\n%s", err, out)
	}
	eventually(t, "the stopped replica to be skipped", func() bool {
		_, sr := search("bravo")
		return sr.Degraded && strings.Contains(sr.Reason, "unreachable") && strings.Contains(db.Replicas()[where], "unreachable")
	})
	if out, err := pair.StartReplica(); err != nil {
		t.Fatalf("start the replica: %v\n%s", err, out)
	}
	eventually(t, "the restarted replica to be read again", func() bool {
		_, sr := search("bravo")
		return !sr.Degraded && usable()
	})
	close(stop)
	wg.Wait()
	if failed.Load() > 0 || reads.Load() == 0 {
		t.Fatalf("%d of %d reads failed while the replica stopped", failed.Load(), reads.Load())
	}
}
