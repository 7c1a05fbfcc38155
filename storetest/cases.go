package storetest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// testRoundTrip checks that every field of a memory comes back as written,
// from every read.
func testRoundTrip(t *testing.T, s mnemo.Store) {
	india := time.FixedZone("IST", 5*3600+1800)
	expires := at(90 * 24 * time.Hour)
	full := mnemo.Memory{
		ID:             id(1),
		TenantID:       scopeAX.TenantID,
		AgentID:        scopeAX.AgentID,
		SessionID:      "session-1",
		Key:            "/user/preference/style",
		Content:        "prefers concise answers with examples",
		Data:           json.RawMessage(`{"style": "concise", "n": [1, 2.5, {"x": null}], "ok": true}`),
		Summary:        "concise style",
		Type:           mnemo.TypePreference,
		Category:       "communication",
		Priority:       1,
		Importance:     0.75,
		Confidence:     0.9,
		Tags:           []string{"style", "ux"},
		SecurityLevel:  mnemo.SecurityConfidential,
		Pinned:         true,
		Source:         json.RawMessage(`{"kind":"user","name":"chat","retrieved_at":"2025-03-14T15:09:26Z","locator":"msg/42"}`),
		CreatedAt:      t0.In(india), // comes back in UTC
		UpdatedAt:      at(time.Nanosecond),
		AccessedAt:     at(2 * time.Nanosecond),
		AccessCount:    3,
		ExpiresAt:      &expires,
		Vitality:       0.875,
		Stability:      365,
		Version:        mnemo.FormatVersion,
		Embedding:      []float32{0.25, -1.5, 3.1415927, 1e-7, 0},
		EmbeddingModel: "test/mini-5",
	}
	// minimal has no key, session, data, source, tags, embedding, access or
	// expiry, and is archived.
	minimal := mnemo.Memory{
		ID:        id(2),
		Content:   "plain words",
		Source:    json.RawMessage(`"a plain string source"`),
		Archived:  true,
		CreatedAt: at(time.Hour),
		UpdatedAt: at(time.Hour),
	}
	wantMinimal := minimal
	wantMinimal.TenantID, wantMinimal.AgentID = scopeAX.TenantID, scopeAX.AgentID
	wantMinimal.Version = 1 // written without one: the store numbers it, first

	got := write(t, s, scopeAX, put(full), put(minimal))
	checkMemory(t, "Write full", got[0], full)
	checkMemory(t, "Write minimal", got[1], wantMinimal)

	checkMemory(t, "Get full", get(t, s, scopeAX, full.ID), full)
	checkMemory(t, "Get minimal", get(t, s, scopeAX, minimal.ID), wantMinimal)
	checkMemory(t, "GetByKey full", getByKey(t, s, scopeAX, full.Key), full)

	now := at(time.Minute)
	ms, total := list(t, s, scopeAX, mnemo.ListQuery{Filter: mnemo.Filter{IncludeArchived: true, Now: now}, Order: mnemo.OrderOldest})
	if total != 2 || len(ms) != 2 {
		t.Fatalf("List: %d memories, total %d, want 2 and 2", len(ms), total)
	}
	checkMemory(t, "List full", ms[0], full)
	checkMemory(t, "List minimal", ms[1], wantMinimal)

	hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: mnemo.Filter{Now: now}, Terms: []string{"concise"}})
	if len(hits) != 1 {
		t.Fatalf("Search: %d hits, want 1", len(hits))
	}
	checkMemory(t, "Search full", hits[0].Memory, full)
	hits = search(t, s, scopeAX, mnemo.TextQuery{Filter: mnemo.Filter{IncludeArchived: true, Now: now}, Terms: []string{"plain"}})
	if len(hits) != 1 {
		t.Fatalf("Search archived: %d hits, want 1", len(hits))
	}
	checkMemory(t, "Search minimal", hits[0].Memory, wantMinimal)

	revs := history(t, s, scopeAX, full.Key)
	if len(revs) != 1 || revs[0].Op != mnemo.OpPut || !revs[0].Applied || revs[0].Memory == nil {
		t.Fatalf("History = %+v, want one applied put with its memory", revs)
	}
	if r := revs[0]; r.MemoryID != full.ID || r.Key != full.Key || r.Memory.Content != full.Content || r.At.IsZero() {
		t.Errorf("History revision = %+v, want memory %s, key %s and its content", r, full.ID, full.Key)
	}
}

// testScopeRequired checks that a call without a tenant or an agent fails.
func testScopeRequired(t *testing.T, s mnemo.Store) {
	ctx := t.Context()
	for _, scope := range []mnemo.Scope{{}, {TenantID: "t"}, {AgentID: "a"}} {
		_, err := s.Write(ctx, scope, []mnemo.Record{put(newMemory(scope, 1, "", "words"))})
		wantCode(t, "Write", err, mnemo.EINVALID)
		_, err = s.Get(ctx, scope, id(1))
		wantCode(t, "Get", err, mnemo.EINVALID)
		_, _, err = s.List(ctx, scope, mnemo.ListQuery{})
		wantCode(t, "List", err, mnemo.EINVALID)
		_, err = s.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"words"}})
		wantCode(t, "Search", err, mnemo.EINVALID)
		_, err = s.Clear(ctx, scope)
		wantCode(t, "Clear", err, mnemo.EINVALID)
	}
	if ms, err := s.Write(ctx, scopeAX, nil); err != nil || len(ms) != 0 {
		t.Errorf("Write of no records = %v, %v; want nothing and no error", ms, err)
	}
}

// testScopeIsolation writes the same key in three scopes and checks that no
// call of one scope sees or touches another's.
func testScopeIsolation(t *testing.T, s mnemo.Store) {
	ctx := t.Context()
	const key = "/shared/key"
	scopes := []mnemo.Scope{scopeAX, scopeAY, scopeBX}
	mine := map[mnemo.Scope]string{}
	for i, sc := range scopes {
		m := newMemory(sc, i+1, key, "apple banana")
		m.SessionID = "session"
		write(t, s, sc, put(m))
		mine[sc] = m.ID
	}

	for _, sc := range scopes {
		if got := getByKey(t, s, sc, key); got.ID != mine[sc] {
			t.Errorf("%v: GetByKey = %s, want %s", sc, got.ID, mine[sc])
		}
		ms, total := list(t, s, sc, mnemo.ListQuery{Filter: mnemo.Filter{Now: t0}})
		if total != 1 || !slices.Equal(ids(ms), []string{mine[sc]}) {
			t.Errorf("%v: List = %v (total %d), want only %s", sc, ids(ms), total, mine[sc])
		}
		hits := search(t, s, sc, mnemo.TextQuery{Filter: mnemo.Filter{Now: t0}, Terms: []string{"apple"}, Prefixes: []string{"ban"}})
		if !slices.Equal(hitIDs(hits), []string{mine[sc]}) {
			t.Errorf("%v: Search = %v, want only %s", sc, hitIDs(hits), mine[sc])
		}
		if revs := history(t, s, sc, key); len(revs) != 1 || revs[0].MemoryID != mine[sc] {
			t.Errorf("%v: History = %+v, want one revision of %s", sc, revs, mine[sc])
		}
		if st := stats(t, s, sc); st.Memories != 1 || st.Keys != 1 || st.Sessions != 1 {
			t.Errorf("%v: Stats = %+v, want 1 memory, key and session", sc, st)
		}
		for _, other := range scopes {
			if other == sc {
				continue
			}
			_, err := s.Get(ctx, sc, mine[other])
			wantCode(t, "Get of another scope's memory", err, mnemo.ENOTFOUND)
		}
	}

	// Writes, touches and deletions in scope AX leave the others alone.
	others := []string{mine[scopeAY], mine[scopeBX]}
	if err := s.Touch(ctx, scopeAX, others, at(time.Hour)); err != nil {
		t.Fatalf("Touch: %v", err)
	}
	if n, err := s.Forget(ctx, scopeAX, others, nil); err != nil || n != 0 {
		t.Errorf("Forget of other scopes' ids = %d, %v; want 0", n, err)
	}
	stranger := newMemory(scopeBX, 9, "/stranger", "apple")
	_, err := s.Write(ctx, scopeAX, []mnemo.Record{put(stranger)})
	wantCode(t, "Write of a memory of another scope", err, mnemo.EINVALID)
	write(t, s, scopeAX, tombstone(scopeAX, 4, key, at(time.Hour)))
	if n, err := s.Clear(ctx, scopeAX); err != nil || n != 0 {
		t.Errorf("Clear(AX) after its tombstone = %d, %v; want 0", n, err)
	}
	for _, sc := range []mnemo.Scope{scopeAY, scopeBX} {
		m := getByKey(t, s, sc, key)
		if m.ID != mine[sc] || m.AccessCount != 0 || !m.AccessedAt.IsZero() {
			t.Errorf("%v: memory = %s accessed %d times, want %s untouched", sc, m.ID, m.AccessCount, mine[sc])
		}
		if _, err := s.GetByKey(ctx, sc, stranger.Key); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
			t.Errorf("%v: a rejected write is visible: %v", sc, err)
		}
		if revs := history(t, s, sc, key); len(revs) != 1 || revs[0].Memory == nil {
			t.Errorf("%v: History = %+v, want its one revision intact", sc, revs)
		}
		if st := stats(t, s, sc); st.Memories != 1 || st.Tombstones != 0 {
			t.Errorf("%v: Stats = %+v, want 1 memory, no tombstone", sc, st)
		}
	}
}

// testScoresIsolation checks that a scope's full-text scores are over its
// own statistics (REC-10): what another tenant stores, forgets or clears,
// however many of the same words, moves none of them.
func testScoresIsolation(t *testing.T, s mnemo.Store) {
	ctx := t.Context()
	var recs []mnemo.Record
	for i, text := range []string{"apple pie recipe", "banana bread and apple", "grape juice", "recipe for a quiet week"} {
		recs = append(recs, put(newMemory(scopeAY, i+1, "", text)))
	}
	write(t, s, scopeAY, recs...)
	queries := []mnemo.TextQuery{
		{Filter: mnemo.Filter{Now: t0}, Terms: []string{"apple", "recipe"}},
		{Filter: mnemo.Filter{Now: t0}, Terms: []string{"apple", "banana"}, MatchAll: true},
		{Filter: mnemo.Filter{Now: t0}, Terms: []string{"grape"}, Prefixes: []string{"rec"}},
	}
	scores := func() [][]mnemo.Hit {
		out := make([][]mnemo.Hit, len(queries))
		for i, q := range queries {
			out[i] = search(t, s, scopeAY, q)
		}
		return out
	}
	same := func(when string, got, want [][]mnemo.Hit) {
		t.Helper()
		for i := range want {
			if len(got[i]) != len(want[i]) || len(want[i]) == 0 {
				t.Fatalf("%s: query %d: %d hits, want %d (and some)", when, i, len(got[i]), len(want[i]))
			}
			for k := range want[i] {
				if g, w := got[i][k], want[i][k]; g.Memory.ID != w.Memory.ID || g.Lexical != w.Lexical {
					t.Errorf("%s: query %d, hit %d: %s scored %v, want %s %v", when, i, k, g.Memory.ID, g.Lexical, w.Memory.ID, w.Lexical)
				}
			}
		}
	}
	want := scores()

	recs = nil
	var forget []string
	for i := range 60 {
		m := newMemory(scopeBX, 100+i, "", "apple apple recipe banana bread grape "+strings.Repeat("filler words ", i%7))
		recs = append(recs, put(m))
		if i%3 == 0 {
			forget = append(forget, m.ID)
		}
	}
	write(t, s, scopeBX, recs...)
	same("another tenant wrote", scores(), want)
	if _, err := s.Forget(ctx, scopeBX, forget, nil); err != nil {
		t.Fatalf("Forget: %v", err)
	}
	same("another tenant forgot", scores(), want)
	if _, err := s.Clear(ctx, scopeBX); err != nil {
		t.Fatalf("Clear: %v", err)
	}
	same("another tenant cleared", scores(), want)
}

// testBatchAtomic checks that a batch with a bad record stores nothing.
func testBatchAtomic(t *testing.T, s mnemo.Store) {
	ctx := t.Context()
	existing := newMemory(scopeAX, 1, "", "existing words")
	write(t, s, scopeAX, put(existing))

	tests := []struct {
		name string
		bad  mnemo.Record
		code string
	}{
		{"duplicate id", put(newMemory(scopeAX, 1, "", "duplicate")), mnemo.ECONFLICT},
		{"tombstone without key", tombstone(scopeAX, 3, "", t0), mnemo.EINVALID},
		{"another scope", put(newMemory(scopeBX, 3, "/other/scope", "other")), mnemo.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			good := newMemory(scopeAX, 2, "/batch/good", "good words")
			_, err := s.Write(ctx, scopeAX, []mnemo.Record{put(good), tt.bad})
			wantCode(t, "Write", err, tt.code)
			if _, err := s.GetByKey(ctx, scopeAX, good.Key); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
				t.Errorf("the batch's good record was stored: GetByKey = %v", err)
			}
			if _, err := s.Get(ctx, scopeAX, good.ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
				t.Errorf("the batch's good record was stored: Get = %v", err)
			}
			if revs := history(t, s, scopeAX, good.Key); len(revs) != 0 {
				t.Errorf("History of the failed batch = %+v, want none", revs)
			}
			if m := get(t, s, scopeAX, existing.ID); m.Content != existing.Content {
				t.Errorf("existing memory changed to %q", m.Content)
			}
			if st := stats(t, s, scopeAX); st.Memories != 1 {
				t.Errorf("Stats.Memories = %d, want 1", st.Memories)
			}
		})
	}

	// A good batch returns its memories in input order.
	var recs []mnemo.Record
	for i, key := range []string{"/c", "/a", "/b"} {
		recs = append(recs, put(newMemory(scopeAX, 10+i, key, "batch")))
	}
	got := write(t, s, scopeAX, recs...)
	for i := range recs {
		if got[i].ID != recs[i].Memory.ID || got[i].Key != recs[i].Memory.Key {
			t.Errorf("Write result %d = %s %s, want %s %s", i, got[i].ID, got[i].Key, recs[i].Memory.ID, recs[i].Memory.Key)
		}
	}
}

// testLastWriteWins checks upserts by key: the later UpdatedAt wins, a tie
// goes to the later write, and a late older write loses but stays in
// history.
func testLastWriteWins(t *testing.T, s mnemo.Store) {
	const key = "/lww"
	version := func(n int, text string, updated time.Duration) mnemo.Record {
		m := newMemory(scopeAX, n, key, text)
		m.CreatedAt, m.UpdatedAt = at(updated), at(updated)
		m.Version = 0 // the store numbers the revisions
		return put(m)
	}
	first := write(t, s, scopeAX, version(1, "first", 0))[0]

	got := write(t, s, scopeAX, version(2, "second", time.Hour))[0]
	if got.Content != "second" || got.ID != first.ID || !got.CreatedAt.Equal(first.CreatedAt) || !got.UpdatedAt.Equal(at(time.Hour)) {
		t.Errorf("newer write = %s %q created %v, want %s %q created %v (id and creation kept)",
			got.ID, got.Content, got.CreatedAt, first.ID, "second", first.CreatedAt)
	}

	// A write that loses returns the revision that stands, with its time:
	// the Service tells the caller from it that the write was not applied.
	got = write(t, s, scopeAX, version(3, "stale", 30*time.Minute))[0]
	if got.Content != "second" || got.ID != first.ID || !got.UpdatedAt.Equal(at(time.Hour)) {
		t.Errorf("late older write returned %s %q updated %v, want the stored %s %q updated %v",
			got.ID, got.Content, got.UpdatedAt, first.ID, "second", at(time.Hour))
	}
	if m := getByKey(t, s, scopeAX, key); m.Content != "second" || !m.UpdatedAt.Equal(at(time.Hour)) {
		t.Errorf("after a late older write: %q updated %v, want %q", m.Content, m.UpdatedAt, "second")
	}

	if got = write(t, s, scopeAX, version(4, "tie", time.Hour))[0]; got.Content != "tie" {
		t.Errorf("write with equal UpdatedAt = %q, want the later write %q", got.Content, "tie")
	}

	// Within a batch, the later of two equal writes wins, and both records
	// return the memory as the batch left it.
	got2 := write(t, s, scopeAX, version(5, "batch one", 2*time.Hour), version(6, "batch two", 2*time.Hour))
	for i, m := range got2 {
		if m.Content != "batch two" || m.ID != first.ID {
			t.Errorf("batch result %d = %s %q, want %s %q", i, m.ID, m.Content, first.ID, "batch two")
		}
	}
	if m := getByKey(t, s, scopeAX, key); m.Content != "batch two" {
		t.Errorf("after batch: %q, want %q", m.Content, "batch two")
	}
	// A memory's version counts the revisions applied to it: first,
	// second, tie, batch one, batch two (the stale one lost).
	if first.Version != 1 || got2[1].Version != 5 {
		t.Errorf("versions: first %d, after five applied revisions %d; want 1 and 5", first.Version, got2[1].Version)
	}
	if m := getByKey(t, s, scopeAX, key); m.Version != 5 {
		t.Errorf("Get after five applied revisions: version %d, want 5", m.Version)
	}
	if ms, total := list(t, s, scopeAX, mnemo.ListQuery{Filter: mnemo.Filter{Now: t0}}); total != 1 || len(ms) != 1 {
		t.Errorf("List = %d memories (total %d), want the key's one", len(ms), total)
	}
	// Search sees the current content only.
	f := mnemo.Filter{Now: t0}
	if hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"first", "second", "tie", "one"}}); len(hits) != 0 {
		t.Errorf("Search of replaced words = %v, want nothing", hitIDs(hits))
	}
	if hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"two"}}); !slices.Equal(hitIDs(hits), []string{first.ID}) {
		t.Errorf("Search of current words = %v, want %s", hitIDs(hits), first.ID)
	}

	// Filters see the current tags only.
	tagged := func(n int, tag string, updated time.Duration) mnemo.Record {
		r := version(n, "tagged", updated)
		r.Memory.Key, r.Memory.Tags = "/tagged", []string{tag}
		return r
	}
	write(t, s, scopeAX, tagged(7, "old", 0))
	write(t, s, scopeAX, tagged(8, "new", time.Hour))
	for tag, want := range map[string]int{"old": 0, "new": 1} {
		if ms, _ := list(t, s, scopeAX, mnemo.ListQuery{Filter: mnemo.Filter{Now: t0, Tags: []string{tag}}}); len(ms) != want {
			t.Errorf("List with tag %q after the tags changed = %v, want %d", tag, ids(ms), want)
		}
	}

	revs := history(t, s, scopeAX, key)
	want := []struct {
		content string
		applied bool
	}{{"first", true}, {"second", true}, {"stale", false}, {"tie", true}, {"batch one", true}, {"batch two", true}}
	if len(revs) != len(want) {
		t.Fatalf("History has %d revisions, want %d: %+v", len(revs), len(want), revs)
	}
	for i, w := range want {
		r := revs[i]
		if r.Op != mnemo.OpPut || r.Applied != w.applied || r.Memory == nil || r.Memory.Content != w.content || r.Key != key {
			t.Errorf("revision %d = %s applied=%v %+v, want put applied=%v %q", i, r.Op, r.Applied, r.Memory, w.applied, w.content)
		}
	}

	// A copy (an import, a migration) keeps the version it carries.
	copied := newMemory(scopeAX, 20, "/copied", "copied words")
	copied.Version = 7
	write(t, s, scopeAX, put(newMemory(scopeAX, 21, "/copied", "first words")))
	if got := write(t, s, scopeAX, put(copied))[0]; got.Version != 7 {
		t.Errorf("a copy of version 7 upserted as version %d", got.Version)
	}
}

// testTombstone checks that a tombstone hides a key from every read, stays
// in history, beats older writes, and that a newer put revives the key.
func testTombstone(t *testing.T, s mnemo.Store) {
	ctx := t.Context()
	const key = "/tomb"
	alpha := newMemory(scopeAX, 1, key, "alpha words")
	write(t, s, scopeAX, put(alpha))

	tomb := tombstone(scopeAX, 2, key, at(time.Hour))
	tomb.Memory.Content = "content a tombstone drops"
	got := write(t, s, scopeAX, tomb)[0]
	if got.ID != alpha.ID || got.Key != key || got.Content != "" {
		t.Errorf("tombstone returned %s %s %q, want the tombstoned %s %s without content", got.ID, got.Key, got.Content, alpha.ID, key)
	}
	hidden := func(when string) {
		t.Helper()
		if _, err := s.Get(ctx, scopeAX, alpha.ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
			t.Errorf("%s: Get = %v, want not found", when, err)
		}
		if _, err := s.GetByKey(ctx, scopeAX, key); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
			t.Errorf("%s: GetByKey = %v, want not found", when, err)
		}
		f := mnemo.Filter{IncludeArchived: true, IncludeExpired: true}
		if ms, total := list(t, s, scopeAX, mnemo.ListQuery{Filter: f}); total != 0 || len(ms) != 0 {
			t.Errorf("%s: List = %v, want nothing", when, ids(ms))
		}
		if hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"alpha", "late"}}); len(hits) != 0 {
			t.Errorf("%s: Search = %v, want nothing", when, hitIDs(hits))
		}
	}
	hidden("after tombstone")
	if st := stats(t, s, scopeAX); st.Memories != 0 || st.Keys != 0 || st.Tombstones != 1 {
		t.Errorf("Stats = %+v, want no memory and 1 tombstone", st)
	}

	late := newMemory(scopeAX, 3, key, "late words")
	late.UpdatedAt = at(30 * time.Minute)
	if got := write(t, s, scopeAX, put(late))[0]; got.Content != "" || got.ID != alpha.ID || !got.UpdatedAt.Equal(at(time.Hour)) {
		t.Errorf("write older than the tombstone returned %s %q updated %v, want the tombstone of %v", got.ID, got.Content, got.UpdatedAt, at(time.Hour))
	}
	hidden("after a late older write")

	// A tombstone for a key never written still beats older writes.
	write(t, s, scopeAX, tombstone(scopeAX, 4, "/never", at(time.Hour)))
	write(t, s, scopeAX, put(newMemory(scopeAX, 5, "/never", "never words")))
	if _, err := s.GetByKey(ctx, scopeAX, "/never"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("older write after a tombstone of a new key: GetByKey = %v, want not found", err)
	}
	if st := stats(t, s, scopeAX); st.Tombstones != 2 || st.Memories != 0 {
		t.Errorf("Stats = %+v, want 2 tombstones, no memory", st)
	}

	// A newer put revives the key as a new memory.
	beta := newMemory(scopeAX, 6, key, "beta words")
	beta.CreatedAt, beta.UpdatedAt = at(2*time.Hour), at(2*time.Hour)
	if got := write(t, s, scopeAX, put(beta))[0]; got.ID != beta.ID || got.Content != "beta words" || !got.CreatedAt.Equal(beta.CreatedAt) {
		t.Errorf("revive returned %s %q created %v, want %s %q created %v", got.ID, got.Content, got.CreatedAt, beta.ID, beta.Content, beta.CreatedAt)
	}
	if m := getByKey(t, s, scopeAX, key); m.ID != beta.ID {
		t.Errorf("revived key holds %s, want %s", m.ID, beta.ID)
	}
	if hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: mnemo.Filter{Now: t0}, Terms: []string{"beta"}}); !slices.Equal(hitIDs(hits), []string{beta.ID}) {
		t.Errorf("Search after revive = %v, want %s", hitIDs(hits), beta.ID)
	}
	if hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: mnemo.Filter{Now: t0}, Terms: []string{"alpha", "late", "drops"}}); len(hits) != 0 {
		t.Errorf("Search of words before the revive = %v, want nothing", hitIDs(hits))
	}
	if st := stats(t, s, scopeAX); st.Tombstones != 1 || st.Memories != 1 || st.Keys != 1 {
		t.Errorf("Stats = %+v, want 1 memory, 1 key, 1 tombstone", st)
	}

	revs := history(t, s, scopeAX, key)
	wantOps := []struct {
		op      string
		applied bool
	}{{mnemo.OpPut, true}, {mnemo.OpTombstone, true}, {mnemo.OpPut, false}, {mnemo.OpPut, true}}
	if len(revs) != len(wantOps) {
		t.Fatalf("History = %+v, want %d revisions", revs, len(wantOps))
	}
	for i, w := range wantOps {
		if revs[i].Op != w.op || revs[i].Applied != w.applied {
			t.Errorf("revision %d = %s applied=%v, want %s applied=%v", i, revs[i].Op, revs[i].Applied, w.op, w.applied)
		}
	}
}

// testForget checks deletion by id and by key, and what history keeps.
func testForget(t *testing.T, s mnemo.Store) {
	ctx := t.Context()
	a := newMemory(scopeAX, 1, "/a", "forget alpha")
	b := newMemory(scopeAX, 2, "/b", "forget beta")
	c := newMemory(scopeAX, 3, "", "forget gamma")
	a2 := a
	a2.UpdatedAt, a2.Content = at(time.Hour), "forget alpha again"
	write(t, s, scopeAX, put(a), put(b), put(c))
	write(t, s, scopeAX, put(a2))
	write(t, s, scopeAX, tombstone(scopeAX, 4, "/t", at(time.Hour)))
	other := newMemory(scopeAY, 5, "/a", "forget alpha")
	write(t, s, scopeAY, put(other))

	n, err := s.Forget(ctx, scopeAX, []string{c.ID, id(99)}, []string{"/a", "/unknown"})
	if err != nil || n != 2 {
		t.Fatalf("Forget = %d, %v; want 2", n, err)
	}
	for _, gone := range []string{a.ID, c.ID} {
		if _, err := s.Get(ctx, scopeAX, gone); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
			t.Errorf("Get(%s) after Forget = %v, want not found", gone, err)
		}
	}
	if _, err := s.GetByKey(ctx, scopeAX, "/a"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Errorf("GetByKey(/a) after Forget = %v, want not found", err)
	}
	get(t, s, scopeAX, b.ID)
	getByKey(t, s, scopeAY, "/a")
	if hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: mnemo.Filter{Now: t0}, Terms: []string{"forget"}}); !slices.Equal(hitIDs(hits), []string{b.ID}) {
		t.Errorf("Search after Forget = %v, want only %s", hitIDs(hits), b.ID)
	}

	revs := history(t, s, scopeAX, "/a")
	if len(revs) != 3 {
		t.Fatalf("History(/a) = %+v, want put, put, forget", revs)
	}
	for _, r := range revs {
		if r.Memory != nil {
			t.Errorf("revision %d of a forgotten memory still has its memory: %+v", r.Seq, r.Memory)
		}
	}
	if last := revs[2]; last.Op != mnemo.OpForget || last.MemoryID != a.ID || !last.Applied {
		t.Errorf("last revision = %+v, want an applied forget of %s", last, a.ID)
	}
	if revs := history(t, s, scopeAY, "/a"); len(revs) != 1 || revs[0].Memory == nil {
		t.Errorf("History of the other scope's /a = %+v, want its put intact", revs)
	}

	// Forgetting a tombstoned key removes the tombstone, and counts nothing.
	if n, err := s.Forget(ctx, scopeAX, nil, []string{"/t"}); err != nil || n != 0 {
		t.Errorf("Forget of a tombstone = %d, %v; want 0", n, err)
	}
	if st := stats(t, s, scopeAX); st.Tombstones != 0 || st.Memories != 1 {
		t.Errorf("Stats = %+v, want 1 memory and no tombstone", st)
	}
	if n, err := s.Forget(ctx, scopeAX, []string{a.ID, c.ID}, nil); err != nil || n != 0 {
		t.Errorf("second Forget = %d, %v; want 0", n, err)
	}
	if n, err := s.Forget(ctx, scopeAX, nil, nil); err != nil || n != 0 {
		t.Errorf("Forget of nothing = %d, %v; want 0", n, err)
	}

	// Nothing of a forgotten memory, its tags included, rubs off on the
	// memories written after it.
	tagged := newMemory(scopeAX, 6, "", "tagged")
	tagged.Tags = []string{"secret"}
	write(t, s, scopeAX, put(tagged))
	if n, err := s.Forget(ctx, scopeAX, []string{tagged.ID}, nil); err != nil || n != 1 {
		t.Fatalf("Forget = %d, %v; want 1", n, err)
	}
	write(t, s, scopeAX, put(newMemory(scopeAX, 7, "", "after")))
	if ms, _ := list(t, s, scopeAX, mnemo.ListQuery{Filter: mnemo.Filter{Now: t0, Tags: []string{"secret"}}}); len(ms) != 0 {
		t.Errorf("List with a forgotten memory's tag = %v, want nothing", ids(ms))
	}
}

// testClear checks that Clear empties one scope and only that one.
func testClear(t *testing.T, s mnemo.Store) {
	ctx := t.Context()
	write(t, s, scopeAX,
		put(newMemory(scopeAX, 1, "/one", "clear words")),
		put(newMemory(scopeAX, 2, "/two", "clear words")),
		put(newMemory(scopeAX, 3, "", "clear words")),
		tombstone(scopeAX, 4, "/gone", t0))
	write(t, s, scopeBX, put(newMemory(scopeBX, 5, "/one", "clear words")))

	if n, err := s.Clear(ctx, scopeAX); err != nil || n != 3 {
		t.Fatalf("Clear = %d, %v; want 3", n, err)
	}
	if st := stats(t, s, scopeAX); st != (mnemo.Stats{}) {
		t.Errorf("Stats after Clear = %+v, want zero", st)
	}
	f := mnemo.Filter{IncludeArchived: true, IncludeExpired: true}
	if ms, total := list(t, s, scopeAX, mnemo.ListQuery{Filter: f}); total != 0 || len(ms) != 0 {
		t.Errorf("List after Clear = %v", ids(ms))
	}
	if hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"clear"}}); len(hits) != 0 {
		t.Errorf("Search after Clear = %v", hitIDs(hits))
	}
	for _, key := range []string{"/one", "/gone"} {
		revs := history(t, s, scopeAX, key)
		if len(revs) != 2 || revs[1].Op != mnemo.OpClear || revs[0].Memory != nil || revs[1].Memory != nil {
			t.Errorf("History(%s) after Clear = %+v, want its write and a clear, without memories", key, revs)
		}
	}
	getByKey(t, s, scopeBX, "/one")
	if hits := search(t, s, scopeBX, mnemo.TextQuery{Filter: f, Terms: []string{"clear"}}); len(hits) != 1 {
		t.Errorf("Search of the other scope after Clear = %v, want its memory", hitIDs(hits))
	}
	if n, err := s.Clear(ctx, scopeAX); err != nil || n != 0 {
		t.Errorf("second Clear = %d, %v; want 0", n, err)
	}
}

// testFilters checks each Filter field, on List and on Search alike.
func testFilters(t *testing.T, s mnemo.Store) {
	mk := func(n int, key, typ, cat, session string, conf float64, created time.Duration, tags ...string) mnemo.Memory {
		m := newMemory(scopeAX, n, key, "common words")
		m.Type, m.Category, m.SessionID, m.Confidence, m.Tags = typ, cat, session, conf, tags
		m.CreatedAt, m.UpdatedAt = at(created), at(created)
		return m
	}
	m1 := mk(1, "/notes/a", "fact", "work", "s1", 0.9, 0, "red", "blue")
	m2 := mk(2, "/notes/b", "event", "home", "s2", 0.5, time.Hour, "red")
	m3 := mk(3, "/other/c", "fact", "home", "s1", 0.2, 2*time.Hour, "blue", "green")
	m4 := mk(4, "", "preference", "work", "", 0.7, 3*time.Hour)
	m5 := mk(5, "/notes/archived", "knowledge", "", "", 0.1, 4*time.Hour)
	m5.Archived = true
	m2.Pinned, m4.Pinned = true, true
	m3.SecurityLevel, m4.SecurityLevel = mnemo.SecurityConfidential, mnemo.SecurityRestricted
	m6 := mk(6, "/notes/expiring", "knowledge", "", "", 0.1, 5*time.Hour)
	expires := at(10 * time.Hour)
	m6.ExpiresAt = &expires
	m7 := mk(7, "", "knowledge", "", "", 0.1, 6*time.Hour)
	m7.Data = json.RawMessage(`{"value": 1, "expired_at": "` + expires.Format(time.RFC3339Nano) + `"}`)
	var recs []mnemo.Record
	for _, m := range []mnemo.Memory{m1, m2, m3, m4, m5, m6, m7} {
		recs = append(recs, put(m))
	}
	write(t, s, scopeAX, recs...)

	before, after := at(9*time.Hour), expires
	ptr := func(d time.Duration) *time.Time { t := at(d); return &t }
	tests := []struct {
		name   string
		filter mnemo.Filter
		want   []mnemo.Memory
	}{
		{"none", mnemo.Filter{Now: before}, []mnemo.Memory{m1, m2, m3, m4, m6, m7}},
		{"any tag", mnemo.Filter{Now: before, Tags: []string{"red", "green"}}, []mnemo.Memory{m1, m2, m3}},
		{"all tags", mnemo.Filter{Now: before, Tags: []string{"red", "blue"}, AllTags: true}, []mnemo.Memory{m1}},
		{"all of one tag", mnemo.Filter{Now: before, Tags: []string{"blue"}, AllTags: true}, []mnemo.Memory{m1, m3}},
		{"types", mnemo.Filter{Now: before, Types: []string{"fact", "preference"}}, []mnemo.Memory{m1, m3, m4}},
		{"categories", mnemo.Filter{Now: before, Categories: []string{"home"}}, []mnemo.Memory{m2, m3}},
		{"session", mnemo.Filter{Now: before, SessionID: "s1"}, []mnemo.Memory{m1, m3}},
		{"key prefix", mnemo.Filter{Now: before, KeyPrefix: "/notes/"}, []mnemo.Memory{m1, m2, m6}},
		{"key prefix of a key", mnemo.Filter{Now: before, KeyPrefix: "/notes/a"}, []mnemo.Memory{m1}},
		{"created after, inclusive", mnemo.Filter{Now: before, CreatedAfter: ptr(2 * time.Hour)}, []mnemo.Memory{m3, m4, m6, m7}},
		{"created before, exclusive", mnemo.Filter{Now: before, CreatedBefore: ptr(2 * time.Hour)}, []mnemo.Memory{m1, m2}},
		{"created range", mnemo.Filter{Now: before, CreatedAfter: ptr(time.Hour), CreatedBefore: ptr(3 * time.Hour)}, []mnemo.Memory{m2, m3}},
		{"min confidence", mnemo.Filter{Now: before, MinConfidence: 0.7}, []mnemo.Memory{m1, m4}},
		{"include archived", mnemo.Filter{Now: before, IncludeArchived: true}, []mnemo.Memory{m1, m2, m3, m4, m5, m6, m7}},
		{"archived only", mnemo.Filter{Now: before, ArchivedOnly: true}, []mnemo.Memory{m5}},
		{"pinned", mnemo.Filter{Now: before, Pinned: true}, []mnemo.Memory{m2, m4}},
		{"unpinned", mnemo.Filter{Now: before, Unpinned: true}, []mnemo.Memory{m1, m3, m6, m7}},
		{"security levels", mnemo.Filter{Now: before, SecurityLevels: []string{mnemo.SecurityConfidential, mnemo.SecurityRestricted}}, []mnemo.Memory{m3, m4}},
		{"expired at now", mnemo.Filter{Now: after}, []mnemo.Memory{m1, m2, m3, m4}},
		{"include expired", mnemo.Filter{Now: after, IncludeExpired: true}, []mnemo.Memory{m1, m2, m3, m4, m6, m7}},
		{"store clock", mnemo.Filter{}, []mnemo.Memory{m1, m2, m3, m4}},
		{"combined", mnemo.Filter{Now: before, Types: []string{"fact"}, Tags: []string{"blue"}, SessionID: "s1", MinConfidence: 0.5}, []mnemo.Memory{m1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := ids(tt.want)
			ms, total := list(t, s, scopeAX, mnemo.ListQuery{Filter: tt.filter})
			if !sameSet(ids(ms), want) || total != len(want) {
				t.Errorf("List = %v (total %d), want %v", ids(ms), total, want)
			}
			hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: tt.filter, Terms: []string{"common"}})
			if !sameSet(hitIDs(hits), want) {
				t.Errorf("Search = %v, want %v", hitIDs(hits), want)
			}
		})
	}

	// Get and GetByKey see archived and expired memories.
	for _, m := range []mnemo.Memory{m5, m6, m7} {
		get(t, s, scopeAX, m.ID)
	}
	getByKey(t, s, scopeAX, m6.Key)
}

// testListOrder checks the orders, paging and the total.
func testListOrder(t *testing.T, s mnemo.Store) {
	ctx := t.Context()
	// Written out of creation order; m5 and m6 are created at the same
	// instant, m6 written after m5.
	var recs []mnemo.Record
	for _, c := range []struct {
		n       int
		key     string
		created time.Duration
	}{{3, "/k/c", 2}, {1, "/k/e", 0}, {4, "/k/a", 3}, {2, "/k/d", 1}, {5, "/k/b", 4}, {6, "/k/f", 4}} {
		m := newMemory(scopeAX, c.n, c.key, "order")
		m.CreatedAt, m.UpdatedAt = at(c.created*time.Minute), at(c.created*time.Minute)
		if c.n == 1 { // happened after the others were written
			m.Occurred = &mnemo.Occurred{Start: at(10 * time.Minute), End: at(11 * time.Minute), Source: mnemo.OccurredWriter}
		}
		recs = append(recs, put(m))
	}
	write(t, s, scopeAX, recs[:3]...)
	write(t, s, scopeAX, recs[3:]...)

	f := mnemo.Filter{Now: t0}
	tests := []struct {
		name          string
		order         string
		limit, offset int
		want          []string
	}{
		{"default", "", 0, 0, []string{id(6), id(5), id(4), id(3), id(2), id(1)}},
		{"newest", mnemo.OrderNewest, 0, 0, []string{id(6), id(5), id(4), id(3), id(2), id(1)}},
		{"oldest", mnemo.OrderOldest, 0, 0, []string{id(1), id(2), id(3), id(4), id(5), id(6)}},
		{"key", mnemo.OrderKey, 0, 0, []string{id(4), id(5), id(3), id(2), id(1), id(6)}},
		{"occurred", mnemo.OrderOccurred, 0, 0, []string{id(1), id(6), id(5), id(4), id(3), id(2)}},
		{"page", mnemo.OrderNewest, 2, 1, []string{id(5), id(4)}},
		{"last page", mnemo.OrderOldest, 4, 4, []string{id(5), id(6)}},
		{"past the end", mnemo.OrderOldest, 2, 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, total := list(t, s, scopeAX, mnemo.ListQuery{Filter: f, Order: tt.order, Limit: tt.limit, Offset: tt.offset})
			if !slices.Equal(ids(ms), tt.want) || total != 6 {
				t.Errorf("List = %v (total %d), want %v (total 6)", ids(ms), total, tt.want)
			}
		})
	}
	_, _, err := s.List(ctx, scopeAX, mnemo.ListQuery{Order: "sideways"})
	wantCode(t, "List with an unknown order", err, mnemo.EINVALID)
}

// testSearch checks the basics of lexical ranking.
func testSearch(t *testing.T, s mnemo.Store) {
	ctx := t.Context()
	m1 := newMemory(scopeAX, 1, "", "apple banana cherry")
	m2 := newMemory(scopeAX, 2, "", "apple pie recipe")
	m3 := newMemory(scopeAX, 3, "", "banana bread recipe")
	m4 := newMemory(scopeAX, 4, "", "durian smell strong")
	m5 := newMemory(scopeAX, 5, "", "kiwi lime tart")
	m6 := newMemory(scopeAX, 6, "", "lime mango tart")
	m7 := newMemory(scopeAX, 7, "", "nothing relevant here")
	m7.Tags = []string{"zucchini"}
	// m6 has kiwi twice, but in its context, which weighs less than text;
	// it is written first so that no tie-break favours m5.
	recs := []mnemo.Record{put(m6), put(m1), put(m2), put(m3), put(m4), put(m5), put(m7)}
	recs[0].Index.Context = "kiwi kiwi"
	write(t, s, scopeAX, recs...)
	f := mnemo.Filter{Now: t0}

	hits := search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"apple", "banana"}})
	if got := hitIDs(hits); len(got) != 3 || got[0] != m1.ID || !sameSet(got[1:], []string{m2.ID, m3.ID}) {
		t.Errorf("apple OR banana = %v, want %s first, then %s and %s", got, m1.ID, m2.ID, m3.ID)
	}
	for i, h := range hits {
		if h.Lexical <= 0 {
			t.Errorf("hit %d: Lexical = %v, want > 0", i, h.Lexical)
		}
		if i > 0 && h.Lexical > hits[i-1].Lexical {
			t.Errorf("hit %d: Lexical %v above hit %d's %v, want best first", i, h.Lexical, i-1, hits[i-1].Lexical)
		}
	}

	if got := hitIDs(search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"kiwi"}})); !slices.Equal(got, []string{m5.ID, m6.ID}) {
		t.Errorf("kiwi = %v, want %s (text) above %s (context)", got, m5.ID, m6.ID)
	}
	if got := hitIDs(search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"zucchini"}})); !slices.Equal(got, []string{m7.ID}) {
		t.Errorf("zucchini (a tag, in meta) = %v, want %s", got, m7.ID)
	}
	if got := hitIDs(search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"durian", "absent"}})); !slices.Equal(got, []string{m4.ID}) {
		t.Errorf("durian OR absent = %v, want %s", got, m4.ID)
	}
	if got := hitIDs(search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Prefixes: []string{"ban"}})); !sameSet(got, []string{m1.ID, m3.ID}) {
		t.Errorf("ban* = %v, want %s and %s", got, m1.ID, m3.ID)
	}
	if got := hitIDs(search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"durian"}, Prefixes: []string{"reci"}})); !sameSet(got, []string{m2.ID, m3.ID, m4.ID}) {
		t.Errorf("durian OR reci* = %v, want %s, %s and %s", got, m2.ID, m3.ID, m4.ID)
	}
	if got := hitIDs(search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"apple", "banana"}, Limit: 1})); !slices.Equal(got, []string{m1.ID}) {
		t.Errorf("apple OR banana, limit 1 = %v, want %s", got, m1.ID)
	}
	if got := hitIDs(search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"appl"}})); len(got) != 0 {
		t.Errorf("a term matches whole words only: appl = %v, want nothing", got)
	}
	// The filter applies before the limit: memories that outrank the one
	// wanted but are filtered out do not take its place.
	var hidden []mnemo.Record
	for i := range 10 {
		m := newMemory(scopeAX, 20+i, "", "quince quince quince")
		m.Archived = true
		hidden = append(hidden, put(m))
	}
	live := newMemory(scopeAX, 30, "", "quince with many other words around it")
	write(t, s, scopeAX, append(hidden, put(live))...)
	if got := hitIDs(search(t, s, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{"quince"}, Limit: 1})); !slices.Equal(got, []string{live.ID}) {
		t.Errorf("quince, limit 1, archived outranking = %v, want %s", got, live.ID)
	}

	res, err := s.Search(ctx, scopeAX, mnemo.TextQuery{Filter: f})
	if err != nil || len(res.Hits) != 0 {
		t.Errorf("empty query = %v, %v; want no hits and no error", hitIDs(res.Hits), err)
	}
	// Terms are words, never query syntax.
	for _, term := range []string{`"`, `and`, `or`, `not`, `near`, `*`, `text`, `apple"`} {
		if _, err := s.Search(ctx, scopeAX, mnemo.TextQuery{Filter: f, Terms: []string{term}, Prefixes: []string{term}}); err != nil {
			t.Errorf("Search(%q): %v", term, err)
		}
	}
}

// testTouch checks access recording, and that an upsert keeps it.
func testTouch(t *testing.T, s mnemo.Store) {
	ctx := t.Context()
	m := newMemory(scopeAX, 1, "/touched", "touch words")
	write(t, s, scopeAX, put(m), put(newMemory(scopeAX, 2, "", "untouched")))

	if err := s.Touch(ctx, scopeAX, []string{m.ID, id(99)}, at(time.Hour)); err != nil {
		t.Fatalf("Touch: %v", err)
	}
	if err := s.Touch(ctx, scopeAX, []string{m.ID}, at(2*time.Hour)); err != nil {
		t.Fatalf("Touch: %v", err)
	}
	got := get(t, s, scopeAX, m.ID)
	if got.AccessCount != 2 || !got.AccessedAt.Equal(at(2*time.Hour)) || !got.UpdatedAt.Equal(m.UpdatedAt) {
		t.Errorf("after two touches: count %d, accessed %v, updated %v; want 2, %v, %v",
			got.AccessCount, got.AccessedAt, got.UpdatedAt, at(2*time.Hour), m.UpdatedAt)
	}
	if other := get(t, s, scopeAX, id(2)); other.AccessCount != 0 || !other.AccessedAt.IsZero() {
		t.Errorf("untouched memory: count %d, accessed %v", other.AccessCount, other.AccessedAt)
	}

	// An upsert replaces the memory but keeps its accesses.
	next := newMemory(scopeAX, 3, m.Key, "touch words again")
	next.UpdatedAt = at(3 * time.Hour)
	got = write(t, s, scopeAX, put(next))[0]
	if got.ID != m.ID || got.AccessCount != 2 || !got.AccessedAt.Equal(at(2*time.Hour)) || got.Content != next.Content {
		t.Errorf("after upsert: %s count %d accessed %v %q; want %s 2 %v %q",
			got.ID, got.AccessCount, got.AccessedAt, got.Content, m.ID, at(2*time.Hour), next.Content)
	}
}

// testStats checks the counts and bounds of a scope.
func testStats(t *testing.T, s mnemo.Store) {
	mk := func(n int, key, session string, created time.Duration) mnemo.Memory {
		m := newMemory(scopeAX, n, key, "stats")
		m.SessionID = session
		m.CreatedAt, m.UpdatedAt = at(created), at(created)
		return m
	}
	archived := mk(4, "", "", 3*time.Hour)
	archived.Archived = true
	expired := mk(5, "", "", -time.Hour)
	past := at(-time.Minute)
	expired.ExpiresAt = &past
	write(t, s, scopeAX,
		put(mk(1, "/k1", "s1", 0)),
		put(mk(2, "/k2", "s1", time.Hour)),
		put(mk(3, "", "s2", 2*time.Hour)),
		put(archived),
		put(expired),
		tombstone(scopeAX, 6, "/k3", at(-2*time.Hour)), // tombstones are not memories:
		tombstone(scopeAX, 7, "/k4", at(5*time.Hour)))  // they bound nothing

	st := stats(t, s, scopeAX)
	oldest, newest := at(-time.Hour), at(3*time.Hour)
	want := mnemo.Stats{Memories: 5, Archived: 1, Keys: 2, Tombstones: 2, Sessions: 2, Oldest: &oldest, Newest: &newest}
	if st.Memories != want.Memories || st.Archived != want.Archived || st.Keys != want.Keys ||
		st.Tombstones != want.Tombstones || st.Sessions != want.Sessions || st.Degraded {
		t.Errorf("Stats = %+v, want %+v", st, want)
	}
	if st.Oldest == nil || !st.Oldest.Equal(oldest) || st.Newest == nil || !st.Newest.Equal(newest) {
		t.Errorf("Stats oldest, newest = %v, %v; want %v, %v", st.Oldest, st.Newest, oldest, newest)
	}
	if st := stats(t, s, scopeBX); st != (mnemo.Stats{}) {
		t.Errorf("Stats of an empty scope = %+v, want zero", st)
	}
}
