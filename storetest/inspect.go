package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// The inspector's optional store interfaces (API-13, API-14): a store
// that has one must keep its contract; one without is skipped.

// testAgents checks AgentLister: the tenant's agents in order, with their
// active memories (archived and tombstones not counted), no other
// tenant's.
func testAgents(t *testing.T, s mnemo.Store) {
	al, ok := s.(mnemo.AgentLister)
	if !ok {
		t.Skip("the store has no AgentLister")
	}
	archived := newMemory(scopeAY, 3, "", "archived one")
	archived.Archived = true
	write(t, s, scopeAY, put(newMemory(scopeAY, 1, "", "one")), put(newMemory(scopeAY, 2, "/k", "two")), put(archived))
	write(t, s, scopeAY, tombstone(scopeAY, 4, "/k", at(time.Hour)))
	write(t, s, scopeAX, put(newMemory(scopeAX, 5, "", "x")))
	write(t, s, scopeBX, put(newMemory(scopeBX, 6, "", "other tenant")))
	got, err := al.Agents(t.Context(), scopeAX.TenantID)
	if err != nil {
		t.Fatal(err)
	}
	want := []mnemo.AgentCount{{AgentID: "agent-x", Memories: 1}, {AgentID: "agent-y", Memories: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Agents = %+v, want %+v", got, want)
	}
	if got, err := al.Agents(t.Context(), "tenant-none"); err != nil || len(got) != 0 {
		t.Errorf("Agents of an unknown tenant = %+v, %v; want none", got, err)
	}
}

// testKeyTree checks KeyTreeLister: one level under a prefix, directories
// counted, leaves, schemes at the top, tombstones left out, the limit.
func testKeyTree(t *testing.T, s mnemo.Store) {
	kl, ok := s.(mnemo.KeyTreeLister)
	if !ok {
		t.Skip("the store has no KeyTreeLister")
	}
	keys := []string{"/user/lang", "/user/name", "/user/prefs/theme", "/user", "/work/a", "kb://topic/x", "/gone"}
	var recs []mnemo.Record
	for i, k := range keys {
		recs = append(recs, put(newMemory(scopeAX, i+1, k, "text "+k)))
	}
	recs = append(recs, put(newMemory(scopeAX, 99, "", "keyless")))
	write(t, s, scopeAX, recs...)
	write(t, s, scopeAX, tombstone(scopeAX, 50, "/gone", at(time.Hour)))
	write(t, s, scopeAY, put(newMemory(scopeAY, 60, "/other/agent", "not this agent's")))

	tests := []struct {
		prefix string
		limit  int
		want   []mnemo.KeyChild
		more   bool
	}{
		{"", 100, []mnemo.KeyChild{{Name: "/user", Count: 1}, {Name: "/user/", Dir: true, Count: 3}, {Name: "/work/", Dir: true, Count: 1}, {Name: "kb://", Dir: true, Count: 1}}, false},
		{"/user/", 100, []mnemo.KeyChild{{Name: "lang", Count: 1}, {Name: "name", Count: 1}, {Name: "prefs/", Dir: true, Count: 1}}, false},
		{"/user/", 2, []mnemo.KeyChild{{Name: "lang", Count: 1}, {Name: "name", Count: 1}}, true},
		{"kb://", 100, []mnemo.KeyChild{{Name: "topic/", Dir: true, Count: 1}}, false},
		{"/nothing/", 100, []mnemo.KeyChild{}, false},
	}
	for _, tt := range tests {
		got, more, err := kl.KeyTree(t.Context(), scopeAX, tt.prefix, tt.limit)
		if err != nil {
			t.Fatalf("KeyTree(%q): %v", tt.prefix, err)
		}
		if !reflect.DeepEqual(got, tt.want) || more != tt.more {
			t.Errorf("KeyTree(%q, %d) = %+v, %v; want %+v, %v", tt.prefix, tt.limit, got, more, tt.want, tt.more)
		}
	}
	if _, _, err := kl.KeyTree(t.Context(), scopeAX, "/a\x01", 10); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("KeyTree of a prefix with a control character: %v, want EINVALID", err)
	}
}

// testReplace checks Store.Replace: a keyless memory changed in place keeps its
// id, creation and accesses, is found by its new text only, and a missing
// or keyed id is ENOTFOUND.
func testReplace(t *testing.T, s mnemo.Store) {
	rp := s
	ctx := t.Context()
	old := newMemory(scopeAX, 1, "", "original words")
	write(t, s, scopeAX, put(old), put(newMemory(scopeAX, 2, "/keyed", "keyed words")))
	if err := s.Touch(ctx, scopeAX, []string{old.ID}, at(time.Minute)); err != nil {
		t.Fatal(err)
	}
	m := old
	m.Content, m.Tags, m.Pinned = "replaced text", []string{"edited"}, true
	m.Version = 0 // the store numbers the revision
	m.CreatedAt, m.UpdatedAt = at(2*time.Hour), at(2*time.Hour)
	got, err := rp.Replace(ctx, scopeAX, put(m))
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != old.ID || !got.CreatedAt.Equal(t0) || got.AccessCount != 1 || got.Content != "replaced text" || !got.Pinned {
		t.Errorf("Replace = id %s created %v accesses %d content %q pinned %v; want the same id, creation and access, the new text",
			got.ID, got.CreatedAt, got.AccessCount, got.Content, got.Pinned)
	}
	if g := get(t, s, scopeAX, old.ID); g.Content != "replaced text" || !reflect.DeepEqual(g.Tags, []string{"edited"}) || g.Version != 2 {
		t.Errorf("Get after Replace = %q %v version %d; want version 2", g.Content, g.Tags, g.Version)
	}
	if hits := search(t, s, scopeAX, mnemo.TextQuery{Terms: []string{"original"}}); len(hits) != 0 {
		t.Errorf("the old text is still found: %v", hitIDs(hits))
	}
	if hits := search(t, s, scopeAX, mnemo.TextQuery{Terms: []string{"replaced"}}); len(hits) != 1 {
		t.Errorf("the new text is not found: %v", hitIDs(hits))
	}
	if _, total := list(t, s, scopeAX, mnemo.ListQuery{}); total != 2 {
		t.Errorf("List total after Replace = %d, want 2", total)
	}
	missing := newMemory(scopeAX, 3, "", "nobody")
	if _, err := rp.Replace(ctx, scopeAX, put(missing)); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("Replace of a missing id: %v, want ENOTFOUND", err)
	}
	if _, err := rp.Replace(ctx, scopeAY, put(m)); mnemo.ErrorCode(err) == "" {
		t.Errorf("Replace in another scope succeeded")
	}
}
