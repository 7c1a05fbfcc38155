package storetest

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// testIndexContext checks mnemo.ContextIndexer (REC-36): records are
// written as by Write, a live memory's index context changes in place, in
// its scope only, and nothing else of it does; a write of the memory sets
// the context it carries.
func testIndexContext(t *testing.T, s mnemo.Store) {
	ci, ok := s.(mnemo.ContextIndexer)
	if !ok {
		t.Skip("the store has no ContextIndexer")
	}
	ctx := t.Context()
	said := newMemory(scopeAX, 1, "", "did you see the show")
	keyed := newMemory(scopeAX, 2, "/talk/answer", "yes last night")
	gone := newMemory(scopeAX, 3, "/talk/gone", "a line deleted")
	word := newMemory(scopeAX, 4, "", "kiwi in the text")
	other := newMemory(scopeAY, 5, "", "another agent's line")
	rs := put(said)
	rs.Index.Context = "earlier words"
	write(t, s, scopeAX, rs, put(keyed), put(gone), put(word))
	write(t, s, scopeAY, put(other))
	write(t, s, scopeAX, tombstone(scopeAX, 6, gone.Key, at(time.Minute)))
	before := get(t, s, scopeAX, said.ID)
	revs := history(t, s, scopeAX, keyed.Key)
	f := mnemo.Filter{Now: at(time.Hour)}
	find := func(sc mnemo.Scope, term string) []string {
		t.Helper()
		return hitIDs(search(t, s, sc, mnemo.TextQuery{Filter: f, Terms: []string{term}}))
	}

	reply := newMemory(scopeAX, 8, "", "we saw it together")
	ms, err := ci.WriteContexts(ctx, scopeAX, []mnemo.Record{put(reply)}, []mnemo.ContextUpdate{
		{ID: said.ID, Context: "kiwi tickets"},
		{ID: keyed.ID, Context: "papaya"},
		{ID: gone.ID, Context: "papaya"},  // tombstoned: skipped
		{ID: id(99), Context: "papaya"},   // never stored: skipped
		{ID: other.ID, Context: "mango"},  // another agent's: skipped
		{ID: keyed.ID, Context: "durian"}, // the last of an id holds
	})
	if err != nil || len(ms) != 1 || ms[0].ID != reply.ID || ms[0].Content != reply.Content {
		t.Fatalf("WriteContexts = %+v, %v; want the record written", ms, err)
	}
	if got := find(scopeAX, "together"); !slices.Equal(got, []string{reply.ID}) {
		t.Errorf("together (the record written with the contexts) = %v, want %s", got, reply.ID)
	}
	if got := find(scopeAX, "kiwi"); !slices.Equal(got, []string{word.ID, said.ID}) {
		t.Errorf("kiwi = %v, want %s (text) above %s (its new context)", got, word.ID, said.ID)
	}
	if got := find(scopeAX, "earlier"); len(got) != 0 {
		t.Errorf("earlier (the context replaced) = %v, want nothing", got)
	}
	if got := find(scopeAX, "durian"); !slices.Equal(got, []string{keyed.ID}) {
		t.Errorf("durian = %v, want %s", got, keyed.ID)
	}
	if got := find(scopeAX, "papaya"); len(got) != 0 {
		t.Errorf("papaya = %v, want nothing: a deleted memory stays out, and the last update of an id holds", got)
	}
	if got := find(scopeAY, "mango"); len(got) != 0 {
		t.Errorf("mango in the other agent = %v, want nothing: an update names its scope", got)
	}
	if got := find(scopeAX, "mango"); len(got) != 0 {
		t.Errorf("mango = %v, want nothing", got)
	}
	if after := get(t, s, scopeAX, said.ID); !reflect.DeepEqual(after, before) {
		t.Errorf("the memory changed:\n got %+v\nwant %+v", after, before)
	}
	if got := history(t, s, scopeAX, keyed.Key); len(got) != len(revs) {
		t.Errorf("history of %s: %d revisions, want %d: an index context is no revision", keyed.Key, len(got), len(revs))
	}
	if _, err := ci.WriteContexts(ctx, mnemo.Scope{TenantID: "tenant-a"}, nil, []mnemo.ContextUpdate{{ID: said.ID}}); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("WriteContexts with no agent: %v, want EINVALID", err)
	}
	// With no records it only sets the contexts.
	if ms, err := ci.WriteContexts(ctx, scopeAX, nil, []mnemo.ContextUpdate{{ID: word.ID, Context: "plum"}}); err != nil || len(ms) != 0 {
		t.Errorf("WriteContexts with no records = %v, %v", ms, err)
	}
	if got := find(scopeAX, "plum"); !slices.Equal(got, []string{word.ID}) {
		t.Errorf("plum = %v, want %s", got, word.ID)
	}

	// A write of the memory sets the context it carries.
	next := newMemory(scopeAX, 7, keyed.Key, "yes last night")
	next.UpdatedAt = at(2 * time.Minute)
	write(t, s, scopeAX, put(next))
	if got := find(scopeAX, "durian"); len(got) != 0 {
		t.Errorf("durian after the key was written again = %v, want nothing", got)
	}
}
