package sqlite_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// TestRowCacheFollowsWrites checks that a search answers each memory as
// stored now, after every way a stored row changes, by this handle or by
// another one on the same file (as another process would): the rows a
// search read before are kept, and must never be answered stale.
func TestRowCacheFollowsWrites(t *testing.T) {
	ctx := context.Background()
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	space := mnemo.VectorSpace{Model: "test/4", Dimension: 4}
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	vec := func(x float32) []float32 { return []float32{x, 1, 0, 0} }
	f64 := func(f float64) *float64 { return &f }
	keyed := mnemo.Memory{Key: "/pref/editor", Content: "the user edits in vim daily", Type: "preference",
		Tags: []string{"editor"}, Entities: []string{"vim"}, CreatedAt: at, UpdatedAt: at,
		Embedding: vec(0.5), EmbeddingModel: space.Model}
	keyless := mnemo.Memory{ID: "01959581-0000-7000-8000-000000000002", Content: "the user walks daily by the lake",
		Type: "fact", CreatedAt: at, UpdatedAt: at, Embedding: vec(0.2), EmbeddingModel: space.Model}
	pending := mnemo.Memory{ID: "01959581-0000-7000-8000-000000000003", Content: "the user reads daily before bed",
		Type: "fact", CreatedAt: at, UpdatedAt: at}

	// change changes the store through db (this handle) or other (a second
	// handle on the same file).
	cases := []struct {
		name   string
		change func(t *testing.T, db, other *sqlite.DB, ids map[string]string)
	}{
		{"upsert of a key", func(t *testing.T, db, _ *sqlite.DB, _ map[string]string) {
			m := keyed
			m.Content, m.Tags, m.UpdatedAt = "the user edits in emacs daily now", []string{"editor", "changed"}, at.Add(time.Hour)
			write(t, db, scope, m, m.Content)
		}},
		{"upsert of a key, another handle", func(t *testing.T, _, other *sqlite.DB, _ map[string]string) {
			m := keyed
			m.Content, m.Embedding, m.UpdatedAt = "the user edits in helix daily now", vec(0.9), at.Add(time.Hour)
			write(t, other, scope, m, m.Content)
		}},
		{"replace", func(t *testing.T, db, _ *sqlite.DB, _ map[string]string) {
			m := keyless
			m.Content, m.UpdatedAt = "the user swims daily in the lake", at.Add(time.Hour)
			if _, err := db.Replace(ctx, scope, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content}); err != nil {
				t.Fatal(err)
			}
		}},
		{"lifecycle", func(t *testing.T, db, _ *sqlite.DB, ids map[string]string) {
			end := at.Add(48 * time.Hour)
			ch := []mnemo.LifeChange{{ID: ids[keyed.Key], Vitality: f64(0.25), Stability: f64(3), ValidTo: &end}}
			if _, err := db.ApplyLife(ctx, scope, ch, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"lifecycle, another handle", func(t *testing.T, _, other *sqlite.DB, ids map[string]string) {
			ch := []mnemo.LifeChange{{ID: keyless.ID, Vitality: f64(0.5), Stability: f64(9)}}
			if _, err := other.ApplyLife(ctx, scope, ch, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"access", func(t *testing.T, db, other *sqlite.DB, ids map[string]string) {
			if err := db.Touch(ctx, scope, []string{ids[keyed.Key], keyless.ID}, at.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			if err := other.Touch(ctx, scope, []string{keyless.ID}, at.Add(2*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}},
		{"vector made later", func(t *testing.T, _, other *sqlite.DB, _ map[string]string) {
			jobs, err := other.Unembedded(ctx, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != 1 || jobs[0].ID != pending.ID {
				t.Fatalf("waiting for a vector: %v, want %s", jobs, pending.ID)
			}
			if err := other.SetVectors(ctx, jobs, [][]float32{vec(0.7)}); err != nil {
				t.Fatal(err)
			}
		}},
		{"vector space reset", func(t *testing.T, db, _ *sqlite.DB, _ map[string]string) {
			if err := db.SetVectorSpace(ctx, mnemo.VectorSpace{Model: "test/other", Dimension: 4}, true); err != nil {
				t.Fatal(err)
			}
		}},
		{"tombstone", func(t *testing.T, db, _ *sqlite.DB, _ map[string]string) {
			if _, err := db.Write(ctx, scope, []mnemo.Record{{Memory: mnemo.Memory{Key: keyed.Key, UpdatedAt: at.Add(time.Hour)}, Tombstone: true}}); err != nil {
				t.Fatal(err)
			}
		}},
		{"forget, another handle", func(t *testing.T, _, other *sqlite.DB, _ map[string]string) {
			if _, err := other.Forget(ctx, scope, []string{keyless.ID}, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"forget and write again, another handle", func(t *testing.T, _, other *sqlite.DB, _ map[string]string) {
			if _, err := other.Clear(ctx, scope); err != nil {
				t.Fatal(err)
			}
			m := keyed
			m.Content = "the user edits in nano daily"
			write(t, other, scope, m, m.Content)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mnemo.db")
			db, other := open(t, path, sqlite.Options{}), open(t, path, sqlite.Options{})
			if err := db.SetVectorSpace(ctx, space, false); err != nil {
				t.Fatal(err)
			}
			ids := map[string]string{}
			ids[keyed.Key] = write(t, db, scope, keyed, keyed.Content)
			write(t, db, scope, keyless, keyless.Content)
			write(t, db, scope, pending, pending.Content)

			// Twice before the change: the second is answered from the kept
			// rows, and must answer as the first.
			before := searchBoth(t, db, scope, vec(0.5))
			if again := searchBoth(t, db, scope, vec(0.5)); !reflect.DeepEqual(again, before) {
				t.Fatalf("a search read again answers otherwise:\n%s\nwant\n%s", show(again), show(before))
			}
			c.change(t, db, other, ids)
			got := searchBoth(t, db, scope, vec(0.5))
			fresh := open(t, path, sqlite.Options{}) // no kept rows
			want := searchBoth(t, fresh, scope, vec(0.5))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after the change, a search of the handle that read before answers\n%s\nwant (a new handle's)\n%s", show(got), show(want))
			}
			if reflect.DeepEqual(want, before) {
				t.Errorf("the change changed nothing a search answers: the case tests nothing")
			}
		})
	}
}

// TestRowCacheCopies checks that a caller changing what a search returned
// changes nothing a later search answers.
func TestRowCacheCopies(t *testing.T) {
	ctx := context.Background()
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	db := open(t, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err := db.SetVectorSpace(ctx, mnemo.VectorSpace{Model: "test/4", Dimension: 4}, false); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	write(t, db, scope, mnemo.Memory{Content: "the user runs daily", Type: "fact", Tags: []string{"sport"},
		Entities: []string{"user"}, Data: []byte(`{"a":1}`), CreatedAt: at, UpdatedAt: at,
		Occurred:  &mnemo.Occurred{Start: at, End: at.Add(time.Hour), Source: mnemo.OccurredWriter},
		Embedding: []float32{1, 0, 0, 0}, EmbeddingModel: "test/4"}, "the user runs daily")
	want := show(searchBoth(t, db, scope, []float32{1, 0, 0, 0}))
	for range 2 {
		for _, m := range searchBoth(t, db, scope, []float32{1, 0, 0, 0}) {
			m.Tags[0], m.Entities[0], m.Data[1], m.Embedding[0] = "changed", "changed", 'X', 9
			m.Occurred.Start = time.Time{}
		}
	}
	if got := show(searchBoth(t, db, scope, []float32{1, 0, 0, 0})); got != want {
		t.Errorf("after callers changed what searches returned, a search answers\n%s\nwant\n%s", got, want)
	}
}

// write stores m in scope with its index and embedding text, and returns
// its id.
func write(t *testing.T, db *sqlite.DB, scope mnemo.Scope, m mnemo.Memory, text string) string {
	t.Helper()
	ms, err := db.Write(context.Background(), scope, []mnemo.Record{{Memory: m, Index: mnemo.IndexText{Text: text}, Embed: text}})
	if err != nil {
		t.Fatal(err)
	}
	return ms[0].ID
}

// searchBoth returns the memories a full-text search for "daily" and a
// vector search for v find, by id. (Not in their orders: a handle's
// in-memory full-text index ranks with its own statistics, which another
// handle's writes do not move.)
func searchBoth(t *testing.T, db *sqlite.DB, scope mnemo.Scope, v []float32) []*mnemo.Memory {
	t.Helper()
	ctx := context.Background()
	sr, err := db.Search(ctx, scope, mnemo.TextQuery{Terms: []string{"daily"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var out []*mnemo.Memory
	for _, h := range sr.Hits {
		out = append(out, &h.Memory)
	}
	if err := db.IndexVectors(ctx); err != nil {
		t.Fatal(err)
	}
	vs, err := db.SearchVectors(ctx, scope, mnemo.VectorQuery{Vector: v, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range vs {
		out = append(out, &h.Memory)
	}
	slices.SortStableFunc(out, func(a, b *mnemo.Memory) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// show is ms as JSON lines, for a failure's message.
func show(ms []*mnemo.Memory) string {
	var b []byte
	for _, m := range ms {
		j, _ := json.Marshal(m)
		b = append(append(b, j...), '\n')
	}
	return string(b)
}
