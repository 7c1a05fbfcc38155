package failover_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/failover"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/service"
)

// cutPrimary is a primary whose replay dies after its first batches: the
// last batch it lets through commits and is reported failed, as a process
// killed between the database's commit and its answer leaves it, and the
// later ones fail unwritten.
type cutPrimary struct {
	*postgres.DB
	left *atomic.Int32 // batches still let through
	died chan struct{} // closed once the last one has committed
}

func (p cutPrimary) ReplayWrites(ctx context.Context, scope mnemo.Scope, recs []mnemo.Record) (int, error) {
	n := p.left.Add(-1)
	if n < 0 {
		return 0, mnemo.Errorf(mnemo.EUNAVAILABLE, "the replaying process is gone")
	}
	took, err := p.DB.ReplayWrites(ctx, scope, recs)
	if n == 0 {
		close(p.died)
		if err == nil {
			return 0, mnemo.Errorf(mnemo.EUNAVAILABLE, "the replaying process died after the commit")
		}
	}
	return took, err
}

// PG-7, PG-10: a spool replayed twice changes nothing the second time,
// whether the first replay ran to its end (and the process died before it
// removed the spool: a copy of it is replayed again) or was cut in the
// middle, after a commit it never heard of, and the next process replayed
// the spool from its start. Nothing is written twice (a superseded write's
// history revision included), by one server or two at once, and what
// another server forgot between the replays stays forgotten.
func TestReplayTwiceChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  bool
	}{
		{name: "replayed to the end, then a copy", cut: false},
		{name: "cut in the middle, then from the start", cut: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			direct := pgtest.Native(t)
			px, dsn := newProxy(t, direct)
			dir := t.TempDir()
			spoolDir := filepath.Join(dir, "spool")
			left, died := &atomic.Int32{}, make(chan struct{})
			left.Store(2)
			open := opener(dsn)
			if tc.cut {
				open = func(ctx context.Context) (failover.Primary, error) {
					db, err := postgres.Open(ctx, dsn, postgres.Options{MaxConns: 4})
					if err != nil {
						return nil, err
					}
					return cutPrimary{db, left, died}, nil
				}
			}
			a, err := failover.New(ctx, open, spoolDir, failover.Options{ProbeEvery: 20 * time.Millisecond, ReplayBatch: 1})
			if err != nil {
				t.Fatal(err)
			}
			svcA := service.New(a, service.Options{})
			other, err := postgres.Open(ctx, direct, postgres.Options{})
			if err != nil {
				t.Fatal(err)
			}
			svcB := service.New(other, service.Options{}) // another server, closing other
			defer svcB.Close()
			remember := func(svc *service.Mnemo, key, content string) mnemo.Memory {
				t.Helper()
				m, err := svc.Remember(ctx, alice, mnemo.Draft{Key: key, Content: str(content)})
				if err != nil {
					t.Fatalf("remember %q: %v", content, err)
				}
				time.Sleep(2 * time.Millisecond) // distinct UpdatedAt on a coarse clock
				return m
			}

			remember(svcB, "/project/db", "The project uses PostgreSQL 14")
			remember(svcB, "/team/lead", "Ana leads the team")
			px.down()
			remember(svcA, "/project/db", "The project uses PostgreSQL 15")
			standup := remember(svcA, "", "Standup is at 9:30 every weekday")
			remember(svcA, "/project/db", "The project moved to PostgreSQL 16")
			bo := remember(svcA, "/team/lead", "Bo leads the team")
			retro := remember(svcA, "", "The retro is on Fridays")
			remember(svcB, "/team/lead", "Cy leads the team from March")
			copyDir(t, spoolDir, filepath.Join(dir, "copy"))
			px.up()
			if tc.cut {
				testwait.Until(t, 30*time.Second, "the replay to be cut", func() bool {
					select {
					case <-died:
						return true
					default:
						return false
					}
				})
				if err := svcA.Close(); err != nil {
					t.Fatal(err)
				}
				// The next process replays the spool the cut one left.
				next, err := failover.New(ctx, opener(direct), spoolDir, failover.Options{ProbeEvery: 20 * time.Millisecond, ReplayBatch: 1})
				if err != nil {
					t.Fatal(err)
				}
				waitUp(t, next)
				next.Close()
			} else {
				waitUp(t, a)
				if err := svcA.Close(); err != nil {
					t.Fatal(err)
				}
			}

			keys, ids := []string{"/project/db", "/team/lead"}, []string{standup.ID, retro.ID}
			first := dbState(t, other, keys, ids)
			lost := fmt.Sprintf(`put applied=false "Bo leads the team" at %s`, bo.UpdatedAt.UTC().Format(time.RFC3339Nano))
			for _, want := range []string{
				`/project/db = "The project moved to PostgreSQL 16"`,
				`/team/lead = "Cy leads the team from March"`,
				lost,
				standup.ID + ` = "Standup is at 9:30 every weekday"`,
				retro.ID + ` = "The retro is on Fridays"`,
			} {
				if strings.Count(first, want) != 1 {
					t.Fatalf("after the first replay, %d times %s:\n%s", strings.Count(first, want), want, first)
				}
			}
			if n := strings.Count(first, "applied="); n != 6 {
				t.Fatalf("after the first replay, %d revisions, want 6:\n%s", n, first)
			}

			// Another server forgets a keyless memory and a key the replay
			// brought, then the copy is replayed, in the background, as
			// soon as it is opened, since the database answers.
			if _, err := svcB.Forget(ctx, alice, []string{standup.ID}, []string{"/project/db"}); err != nil {
				t.Fatal(err)
			}
			// Two of them at once, as two servers would.
			forgot := dbState(t, other, keys, ids)
			copyDir(t, filepath.Join(dir, "copy"), filepath.Join(dir, "copy2"))
			var agains []*failover.Store
			for _, c := range []string{"copy", "copy2"} {
				again, err := failover.New(ctx, opener(direct), filepath.Join(dir, c), failover.Options{})
				if err != nil {
					t.Fatal(err)
				}
				agains = append(agains, again)
			}
			for _, again := range agains {
				waitUp(t, again)
				if again.Spooled() != 0 {
					t.Fatalf("the copy was not replayed at open: %d left", again.Spooled())
				}
				again.Close()
			}
			if second := dbState(t, other, keys, ids); second != forgot {
				t.Fatalf("the second replay changed the database:\n%s\nthen:\n%s", forgot, second)
			}
		})
	}
}

// dbState describes, as text to compare, what db holds of keys and ids:
// the scope's counts and ledger, each key's value and history (a revision's time
// only when it lost, since the database stamps an applied one when it
// takes it), and each id's memory.
func dbState(t *testing.T, db *postgres.DB, keys, ids []string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	st, err := db.Stats(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "memories %d, keys %d, tombstones %d\n", st.Memories, st.Keys, st.Tombstones)
	es, _, err := db.Ledger(ctx, alice, mnemo.LedgerQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Action != mnemo.ActionForget { // its time is the forget's
			fmt.Fprintf(&b, "ledger: %s %s %q at %s\n", e.Action, e.Actor, e.Reason, e.At.UTC().Format(time.RFC3339Nano))
		}
	}
	for _, k := range keys {
		m, err := db.GetByKey(ctx, alice, k)
		fmt.Fprintf(&b, "%s = %q %s\n", k, m.Content, mnemo.ErrorCode(err))
		h, err := db.History(ctx, alice, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range h {
			content := ""
			if r.Memory != nil {
				content = r.Memory.Content
			}
			at := ""
			if !r.Applied {
				at = "at " + r.At.UTC().Format(time.RFC3339Nano)
			}
			fmt.Fprintf(&b, "  %s applied=%v %q %s\n", r.Op, r.Applied, content, at)
		}
	}
	for _, id := range ids {
		m, err := db.Get(ctx, alice, id)
		fmt.Fprintf(&b, "%s = %q %s\n", id, m.Content, mnemo.ErrorCode(err))
	}
	return b.String()
}
