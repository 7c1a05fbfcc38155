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

// testIndexContextEmbed checks a ContextUpdate that gives a new embed text
// (REC-37): the vector made from the old text goes — vector search no
// longer finds it, and the memory is queued with the new text — and a
// vector of the old text arriving late is skipped; an update with no
// embed text, or the one stored, leaves the vector alone.
func testIndexContextEmbed(t *testing.T, store mnemo.Store) {
	ci, ok := store.(mnemo.ContextIndexer)
	if !ok {
		t.Skip("the store has no ContextIndexer")
	}
	s, ok := vectorStore(t, store)
	if !ok {
		return
	}
	ctx := t.Context()
	setSpace(t, s)
	after := embedded(scopeAX, 1, "", "a reply", []float32{1, 0, 0})
	kept := embedded(scopeAX, 2, "", "another reply", []float32{0.9, 0.1, 0})
	same := embedded(scopeAX, 3, "", "a third reply", []float32{0.8, 0.2, 0})
	write(t, s, scopeAX, after, kept, same)
	nearest := func() []string {
		t.Helper()
		hits, err := s.SearchVectors(ctx, scopeAX, mnemo.VectorQuery{Vector: []float32{1, 0, 0}, Limit: 10})
		if err != nil {
			t.Fatalf("SearchVectors: %v", err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.Memory.ID)
		}
		return ids
	}
	if got := nearest(); !slices.Equal(got, []string{id(1), id(2), id(3)}) {
		t.Fatalf("nearest before = %v", got)
	}
	_, err := ci.WriteContexts(ctx, scopeAX, nil, []mnemo.ContextUpdate{
		{ID: id(1), Context: "new words", Embed: "the turn before\na reply"},
		{ID: id(2), Context: "new words"},
		{ID: id(3), Context: "new words", Embed: same.Embed},
	})
	if err != nil {
		t.Fatalf("WriteContexts: %v", err)
	}
	if got := nearest(); !slices.Equal(got, []string{id(2), id(3)}) {
		t.Errorf("nearest after = %v, want %s and %s: %s's vector was of its old text", got, id(2), id(3), id(1))
	}
	jobs, err := s.Unembedded(ctx, 10)
	if err != nil || len(jobs) != 1 || jobs[0].ID != id(1) || jobs[0].Text != "the turn before\na reply" {
		t.Fatalf("queued = %+v, %v; want %s with its new text", jobs, err, id(1))
	}
	if m := get(t, s, scopeAX, id(1)); len(m.Embedding) != 0 || m.Content != after.Memory.Content || m.Version != after.Memory.Version {
		t.Errorf("after the update: embedding %v, content %q, version %d", m.Embedding, m.Content, m.Version)
	}
	// The old text's vector, late, is skipped; the new one's is stored.
	if err := s.SetVectors(ctx, []mnemo.EmbedJob{{ID: id(1), Text: after.Embed}}, [][]float32{{1, 0, 0}}); err != nil {
		t.Fatalf("SetVectors: %v", err)
	}
	if got := nearest(); !slices.Equal(got, []string{id(2), id(3)}) {
		t.Errorf("nearest after the old text's vector = %v, want it skipped", got)
	}
	if err := s.SetVectors(ctx, jobs, [][]float32{{0, 0, 1}}); err != nil {
		t.Fatalf("SetVectors: %v", err)
	}
	if got := nearest(); !slices.Equal(got, []string{id(2), id(3), id(1)}) {
		t.Errorf("nearest with the new vector = %v", got)
	}
}
