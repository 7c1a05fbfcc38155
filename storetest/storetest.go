// Package storetest is the conformance suite of mnemo.Store: every backend's
// tests call Run, so that all backends keep one contract.
//
// Beyond the doc comments of mnemo.Store, the suite pins these rules:
//
//   - Every call names a scope; an empty tenant or agent is EINVALID. A
//     record whose memory names another scope is EINVALID; empty TenantID
//     and AgentID are taken from the scope.
//   - A record without a key inserts its memory; an id already stored is
//     ECONFLICT. A tombstone without a key is EINVALID. Either fails the
//     whole batch.
//   - An upsert keeps the stored memory's id, created_at, accessed_at and
//     access_count. A put on a tombstoned key stores the record as a new
//     memory, with its own id.
//   - Write returns, for each record, the memory of its key or id as stored
//     after the batch: a record that lost returns the winner (for a key that
//     is tombstoned, the tombstone, with empty content).
//   - Forget and Clear delete tombstones too and count live memories only.
//     History keeps a revision for every write, won or lost, and one for each
//     deletion (op forget or clear); after a deletion no revision of the key
//     carries a memory.
//   - Times come back in UTC with nanosecond precision; an expiry is reached
//     when Filter.Now is at or after it. A zero Filter.Now is the store's
//     clock, which the suite expects to be the real time.
//   - Placement of memories without a key in OrderKey is unspecified.
package storetest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// Run runs the suite. open must return a new, empty store each time it is
// called; Run closes it when the test ends. Subtests run in parallel.
func Run(t *testing.T, open func(t *testing.T) mnemo.Store) {
	run(t, open, cases)
}

// RunVectors runs the cases that index or search vectors, for a variant of
// a store that Run already checks and that differs only in how it searches
// vectors (an index method, a scan strategy).
func RunVectors(t *testing.T, open func(t *testing.T) mnemo.Store) {
	var vectors []testCase
	for _, tc := range cases {
		switch tc.name {
		case "VectorSpace", "VectorQueue", "VectorSearch", "EventVectors", "IndexContextEmbed":
			vectors = append(vectors, tc)
		}
	}
	run(t, open, vectors)
}

type testCase struct {
	name string
	fn   func(t *testing.T, s mnemo.Store)
}

var cases = []testCase{
	{"RoundTrip", testRoundTrip},
	{"ScopeRequired", testScopeRequired},
	{"ScopeIsolation", testScopeIsolation},
	{"ScoresIsolation", testScoresIsolation},
	{"BatchAtomic", testBatchAtomic},
	{"LastWriteWins", testLastWriteWins},
	{"Tombstone", testTombstone},
	{"Forget", testForget},
	{"Clear", testClear},
	{"Filters", testFilters},
	{"ListOrder", testListOrder},
	{"Occurred", testOccurred},
	{"ValidTo", testValidTo},
	{"TimeRange", testTimeRange},
	{"Recurring", testRecurring},
	{"DeletedAfter", testDeletedAfter},
	{"Search", testSearch},
	{"Touch", testTouch},
	{"Stats", testStats},
	{"VectorSpace", testVectorSpace},
	{"VectorQueue", testVectorQueue},
	{"VectorSearch", testVectorSearch},
	{"State", testState},
	{"CountTypes", testCountTypes},
	{"Concurrent", testConcurrent},
	{"Lifecycle", testLifecycle},
	{"Events", testEvents},
	{"EventRelations", testEventRelations},
	{"EventsCold", testEventsCold},
	{"EventLevels", testEventLevels},
	{"PruneLinks", testPruneLinks},
	{"Summaries", testSummaries},
	{"Capabilities", testCapabilities},
	{"EventVectors", testEventVectors},
	{"Agents", testAgents},
	{"KeyTree", testKeyTree},
	{"Replace", testReplace},
	{"IndexContext", testIndexContext},
	{"IndexContextEmbed", testIndexContextEmbed},
}

func run(t *testing.T, open func(t *testing.T) mnemo.Store, tests []testCase) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			})
			tt.fn(t, s)
		})
	}
}

var (
	scopeAX = mnemo.Scope{TenantID: "tenant-a", AgentID: "agent-x"}
	scopeAY = mnemo.Scope{TenantID: "tenant-a", AgentID: "agent-y"}
	scopeBX = mnemo.Scope{TenantID: "tenant-b", AgentID: "agent-x"}
)

// t0 is the time the suite's memories are created at. Its nanoseconds test
// that a store keeps them.
var t0 = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)

// at returns t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// id returns the n-th memory id of the suite, a UUIDv7 in form.
func id(n int) string { return fmt.Sprintf("01959581-0000-7000-8000-%012d", n) }

// newMemory returns memory n of scope, created and updated at t0. Its content
// is text, already lower-case words, as the analyser would leave it.
func newMemory(scope mnemo.Scope, n int, key, text string) mnemo.Memory {
	return mnemo.Memory{
		ID:            id(n),
		TenantID:      scope.TenantID,
		AgentID:       scope.AgentID,
		Key:           key,
		Content:       text,
		Type:          mnemo.TypeFact,
		Priority:      2,
		Importance:    0.5,
		Confidence:    0.8,
		SecurityLevel: mnemo.SecurityInternal,
		CreatedAt:     t0,
		UpdatedAt:     t0,
		Vitality:      1,
		Stability:     mnemo.StabilityDays(2),
		Version:       mnemo.FormatVersion,
	}
}

// put returns the record that writes m, indexing its content as text and
// its tags as meta.
func put(m mnemo.Memory) mnemo.Record {
	return mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content, Meta: strings.Join(m.Tags, " ")}}
}

// tombstone returns the record that deletes key at time t.
func tombstone(scope mnemo.Scope, n int, key string, t time.Time) mnemo.Record {
	m := newMemory(scope, n, key, "")
	m.CreatedAt, m.UpdatedAt = t, t
	return mnemo.Record{Memory: m, Tombstone: true}
}

func write(t *testing.T, s mnemo.Store, scope mnemo.Scope, recs ...mnemo.Record) []mnemo.Memory {
	t.Helper()
	ms, err := s.Write(t.Context(), scope, recs)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if len(ms) != len(recs) {
		t.Fatalf("Write returned %d memories for %d records", len(ms), len(recs))
	}
	return ms
}

func get(t *testing.T, s mnemo.Store, scope mnemo.Scope, id string) mnemo.Memory {
	t.Helper()
	m, err := s.Get(t.Context(), scope, id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return m
}

func getByKey(t *testing.T, s mnemo.Store, scope mnemo.Scope, key string) mnemo.Memory {
	t.Helper()
	m, err := s.GetByKey(t.Context(), scope, key)
	if err != nil {
		t.Fatalf("GetByKey(%s): %v", key, err)
	}
	return m
}

func list(t *testing.T, s mnemo.Store, scope mnemo.Scope, q mnemo.ListQuery) ([]mnemo.Memory, int) {
	t.Helper()
	ms, total, err := s.List(t.Context(), scope, q)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return ms, total
}

func search(t *testing.T, s mnemo.Store, scope mnemo.Scope, q mnemo.TextQuery) []mnemo.Hit {
	t.Helper()
	res, err := s.Search(t.Context(), scope, q)
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	if res.Degraded {
		t.Fatalf("Search degraded: %s", res.Reason)
	}
	return res.Hits
}

func history(t *testing.T, s mnemo.Store, scope mnemo.Scope, key string) []mnemo.Revision {
	t.Helper()
	revs, err := s.History(t.Context(), scope, key)
	if err != nil {
		t.Fatalf("History(%s): %v", key, err)
	}
	for i := 1; i < len(revs); i++ {
		if revs[i].Seq <= revs[i-1].Seq {
			t.Fatalf("History(%s): seq %d after %d, want increasing", key, revs[i].Seq, revs[i-1].Seq)
		}
	}
	return revs
}

func stats(t *testing.T, s mnemo.Store, scope mnemo.Scope) mnemo.Stats {
	t.Helper()
	st, err := s.Stats(t.Context(), scope)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	return st
}

// wantCode fails t unless err carries the error code.
func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := mnemo.ErrorCode(err); got != code {
		t.Errorf("%s: error %v (code %q), want code %q", what, err, got, code)
	}
}

func ids(ms []mnemo.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func hitIDs(hs []mnemo.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Memory.ID
	}
	return out
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// checkMemory reports every field in which got differs from want. Times must
// be equal instants in UTC, JSON equal in meaning, nil and empty tags alike.
func checkMemory(t *testing.T, what string, got, want mnemo.Memory) {
	t.Helper()
	diff := func(field string, g, w any) {
		t.Helper()
		t.Errorf("%s: %s = %v, want %v", what, field, g, w)
	}
	fields := []struct {
		name      string
		got, want any
	}{
		{"ID", got.ID, want.ID},
		{"TenantID", got.TenantID, want.TenantID},
		{"AgentID", got.AgentID, want.AgentID},
		{"SessionID", got.SessionID, want.SessionID},
		{"Key", got.Key, want.Key},
		{"Content", got.Content, want.Content},
		{"Summary", got.Summary, want.Summary},
		{"Type", got.Type, want.Type},
		{"Category", got.Category, want.Category},
		{"Priority", got.Priority, want.Priority},
		{"Importance", got.Importance, want.Importance},
		{"Confidence", got.Confidence, want.Confidence},
		{"SecurityLevel", got.SecurityLevel, want.SecurityLevel},
		{"Pinned", got.Pinned, want.Pinned},
		{"AccessCount", got.AccessCount, want.AccessCount},
		{"Archived", got.Archived, want.Archived},
		{"Vitality", got.Vitality, want.Vitality},
		{"Stability", got.Stability, want.Stability},
		{"Version", got.Version, want.Version},
		{"EmbeddingModel", got.EmbeddingModel, want.EmbeddingModel},
	}
	for _, f := range fields {
		if f.got != f.want {
			diff(f.name, f.got, f.want)
		}
	}
	if len(got.Tags) != 0 || len(want.Tags) != 0 {
		if !slices.Equal(got.Tags, want.Tags) {
			diff("Tags", got.Tags, want.Tags)
		}
	}
	if !sameJSON(got.Data, want.Data) {
		diff("Data", string(got.Data), string(want.Data))
	}
	if !sameJSON(got.Source, want.Source) {
		diff("Source", string(got.Source), string(want.Source))
	}
	type instant struct {
		name      string
		got, want time.Time
	}
	times := []instant{
		{"CreatedAt", got.CreatedAt, want.CreatedAt},
		{"UpdatedAt", got.UpdatedAt, want.UpdatedAt},
		{"AccessedAt", got.AccessedAt, want.AccessedAt},
	}
	if (got.ExpiresAt == nil) != (want.ExpiresAt == nil) {
		diff("ExpiresAt", got.ExpiresAt, want.ExpiresAt)
	} else if got.ExpiresAt != nil {
		times = append(times, instant{"ExpiresAt", *got.ExpiresAt, *want.ExpiresAt})
	}
	for _, tm := range times {
		if !tm.got.Equal(tm.want) {
			diff(tm.name, tm.got.Format(time.RFC3339Nano), tm.want.Format(time.RFC3339Nano))
		} else if !tm.got.IsZero() && tm.got.Location() != time.UTC {
			diff(tm.name+" location", tm.got.Location(), time.UTC)
		}
	}
	if !slices.Equal(got.Embedding, want.Embedding) {
		diff("Embedding", got.Embedding, want.Embedding)
	}
}

// sameJSON reports whether a and b are equal JSON values, or both empty.
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
