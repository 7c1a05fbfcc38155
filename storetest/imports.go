package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

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
	importInto := func(sc mnemo.Scope, private bool, lines string) (memory.ImportResult, map[string]string) {
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
		if n != (memory.ImportResult{Imported: 2}) || len(first) != 2 {
			t.Fatalf("private %v: import of A into B = %+v, mapping %v; want 2 memories under 2 new ids", private, n, first)
		}
		n, again := importInto(dst, private, export.String())
		if n != (memory.ImportResult{Skipped: 2}) {
			t.Errorf("private %v: the second import = %+v, want both lines skipped", private, n)
		}
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
	if n != (memory.ImportResult{Imported: 2}) || len(ids) != 2 || ids[taken] == "" || ids[free] == "" {
		t.Fatalf("cross-tenant import = %+v, mapping %v; want both lines stored under new ids alike", n, ids)
	}
	if m, err := svc.Get(ctx, alice, taken); err != nil || m.Content == "probe one" {
		t.Errorf("alice's memory after another tenant's import: %+v %v", m, err)
	}
}

// ImportRevisions checks what Service.Import does with records of
// memories the scope already holds, and that it counts each record
// truthfully (API-22): a later revision (a later updated_at) of a keyed or
// a keyless memory changes it in place, as a new revision, keeping its id
// and creation; the same revision or an earlier one changes nothing; and
// importing the same lines again skips them all.
func ImportRevisions(t *testing.T, store mnemo.Store) {
	svc := service.New(store, service.Options{})
	sc := mnemo.Scope{TenantID: "t1", AgentID: "revisions"}
	ctx := context.Background()
	str := func(s string) *string { return &s }
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var ms []mnemo.Memory
	for i, d := range []mnemo.Draft{
		{Content: str("likes green tea")},               // keyless, changed by a later line
		{Key: "/city", Content: str("lives in Lisbon")}, // keyed, changed by a later line
		{Content: str("plays the cello")},               // keyless, the same revision
		{Key: "/job", Content: str("a nurse")},          // keyed, an earlier revision
		{Content: str("owns a cat")},                    // keyless, an earlier revision
	} {
		at := at.Add(time.Duration(i) * time.Minute)
		d.CreatedAt, d.UpdatedAt = &at, &at
		m, err := svc.Remember(ctx, sc, d)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	line := func(m mnemo.Memory, content string, updated time.Time) string {
		m.Content, m.UpdatedAt = content, updated
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	later, earlier := time.Hour, -time.Hour
	lines := line(ms[0], "likes black tea", ms[0].UpdatedAt.Add(later)) +
		line(ms[1], "lives in Porto", ms[1].UpdatedAt.Add(later)) +
		line(ms[2], "plays the cello", ms[2].UpdatedAt) +
		line(ms[3], "a baker", ms[3].UpdatedAt.Add(earlier)) +
		line(ms[4], "owns a dog", ms[4].UpdatedAt.Add(earlier)) +
		`{"content":"new here","created_at":"2026-03-02T00:00:00Z"}` + "\n"
	res, err := svc.Import(ctx, strings.NewReader(lines), memory.ImportOptions{Scope: &sc})
	if err != nil {
		t.Fatal(err)
	}
	if want := (memory.ImportResult{Imported: 1, Updated: 2, Skipped: 3}); res != want {
		t.Errorf("import = %+v, want %+v", res, want)
	}
	for i, want := range []string{"likes black tea", "lives in Porto", "plays the cello", "a nurse", "owns a cat"} {
		m, err := svc.Get(ctx, sc, ms[i].ID)
		if err != nil || m.Content != want || !m.CreatedAt.Equal(ms[i].CreatedAt) {
			t.Errorf("memory %d after the import: %q created %v, %v; want %q created %v, same id", i, m.Content, m.CreatedAt, err, want, ms[i].CreatedAt)
		}
	}
	if hist, err := svc.History(ctx, sc, "/city"); err != nil || len(hist) != 2 {
		t.Errorf("history of /city after its update: %d revisions, %v; want 2", len(hist), err)
	}
	if _, total, err := svc.List(ctx, sc, mnemo.ListQuery{}); err != nil || total != 6 {
		t.Errorf("the scope holds %d memories (%v), want 6", total, err)
	}
	res, err = svc.Import(ctx, strings.NewReader(lines), memory.ImportOptions{Scope: &sc})
	if err != nil || res != (memory.ImportResult{Skipped: 5, Imported: 1}) {
		// The line without an id is a new memory each time.
		t.Errorf("the same lines again = %+v, %v; want 5 skipped and the line without an id imported", res, err)
	}
}
