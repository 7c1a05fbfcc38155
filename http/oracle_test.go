package http_test

import (
	"slices"
	"testing"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/memory"
)

// TestMaskedOracles asks, as a key that reads masked and as one that reads
// whole, the questions whose answers could tell a masking key what a
// restricted memory says without showing it (SEC-14): the Write Guard's
// answer to a write of the same, nearly the same or the contrary text; a
// list or a recall bounded by when things happened, which could bisect a
// date it may not read; and, kept by design and so checked here too,
// recall's ranking by words, the counts, and the keys and tags it reads
// whole. On every store that filters itself.
func TestMaskedOracles(t *testing.T) {
	t.Parallel()
	for _, st := range graphStores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			testMaskedOracles(t, st.open(t))
		})
	}
}

func testMaskedOracles(t *testing.T, store mnemo.Store) {
	masked := apiKey("masked", "t", nil, allScopes...)
	masked.Mask = true
	ts := startOn(t, store, mhttp.Options{Registry: newRegistry(), Keys: []mhttp.APIKey{
		apiKey("owner", "t", nil, allScopes...),
		apiKey("clear", "t", nil, mhttp.ScopeRead),
		masked,
	}})
	u := func(p string) string { return ts.URL + p }
	write := func(key string, body map[string]any) memory.WriteResult {
		t.Helper()
		body["agent_id"] = "a"
		var w memory.WriteResult
		if st, raw := callAs(t, secret(key), "POST", u("/v1/memories"), body, &w); st != 201 {
			t.Fatalf("%s writes %v: %d %s", key, body, st, raw)
		}
		return w
	}
	const secretText = "Lunch with the auditor on 14 March 1987, the vault password is Zebra42Tango"
	sec := write("owner", map[string]any{"content": secretText, "type": "event", "tags": []string{"vault"}})
	if sec.SecurityLevel != mnemo.SecurityRestricted || sec.Occurred == nil {
		t.Fatalf("the plant: level %s, occurred %v", sec.SecurityLevel, sec.Occurred)
	}
	pub := write("owner", map[string]any{"content": "The garden shed was painted on 2 May 1990", "type": "event", "security_level": "public"})

	t.Run("write guard", func(t *testing.T) {
		// The owner, who reads it, is told of the duplicate.
		if w := write("owner", map[string]any{"content": secretText, "type": "event"}); w.Guard.Action != memory.GuardDuplicate || w.ID != sec.ID {
			t.Errorf("owner's duplicate: %+v", w.Guard)
		}
		// The masking key is answered as if it were not stored: neither
		// a duplicate, nor a merge that would replace it, nor a conflict
		// that names it.
		for _, text := range []string{
			secretText,
			"Lunch with the auditor on 14 March 1987, the vault password is Zebra42Tango today",
			"Lunch with the auditor on 14 March 1987, the vault password is not Zebra42Tango",
		} {
			w := write("masked", map[string]any{"content": text, "type": "event"})
			if w.Guard.Action != memory.GuardAdd || w.ID == sec.ID || w.Guard.ExistingID != "" || slices.Contains(w.Guard.ConflictsWith, sec.ID) {
				t.Errorf("masking key writes %q: %+v, want a plain add", text, w.Guard)
			}
		}
		var m mnemo.Memory
		if st, raw := callAs(t, secret("owner"), "GET", u("/v1/memories/"+sec.ID+"?agent_id=a"), nil, &m); st != 200 || m.Archived || m.Content != secretText {
			t.Errorf("the restricted memory after the masking key's writes: %d %s", st, raw)
		}
	})

	ids := func(ms []mnemo.Memory) []string {
		out := make([]string, len(ms))
		for i, m := range ms {
			out[i] = m.ID
		}
		return out
	}
	list := func(key, query string) ([]string, int) {
		t.Helper()
		var a listAnswer
		if st, raw := callAs(t, secret(key), "GET", u("/v1/memories?agent_id=a&limit=100&"+query), nil, &a); st != 200 {
			t.Fatalf("%s lists %s: %d %s", key, query, st, raw)
		}
		return ids(a.Memories), a.Total
	}
	recall := func(key string, body map[string]any) []string {
		t.Helper()
		body["agent_id"] = "a"
		var a struct {
			Results []mnemo.Memory `json:"results"`
		}
		if st, raw := callAs(t, secret(key), "POST", u("/v1/recall"), body, &a); st != 200 {
			t.Fatalf("%s recalls %v: %d %s", key, body, st, raw)
		}
		return ids(a.Results)
	}

	t.Run("when it happened", func(t *testing.T) {
		// Halving a window a memory is in finds its day in a few
		// lists: the masking key's windows hold only what it reads.
		for _, w := range []string{
			"occurred_after=1987-03-01&occurred_before=1987-04-01",
			"occurred_after=1987-03-14&occurred_before=1987-03-15",
			"occurred_after=1900-01-01&occurred_before=2000-01-01",
		} {
			got, total := list("clear", w)
			if !slices.Contains(got, sec.ID) {
				t.Errorf("clearing key lists %s: %v, want %s", w, got, sec.ID)
			}
			got, n := list("masked", w)
			if slices.Contains(got, sec.ID) || n >= total {
				t.Errorf("masking key lists %s: %v (total %d of %d), want no %s", w, got, n, total, sec.ID)
			}
		}
		got, _ := list("masked", "occurred_after=1900-01-01&occurred_before=2000-01-01")
		if !slices.Contains(got, pub.ID) {
			t.Errorf("masking key lists 1900–2000: %v, want the public %s", got, pub.ID)
		}
		for _, q := range []map[string]any{
			{"query": "what happened on 14 March 1987", "min_match": "none"},
			{"query": "lunch", "occurred_after": "1987-03-01", "occurred_before": "1987-04-01", "min_match": "none"},
		} {
			if got := recall("clear", q); !slices.Contains(got, sec.ID) {
				t.Errorf("clearing key recalls %v: %v, want %s", q, got, sec.ID)
			}
			// Nor the masking key's own restricted copies of it.
			for _, id := range recall("masked", q) {
				var m mnemo.Memory
				callAs(t, secret("owner"), "GET", u("/v1/memories/"+id+"?agent_id=a"), nil, &m)
				if m.SecurityLevel == mnemo.SecurityRestricted {
					t.Errorf("masking key recalls %v: %s, restricted", q, id)
				}
			}
		}
	})

	t.Run("an event's time", func(t *testing.T) {
		// A question placed by the restricted memory's event is asked at
		// the time the key reads: its day for the clearing key, its
		// writing for the masking key, which never learns the date.
		// The fence was painted the day after; the roses, written last,
		// come first where no date tells them apart.
		fence := write("owner", map[string]any{"content": "We repainted the fence on 15 March 1987", "type": "event", "security_level": "public"})
		write("owner", map[string]any{"content": "We planted roses on 3 June 1995", "type": "event", "security_level": "public"})
		q := map[string]any{"query": "What happened the day after the lunch with the auditor?", "min_match": "none"}
		if got := recall("clear", q); len(got) == 0 || got[0] != fence.ID {
			t.Errorf("clearing key: %v, want %s first", got, fence.ID)
		}
		if got := recall("masked", q); len(got) > 0 && got[0] == fence.ID {
			t.Errorf("masking key: %v, the day after the restricted date first", got)
		}
	})

	t.Run("kept by design", func(t *testing.T) {
		// Recall ranks a memory by its words for every key: the masking
		// key learns that one matches, never its words (docs/SECURITY.md).
		q := map[string]any{"query": "vault password Zebra42Tango", "min_match": "none"}
		if c, m := recall("clear", q), recall("masked", q); len(c) == 0 || len(m) == 0 || c[0] != m[0] {
			t.Errorf("ranking by words: clearing key %v, masking key %v", c, m)
		}
		// Counts count every memory, as the masked list shows each.
		_, c := list("clear", "")
		_, m := list("masked", "")
		if c != m {
			t.Errorf("totals: clearing key %d, masking key %d", c, m)
		}
		// Tags (and keys, and source) are read whole.
		got, _ := list("masked", "tags=vault")
		if !slices.Contains(got, sec.ID) {
			t.Errorf("masking key lists by tag: %v, want %s", got, sec.ID)
		}
	})
}
