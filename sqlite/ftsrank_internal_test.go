package sqlite

import (
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// rankedID is a ranked match by its memory's id, to compare stores whose
// seqs differ.
type rankedID struct {
	id   string
	rank float64
}

// memoryIDs returns the id of each memory by seq.
func memoryIDs(t *testing.T, db *DB) map[int64]string {
	t.Helper()
	ids := map[int64]string{}
	rows, err := db.reader.QueryContext(t.Context(), `SELECT seq, id FROM memories`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			seq int64
			id  string
		)
		if err := rows.Scan(&seq, &id); err != nil {
			t.Fatal(err)
		}
		ids[seq] = id
	}
	return ids
}

func rankedIDs(ids map[int64]string, rs []ranked) []rankedID {
	out := make([]rankedID, len(rs))
	for i, r := range rs {
		out[i] = rankedID{ids[r.seq], r.rank}
	}
	return out
}

// TestSearchRanksByScopeStatistics: a scope's full-text ranks are FTS5's
// bm25 over the scope's rows alone (REC-10), bit for bit, whatever other
// scopes hold and however they change: a scope in a store of its own,
// where FTS5's whole-table statistics are the scope's, is the oracle for
// the same scope in a store shared with another, both from the in-memory
// index and from the full-text index (rankFTS), for terms, prefixes,
// terms of several tokens and terms only SQLite's tokenizer splits.
func TestSearchRanksByScopeStatistics(t *testing.T) {
	ctx := t.Context()
	open := func(name string) *DB {
		db, err := Open(ctx, filepath.Join(t.TempDir(), name), Options{Synchronous: "NORMAL"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	alone, shared := open("alone.db"), open("shared.db")
	a := mnemo.Scope{TenantID: "t", AgentID: "a"}
	b := mnemo.Scope{TenantID: "u", AgentID: "b"}
	sizes := []int{600, 900}
	if raceEnabled {
		sizes = []int{200, 300}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	other := rand.New(rand.NewPCG(9, 10))
	id := 0
	records := func(rng *rand.Rand, n int) []mnemo.Record {
		var recs []mnemo.Record
		for j := range n {
			r := lexRecord(rng, id, "")
			if j%7 == 0 {
				// Text only SQLite's tokenizer splits for certain.
				r.Index.Text += " CAFÉ हिन्दी e\u0301clair"
			}
			recs = append(recs, r)
			id++
		}
		return recs
	}
	// B's rows before, between and after A's, in the shared store only.
	if _, err := shared.Write(ctx, b, records(other, sizes[1]/2)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		recs := records(rng, sizes[0]/2)
		for _, db := range []*DB{alone, shared} {
			if _, err := db.Write(ctx, a, recs); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := shared.Write(ctx, b, records(other, sizes[1]/4)); err != nil {
			t.Fatal(err)
		}
	}
	waitLex(t, alone)
	waitLex(t, shared)

	words := append(slices.Clone(lexWords), "café", "CAFÉ", "हिन्दी", "éclair", "e\u0301clair", "absent")
	compare := func(when string, queries int) {
		t.Helper()
		spAlone, err := alone.scopeSpan(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		spShared, err := shared.scopeSpan(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		compared := 0
		idsAlone, idsShared := memoryIDs(t, alone), memoryIDs(t, shared)
		for range queries {
			var q mnemo.TextQuery
			for range 1 + rng.IntN(4) {
				f := rng.Float64()
				if w := words[int(f*f*float64(len(words)))]; !slices.Contains(q.Terms, w) {
					q.Terms = append(q.Terms, w)
				}
			}
			if rng.IntN(4) == 0 {
				q.Prefixes = []string{[]string{"ap", "wa", "ca", "x-r"}[rng.IntN(4)]}
			}
			n := []int{1, 10, 100, math.MaxInt}[rng.IntN(4)]
			for _, op := range []lexJoin{lexOr, lexAnd, lexPairs} {
				var expr string
				switch op {
				case lexOr:
					expr = matchExprJoin(&q, " OR ")
				case lexAnd:
					expr = matchExprJoin(&q, " AND ")
				case lexPairs:
					var parts []string
					for _, t := range q.Terms {
						parts = append(parts, quote(t))
					}
					for _, p := range q.Prefixes {
						parts = append(parts, quote(p)+"*")
					}
					if len(parts) < 3 {
						continue
					}
					expr = ""
					for i := range parts {
						for j := i + 1; j < len(parts); j++ {
							if expr != "" {
								expr += " OR "
							}
							expr += "(" + parts[i] + " AND " + parts[j] + ")"
						}
					}
				}
				want := rankedIDs(idsAlone, fts5BM25(t, alone, expr, spAlone, min(n, 1<<30)))
				for _, c := range []struct {
					name string
					db   *DB
					sp   span
					ids  map[int64]string
				}{{"alone", alone, spAlone, idsAlone}, {"shared", shared, spShared, idsShared}} {
					got, err := c.db.rankFTS(ctx, c.sp, &q, op, n)
					if err != nil {
						t.Fatal(err)
					}
					if g := rankedIDs(c.ids, got); !slices.Equal(g, want) {
						t.Fatalf("%s: %s store, rankFTS(%s), %d wanted:\n got  %v\n FTS5 %v", when, c.name, expr, n, g, want)
					}
					if len(q.Prefixes) > 0 {
						continue
					}
					if got, ok := c.db.lex.rank(c.sp, lexQuery{terms: q.Terms, op: op}, n); ok {
						if g := rankedIDs(c.ids, got); !slices.Equal(g, want) {
							t.Fatalf("%s: %s store, in memory (%s), %d wanted:\n got  %v\n FTS5 %v", when, c.name, expr, n, g, want)
						}
					}
				}
				compared += len(want)
			}
			// And whole searches, filters included.
			sq := q
			sq.Limit = []int{1, 10, 50}[rng.IntN(3)]
			sq.MatchAll = rng.IntN(5) == 0
			if rng.IntN(3) == 0 {
				sq.Filter.Types = []string{mnemo.TypeEvent}
			}
			ra, err := alone.Search(ctx, a, sq)
			if err != nil {
				t.Fatal(err)
			}
			var rs, rf mnemo.SearchResult
			rs, err = shared.Search(ctx, a, sq)
			if err == nil {
				withoutLex(shared, func() { rf, err = shared.Search(ctx, a, sq) })
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []mnemo.SearchResult{rs, rf} {
				if len(r.Hits) != len(ra.Hits) {
					t.Fatalf("%s: Search(%+v): %d hits in the shared store, %d alone", when, sq, len(r.Hits), len(ra.Hits))
				}
				for k := range r.Hits {
					if g, w := r.Hits[k], ra.Hits[k]; g.Memory.ID != w.Memory.ID || g.Lexical != w.Lexical {
						t.Fatalf("%s: Search(%+v) hit %d: %s %v shared, %s %v alone", when, sq, k, g.Memory.ID, g.Lexical, w.Memory.ID, w.Lexical)
					}
				}
			}
		}
		if compared == 0 {
			t.Fatalf("%s: no matches compared", when)
		}
	}
	queries := 120
	if raceEnabled {
		queries = 30
	}
	compare("written", queries)

	// What the other scope does moves nothing of this one's.
	if _, err := shared.Write(ctx, b, records(other, 200)); err != nil {
		t.Fatal(err)
	}
	if _, err := shared.Forget(ctx, b, []string{uuidFor(1), uuidFor(3), uuidFor(5)}, nil); err != nil {
		t.Fatal(err)
	}
	compare("the other scope changed", queries/2)
	if _, err := shared.Clear(ctx, b); err != nil {
		t.Fatal(err)
	}
	compare("the other scope cleared", queries/2)
	checkFTSStats(t, shared, "shared")
	checkFTSStats(t, alone, "alone")
}

// TestFTSStatsFilled: a store without full-text statistics, as one
// migrated from a version that kept none, has them filled when it opens;
// a rebuilt index has them filled anew.
func TestFTSStatsFilled(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := Open(ctx, path, Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for i, sc := range []mnemo.Scope{{TenantID: "t", AgentID: "a"}, {TenantID: "t", AgentID: "b"}} {
		var recs []mnemo.Record
		for j := range 50 {
			recs = append(recs, lexRecord(rng, 100*i+j, fmt.Sprintf("/k/%d", j)))
		}
		if _, err := db.Write(ctx, sc, recs); err != nil {
			t.Fatal(err)
		}
	}
	checkFTSStats(t, db, "written")
	db.Close()

	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, `DELETE FROM fts_scopes`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if db, err = Open(ctx, path, Options{Synchronous: "NORMAL"}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkFTSStats(t, db, "filled at open")

	if _, err := db.writer.ExecContext(ctx, `UPDATE fts_scopes SET docs = docs + 5`); err != nil {
		t.Fatal(err)
	}
	if err := db.RebuildIndex(ctx); err != nil {
		t.Fatal(err)
	}
	checkFTSStats(t, db, "rebuilt")
}

// BenchmarkFullTextRank ranks a query's best 100 in a scope of 20,000
// memories three ways: from the in-memory index (memory), from the
// full-text index's own records with the scope's statistics when that
// index is not built (instances, rankFTS), and, for reference, by FTS5's
// bm25() over the whole table's statistics (fts5), which Search no longer
// uses (REC-10).
//
//	go test -run '^$' -bench FullTextRank ./sqlite
func BenchmarkFullTextRank(b *testing.B) {
	ctx := b.Context()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "m.db"), Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	sc := mnemo.Scope{TenantID: "t", AgentID: "a"}
	for i := range 40 {
		var recs []mnemo.Record
		for j := range 500 {
			recs = append(recs, lexRecord(rng, 500*i+j, ""))
		}
		if _, err := db.Write(ctx, sc, recs); err != nil {
			b.Fatal(err)
		}
	}
	for !db.LexicalIndex().Ready {
		time.Sleep(time.Millisecond)
	}
	sp, err := db.scopeSpan(ctx, sc)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		terms []string
	}{{"rare", []string{"zucchini"}}, {"three", []string{"kiwi", "lemon", "mango"}}, {"common", []string{"weather", "report"}}} {
		q := mnemo.TextQuery{Terms: c.terms}
		b.Run(c.name+"/memory", func(b *testing.B) {
			for b.Loop() {
				if _, ok := db.lex.rank(sp, lexQuery{terms: c.terms, op: lexOr}, 100); !ok {
					b.Fatal("the in-memory index did not answer")
				}
			}
		})
		b.Run(c.name+"/instances", func(b *testing.B) {
			for b.Loop() {
				if _, err := db.rankFTS(ctx, sp, &q, lexOr, 100); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/fts5", func(b *testing.B) {
			expr := matchExprJoin(&q, " OR ")
			for b.Loop() {
				rows, err := db.reader.QueryContext(ctx, `SELECT rowid, `+bm25+` AS rank FROM memories_fts
					WHERE memories_fts MATCH ? AND rowid >= ? AND rowid < ? ORDER BY rank LIMIT 100`, expr, sp.lo, sp.hi)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
				}
				rows.Close()
			}
		})
	}
}

// FuzzFullTextRank: for any term and prefix, the in-memory index (through
// Search's own path, which splits terms lexTokens is unsure of with
// SQLite's tokenizer) and rankFTS rank as FTS5's bm25() does in a store of
// one scope, and neither fails.
func FuzzFullTextRank(f *testing.F) {
	for _, s := range [][2]string{
		{"apple", "ba"}, {"CAFÉ", "ca"}, {"x-ray", "x-r"}, {"v1.2", "v1"}, {"हिन्दी", "हि"},
		{"e\u0301clair", "e\u0301"}, {"\xff\xfe", "\xff"}, {"", ""}, {"a\"b", "\""}, {"喜欢北京", "喜"},
		{"µ", "µ"}, {"ΣΊΣΥΦΟΣ", "σί"}, {"straße", "STRASS"},
	} {
		f.Add(s[0], s[1])
	}
	ctx := f.Context()
	db, err := Open(ctx, filepath.Join(f.TempDir(), "m.db"), Options{Synchronous: "NORMAL"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	sc := mnemo.Scope{TenantID: "t", AgentID: "a"}
	rng := rand.New(rand.NewPCG(13, 14))
	var recs []mnemo.Record
	for i := range 300 {
		r := lexRecord(rng, i, "")
		if i%5 == 0 {
			r.Index.Text += " CAFÉ हिन्दी e\u0301clair straße ΣΊΣΥΦΟΣ µ \xff\xfe x-ray v1.2"
		}
		recs = append(recs, r)
	}
	if _, err := db.Write(ctx, sc, recs); err != nil {
		f.Fatal(err)
	}
	for !db.LexicalIndex().Ready {
		time.Sleep(time.Millisecond)
	}
	sp, err := db.scopeSpan(ctx, sc)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, term, prefix string) {
		if len(term) > 200 || len(prefix) > 200 {
			return
		}
		for _, q := range []mnemo.TextQuery{{Terms: []string{term, "apple"}}, {Terms: []string{term}, Prefixes: []string{prefix}}} {
			for _, op := range []lexJoin{lexOr, lexAnd} {
				join := map[lexJoin]string{lexOr: " OR ", lexAnd: " AND "}[op]
				got, err := db.rankFTS(ctx, sp, &q, op, 50)
				if err != nil {
					t.Fatal(err)
				}
				// FTS5's query syntax ends a string at a NUL, as the
				// analyser's terms never hold one: no oracle then.
				if strings.ContainsRune(term+prefix, 0) {
					continue
				}
				want := fts5BM25(t, db, matchExprJoin(&q, join), sp, 50)
				if !slices.Equal(got, want) {
					t.Fatalf("rankFTS(%q, %q) = %v, FTS5 %v", q.Terms, q.Prefixes, got, want)
				}
				if got, err = db.rank(ctx, true, &q, op, false, sp, 50); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("rank(%q, %q) = %v, FTS5 %v", q.Terms, q.Prefixes, got, want)
				}
			}
		}
	})
}

// TestFTSTokenizer: the tokenizer splits as lexTokens does wherever
// lexTokens is sure, holds nothing of one text when it splits the next,
// and gives a kept term's tokens again.
func TestFTSTokenizer(t *testing.T) {
	var tz ftsTokenizer
	defer tz.close()
	ctx := t.Context()
	texts := []string{"plain words here", "MiXeD Case", "x-ray o'neil v1.2", "café naïve", "喜欢 北京",
		"ελλάδα москва", "a", "", "emoji 😀 here", strings.Repeat("long text ", 20)}
	for range 2 { // the second time from what it keeps
		for _, text := range texts {
			var want []string
			if !lexTokens(text, func(s string) bool { want = append(want, s); return true }) {
				t.Fatalf("lexTokens is unsure of %q", text)
			}
			got, err := tz.tokens(ctx, text)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("tokens(%q) = %q, lexTokens %q", text, got, want)
			}
		}
	}
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"CAFÉ", []string{"café"}},
		{"µ", []string{"μ"}},
		{"e\u0301clair", []string{"e\u0301clair"}},
	} {
		got, err := tz.tokens(ctx, tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("tokens(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestFTSStatsRepairedByBuild: statistics that drifted from the index (a
// process of an older version wrote after the migration) are counted
// again when the in-memory index is built.
func TestFTSStatsRepairedByBuild(t *testing.T) {
	ctx := t.Context()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(15, 16))
	var recs []mnemo.Record
	for i := range 40 {
		recs = append(recs, lexRecord(rng, i, ""))
	}
	if _, err := db.Write(ctx, mnemo.Scope{TenantID: "t", AgentID: "a"}, recs); err != nil {
		t.Fatal(err)
	}
	waitLex(t, db)
	for _, drift := range []string{
		`UPDATE fts_scopes SET docs = docs - 3 WHERE scope > 0`,
		`UPDATE fts_scopes SET tokens = tokens + 7 WHERE scope > 0`,
		`DELETE FROM fts_scopes WHERE scope > 0`,
		`INSERT INTO fts_scopes (scope, docs, tokens) VALUES (99, 1, 1)`,
	} {
		if _, err := db.writer.ExecContext(ctx, drift); err != nil {
			t.Fatal(err)
		}
		db.lex.reset()
		waitLex(t, db)
		checkFTSStats(t, db, drift)
	}
}

// BenchmarkSearchBesideWrites searches an agent while another goroutine
// writes batches of 500 memories to it without pause, half of them with
// text only SQLite's tokenizer splits for certain (unsure) or none (sure):
// the searches' latency, the slowest included, shows how long the writes'
// updates of the in-memory full-text index hold them (PERF-11).
//
//	go test -run '^$' -bench SearchBesideWrites -benchtime 3000x ./sqlite
func BenchmarkSearchBesideWrites(b *testing.B) {
	for _, unsure := range []bool{false, true} {
		name := "text=sure"
		if unsure {
			name = "text=unsure"
		}
		b.Run(name, func(b *testing.B) {
			ctx := b.Context()
			db, err := Open(ctx, filepath.Join(b.TempDir(), "m.db"), Options{Synchronous: "NORMAL"})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			rng := rand.New(rand.NewPCG(1, 2))
			sc := mnemo.Scope{TenantID: "t", AgentID: "a"}
			id := 0
			batch := func() []mnemo.Record {
				recs := make([]mnemo.Record, 0, 500)
				for j := range 500 {
					r := lexRecord(rng, id, "")
					id++
					if unsure && j%2 == 0 {
						r.Index.Text += " CAFÉ"
					}
					recs = append(recs, r)
				}
				return recs
			}
			for range 4 {
				if _, err := db.Write(ctx, sc, batch()); err != nil {
					b.Fatal(err)
				}
			}
			for !db.LexicalIndex().Ready {
				time.Sleep(time.Millisecond)
			}
			stop := make(chan struct{})
			done := make(chan error)
			go func() {
				for {
					select {
					case <-stop:
						done <- nil
						return
					default:
					}
					if _, err := db.Write(ctx, sc, batch()); err != nil {
						done <- err
						return
					}
				}
			}()
			q := mnemo.TextQuery{Terms: []string{"zucchini", "yam"}, Limit: 10}
			var durs []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := db.Search(ctx, sc, q); err != nil {
					b.Fatal(err)
				}
				durs = append(durs, time.Since(start))
			}
			close(stop)
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			slices.Sort(durs)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(durs[len(durs)/2]), "p50-ms")
			b.ReportMetric(ms(durs[len(durs)*99/100]), "p99-ms")
			b.ReportMetric(ms(durs[len(durs)-1]), "max-ms")
		})
	}
}
