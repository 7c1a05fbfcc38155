package failover_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/failover"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/tenantroute"
)

// PG-9, PG-10: two servers on one database, one of which loses it and
// spools. Its replay keeps last-write-wins by UpdatedAt against the other
// server's writes meanwhile: a spooled write older than the other's
// changes nothing, a newer one wins.
func TestReplayKeepsOtherServersNewerWrites(t *testing.T) {
	ctx := context.Background()
	direct := pgtest.Native(t)
	px, dsn := newProxy(t, direct)
	a, err := failover.New(ctx, opener(dsn), filepath.Join(t.TempDir(), "spool"), failover.Options{ProbeEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	b, err := failover.New(ctx, opener(direct), filepath.Join(t.TempDir(), "spool"), failover.Options{ProbeEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	svcA, svcB := service.New(a, service.Options{}), service.New(b, service.Options{})
	defer svcA.Close()
	defer svcB.Close()
	remember := func(svc *service.Mnemo, key, content string) {
		t.Helper()
		if _, err := svc.Remember(ctx, alice, mnemo.Draft{Key: key, Content: str(content)}); err != nil {
			t.Fatalf("remember %s: %v", key, err)
		}
		time.Sleep(2 * time.Millisecond) // distinct UpdatedAt on a coarse clock
	}

	remember(svcB, "/k/second", "B wrote it first")
	px.down()
	remember(svcA, "/k/first", "A spooled it first")
	remember(svcB, "/k/first", "B wrote it later")
	remember(svcA, "/k/second", "A spooled it later")
	if a.Spooled() != 2 {
		t.Fatalf("%d spooled on A, want 2", a.Spooled())
	}
	px.up()
	waitUp(t, a)

	db, err := postgres.Open(ctx, direct, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for key, want := range map[string]string{"/k/first": "B wrote it later", "/k/second": "A spooled it later"} {
		if got, err := db.GetByKey(ctx, alice, key); err != nil || got.Content != want {
			t.Errorf("%s after A's replay: %q %v, want %q", key, got.Content, err, want)
		}
	}
}

// PG-7, PG-10: a spooled write that loses last-write-wins to another
// server's newer write is not dropped: the replay keeps it in the key's
// history, unapplied, at the time it was acknowledged, as mnemo.Store.Write
// keeps every acknowledged revision; the key keeps the newer value. On one
// database, and on tenants spread over two (PG-12), alice's in the second.
func TestReplayKeepsSupersededWriteInHistory(t *testing.T) {
	routed := func(dsns []string) func(context.Context) (failover.Primary, error) {
		return func(ctx context.Context) (failover.Primary, error) {
			var dbs []*postgres.DB
			for _, dsn := range dsns {
				db, err := postgres.Open(ctx, dsn, postgres.Options{MaxConns: 4})
				if err != nil {
					for _, db := range dbs {
						db.Close()
					}
					return nil, err
				}
				dbs = append(dbs, db)
			}
			return tenantroute.New(dbs[0], map[string]*postgres.DB{alice.TenantID: dbs[1]}), nil
		}
	}
	for _, tc := range []struct {
		name string
		dbs  int
		open func(dsns []string) func(context.Context) (failover.Primary, error)
	}{
		{"postgres", 1, func(dsns []string) func(context.Context) (failover.Primary, error) { return opener(dsns[0]) }},
		{"tenants over two databases", 2, routed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var direct, proxied []string
			var pxs []*proxy
			for range tc.dbs {
				d := pgtest.Native(t)
				px, dsn := newProxy(t, d)
				direct, proxied, pxs = append(direct, d), append(proxied, dsn), append(pxs, px)
			}
			a, err := failover.New(ctx, tc.open(proxied), filepath.Join(t.TempDir(), "spool"), failover.Options{ProbeEvery: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			b, err := failover.New(ctx, tc.open(direct), filepath.Join(t.TempDir(), "spool"), failover.Options{ProbeEvery: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			svcA, svcB := service.New(a, service.Options{}), service.New(b, service.Options{})
			defer svcA.Close()
			defer svcB.Close()
			remember := func(svc *service.Mnemo, content string) mnemo.Memory {
				t.Helper()
				m, err := svc.Remember(ctx, alice, mnemo.Draft{Key: "/user/editor", Content: str(content)})
				if err != nil {
					t.Fatalf("remember %q: %v", content, err)
				}
				time.Sleep(2 * time.Millisecond) // distinct UpdatedAt on a coarse clock
				return m
			}

			remember(svcB, "Uses vim for everything")
			for _, px := range pxs {
				px.down()
			}
			spooled := remember(svcA, "Switched to helix this week")
			remember(svcB, "Settled on zed after trying helix")
			for _, px := range pxs {
				px.up()
			}
			waitUp(t, a)

			// Alice's database, straight.
			db, err := postgres.Open(ctx, direct[len(direct)-1], postgres.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if got, err := db.GetByKey(ctx, alice, "/user/editor"); err != nil || got.Content != "Settled on zed after trying helix" {
				t.Fatalf("the key after A's replay: %q %v, want B's newer write", got.Content, err)
			}
			h, err := db.History(ctx, alice, "/user/editor")
			if err != nil {
				t.Fatal(err)
			}
			var kept []mnemo.Revision
			for _, r := range h {
				if r.Memory != nil && r.Memory.Content == spooled.Content {
					kept = append(kept, r)
				}
			}
			if len(kept) != 1 || kept[0].Applied || kept[0].Op != mnemo.OpPut || !kept[0].At.Equal(spooled.UpdatedAt) {
				t.Fatalf("the superseded spooled write in history: %+v, want one unapplied put at %v (history %+v)", kept, spooled.UpdatedAt, h)
			}
			if len(h) != 3 {
				t.Fatalf("history of %d revisions, want 3: %+v", len(h), h)
			}
		})
	}
}
