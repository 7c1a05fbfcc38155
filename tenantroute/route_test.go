package tenantroute_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/storetest"
	"github.com/mnemo-dev/mnemo/tenantroute"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// open opens a fresh PostgreSQL 15 store of its own.
func open(t *testing.T) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(t.Context(), pgtest.Native(t), postgres.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// two routes tenant-b (and "beta") to a second database, every other
// tenant to the first.
func two(t *testing.T) (s *tenantroute.Store, a, b *postgres.DB) {
	t.Helper()
	a, b = open(t), open(t)
	s = tenantroute.New(a, map[string]*postgres.DB{"tenant-b": b, "beta": b})
	t.Cleanup(func() { s.Close() })
	return s, a, b
}

// The conformance suite over the routing store, its tenants spread over
// two databases (PG-12).
func TestConformanceAcrossTwoDatabases(t *testing.T) {
	storetest.Run(t, func(t *testing.T) mnemo.Store {
		s, _, _ := two(t)
		return s
	})
}

// Each tenant's memories, history, events and runs are in its database
// and nowhere else, and read back through the router (PG-12).
func TestEachTenantInItsDatabase(t *testing.T) {
	ctx := context.Background()
	s, a, b := two(t)
	m := service.New(s, service.Options{})
	tenants := []struct {
		scope     mnemo.Scope
		home, not *postgres.DB
		word      string
	}{
		{mnemo.Scope{TenantID: "alpha", AgentID: "ag"}, a, b, "heron"},
		{mnemo.Scope{TenantID: "beta", AgentID: "ag"}, b, a, "otter"},
	}
	for _, tc := range tenants {
		for _, v := range []string{"first", "second"} {
			content := "the " + tc.word + " notes, " + v
			if _, err := m.Remember(ctx, tc.scope, mnemo.Draft{Key: "/note", Content: &content}); err != nil {
				t.Fatalf("%s: remember: %v", tc.scope.TenantID, err)
			}
		}
		if _, err := m.AppendEvents(ctx, tc.scope, []mnemo.Event{{Type: "msg", TS: time.Now(), Data: json.RawMessage(`{"text":"` + tc.word + `"}`)}}); err != nil {
			t.Fatalf("%s: events: %v", tc.scope.TenantID, err)
		}
		if _, err := s.PutState(ctx, tc.scope, mnemo.StateDoc{Kind: mnemo.StateRun, ID: "r1", Body: []byte(`{}`)}); err != nil {
			t.Fatalf("%s: state: %v", tc.scope.TenantID, err)
		}
	}
	for _, tc := range tenants {
		t.Run(tc.scope.TenantID, func(t *testing.T) {
			mem, err := tc.home.GetByKey(ctx, tc.scope, "/note")
			if err != nil {
				t.Fatalf("home database: %v", err)
			}
			if _, err := tc.not.GetByKey(ctx, tc.scope, "/note"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
				t.Fatalf("other database: %v, want not found", err)
			}
			if st, err := tc.not.Stats(ctx, tc.scope); err != nil || st.Memories != 0 {
				t.Fatalf("other database holds %d memories (%v)", st.Memories, err)
			}
			if page, err := tc.not.QueryEvents(ctx, tc.scope, mnemo.EventQuery{}); err != nil || len(page.Events) != 0 {
				t.Fatalf("other database holds %d events (%v)", len(page.Events), err)
			}
			if _, err := tc.not.GetState(ctx, tc.scope, mnemo.StateRun, "r1"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
				t.Fatalf("other database's run: %v, want not found", err)
			}

			res, err := m.Recall(ctx, tc.scope, memory.Query{Text: tc.word})
			if err != nil || len(res.Results) != 1 || res.Results[0].ID != mem.ID {
				t.Fatalf("recall %q: %+v, %v", tc.word, res.Results, err)
			}
			if ms, _, err := m.List(ctx, tc.scope, mnemo.ListQuery{}); err != nil || len(ms) != 1 {
				t.Fatalf("list: %d, %v", len(ms), err)
			}
			if revs, err := m.History(ctx, tc.scope, "/note"); err != nil || len(revs) != 2 {
				t.Fatalf("history: %d revisions, %v", len(revs), err)
			}
			if page, err := m.QueryEvents(ctx, tc.scope, mnemo.EventQuery{}); err != nil || len(page.Events) != 1 {
				t.Fatalf("events: %d, %v", len(page.Events), err)
			}
		})
	}
	// The scope listings merge both databases.
	scopes, err := s.Scopes(ctx)
	if err != nil || len(scopes) != 2 {
		t.Fatalf("scopes: %v, %v", scopes, err)
	}
	idle, err := s.IdleState(ctx, mnemo.StateRun, time.Now().Add(time.Hour), 0)
	if err != nil || len(idle) != 2 {
		t.Fatalf("idle runs: %d, %v", len(idle), err)
	}
}

// The failover's probe: the store is up only while every database
// answers, so a tenant's writes spool while its database is away.
func TestPingNeedsEveryDatabase(t *testing.T) {
	s, _, b := two(t)
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("both up: %v", err)
	}
	b.Close()
	if err := s.Ping(t.Context()); mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
		t.Fatalf("b closed: %v, want unavailable", err)
	}
}

// A tenant the map does not list lives where the hash ring places it, and
// the map still wins over the ring.
func TestHashedTenants(t *testing.T) {
	ctx := context.Background()
	a, b := open(t), open(t)
	s := tenantroute.New(a, map[string]*postgres.DB{"pinned": a})
	t.Cleanup(func() { s.Close() })
	names := []string{"a", "b"}
	s.Hash(names, []*postgres.DB{a, b})
	m := service.New(s, service.Options{})
	onB := 0
	for i := range 20 {
		tenant := fmt.Sprintf("t%d", i)
		if i == 0 {
			tenant = "pinned"
		}
		sc := mnemo.Scope{TenantID: tenant, AgentID: "ag"}
		content := "a note of " + tenant
		if _, err := m.Remember(ctx, sc, mnemo.Draft{Content: &content}); err != nil {
			t.Fatal(err)
		}
		home, other := a, b
		if tenant != "pinned" && tenantroute.Place(tenant, names) == 1 {
			home, other, onB = b, a, onB+1
		}
		if st, err := home.Stats(ctx, sc); err != nil || st.Memories != 1 {
			t.Fatalf("%s: %d memories in its database, %v", tenant, st.Memories, err)
		}
		if st, err := other.Stats(ctx, sc); err != nil || st.Memories != 0 {
			t.Fatalf("%s: %d memories in the other database, %v", tenant, st.Memories, err)
		}
	}
	if onB == 0 || onB == 19 {
		t.Fatalf("%d of 19 hashed tenants on b", onB)
	}
}
