package storetest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// ImportAcrossScopes checks Service.Import over store: an export of agent A
// imports into agent B of the same store (new ids, the mapping reported, a
// second import changing nothing), and a tenant's private import of a line
// carrying another tenant's id behaves exactly as one carrying an id no one
// holds. Ids are unique in a store, so this is every backend's business.
func ImportAcrossScopes(t *testing.T, store mnemo.Store) {
	svc := service.New(store, service.Options{})
	alice := mnemo.Scope{TenantID: "t1", AgentID: "alice"}
	other := mnemo.Scope{TenantID: "t2", AgentID: "alice"}
	str := func(s string) *string { return &s }
	ctx := context.Background()
	if _, err := svc.RememberBatch(ctx, alice, []mnemo.Draft{{Key: "/city", Content: str("lives in Lisbon")}, {Content: str("likes green tea")}}); err != nil {
		t.Fatal(err)
	}
	var export bytes.Buffer
	if _, err := svc.Export(ctx, alice, &export, nil); err != nil {
		t.Fatal(err)
	}
	importInto := func(sc mnemo.Scope, private bool, lines string) (int, map[string]string) {
		t.Helper()
		ids := map[string]string{}
		n, err := svc.Import(ctx, strings.NewReader(lines), memory.ImportOptions{Scope: &sc, Private: private,
			OnNewID: func(old, new string) { ids[old] = new }})
		if err != nil {
			t.Fatalf("import into %v (private %v): %v", sc, private, err)
		}
		return n, ids
	}
	for _, private := range []bool{false, true} {
		dst := mnemo.Scope{TenantID: alice.TenantID, AgentID: "dst" + map[bool]string{false: "-cli", true: "-http"}[private]}
		n, first := importInto(dst, private, export.String())
		if n != 2 || len(first) != 2 {
			t.Fatalf("private %v: import of A into B = %d, mapping %v; want 2 memories under 2 new ids", private, n, first)
		}
		_, again := importInto(dst, private, export.String())
		ms, total, err := svc.List(ctx, dst, mnemo.ListQuery{})
		if err != nil || total != 2 {
			t.Fatalf("private %v: B holds %d memories after two imports (%v), want 2", private, total, err)
		}
		for _, m := range ms {
			if m.AgentID != dst.AgentID || (m.Content != "lives in Lisbon" && m.Content != "likes green tea") {
				t.Errorf("private %v: B holds %+v", private, m)
			}
		}
		for old, new := range first {
			if again[old] != new {
				t.Errorf("private %v: second import mapped %s to %s, the first to %s", private, old, again[old], new)
			}
			if _, err := svc.Get(ctx, dst, new); err != nil {
				t.Errorf("private %v: the new id %s: %v", private, new, err)
			}
			if m, err := svc.Get(ctx, alice, old); err != nil || m.AgentID != alice.AgentID {
				t.Errorf("private %v: A's memory %s after the import: %+v %v", private, old, m, err)
			}
		}
	}

	// Another tenant imports a line with alice's id and a line with an id
	// no one holds: both behave the same, and alice's memory is untouched.
	ms, _, _ := svc.List(ctx, alice, mnemo.ListQuery{})
	taken, free := ms[0].ID, uuid.Must(uuid.NewV7()).String()
	line := func(id, content string) string {
		return `{"id":"` + id + `","tenant_id":"t2","agent_id":"alice","content":"` + content + `","created_at":"2026-03-01T12:00:00Z","updated_at":"2026-03-01T12:00:00Z"}` + "\n"
	}
	n, ids := importInto(other, true, line(taken, "probe one")+line(free, "probe two"))
	if n != 2 || len(ids) != 2 || ids[taken] == "" || ids[free] == "" {
		t.Fatalf("cross-tenant import = %d, mapping %v; want both lines stored under new ids alike", n, ids)
	}
	if m, err := svc.Get(ctx, alice, taken); err != nil || m.Content == "probe one" {
		t.Errorf("alice's memory after another tenant's import: %+v %v", m, err)
	}
}
