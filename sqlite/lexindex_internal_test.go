package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// lexWords is the vocabulary of TestLexIndexMatchesFTS5: the first few are
// in most memories, so that queries meet common terms (commonTermMatches),
// and some are not lower-case ASCII words, which FTS5's tokenizer splits or
// folds.
var lexWords = []string{
	"the", "weather", "report", "said", "apple", "banana", "cherry", "durian",
	"elder", "fig", "grape", "honeydew", "kiwi", "lemon", "mango", "nectarine",
	"olive", "peach", "quince", "raspberry", "strawberry", "tangerine", "ugli",
	"vanilla", "watermelon", "yam", "zucchini", "x-ray", "o'neil", "Apple",
	"café", "naïve", "喜欢", "北京", "ελλάδα", "москва", "2026", "v1.2",
	"snake_case", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k",
}

func lexText(rng *rand.Rand) string {
	n := 1 + rng.IntN(14)
	w := make([]string, n)
	for i := range w {
		// Squared: the first words are much more frequent.
		f := rng.Float64()
		w[i] = lexWords[int(f*f*float64(len(lexWords)))]
	}
	return strings.Join(w, " ")
}

func lexRecord(rng *rand.Rand, id int, key string) mnemo.Record {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	text := lexText(rng)
	idx := mnemo.IndexText{Text: text}
	if rng.IntN(3) == 0 {
		idx.Context = lexText(rng)
	}
	if rng.IntN(2) == 0 {
		idx.Meta = "fact " + lexWords[rng.IntN(len(lexWords))]
	}
	typ := mnemo.TypeFact
	if rng.IntN(4) == 0 {
		typ = mnemo.TypeEvent
	}
	conf := 0.9
	if rng.IntN(5) == 0 {
		conf = 0.1
	}
	m := mnemo.Memory{ID: uuidFor(id), Key: key, Content: text, Type: typ, Confidence: conf,
		CreatedAt: now, UpdatedAt: now.Add(time.Duration(id) * time.Second)}
	return mnemo.Record{Memory: m, Index: idx}
}

// waitLex waits until the in-memory index is built.
func waitLex(t *testing.T, db *DB) {
	t.Helper()
	for range 2000 {
		if db.lex.fresh(t.Context()) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the in-memory full-text index was not built in 10 s")
}

// withoutLex runs fn with the in-memory index set aside: FTS5 answers.
func withoutLex(db *DB, fn func()) {
	db.lex.mu.Lock()
	db.lex.ready = false
	db.lex.mu.Unlock()
	defer func() {
		db.lex.mu.Lock()
		db.lex.ready = true
		db.lex.mu.Unlock()
	}()
	fn()
}

// TestLexIndexMatchesFTS5 checks that the in-memory index ranks as FTS5
// does, rank for rank and in the same order, for random queries over
// several scopes, after updates, tombstones, forgets and a clear, built at
// open, kept in step by the writer, and built while writes went on.
func TestLexIndexMatchesFTS5(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "m.db")
	logger := slog.New(slog.NewTextHandler(t.Output(), nil))
	db, err := Open(ctx, path, Options{Synchronous: "NORMAL", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	rng := rand.New(rand.NewPCG(1, 2))
	scopes := []mnemo.Scope{{TenantID: "t", AgentID: "big"}, {TenantID: "t", AgentID: "small"}, {TenantID: "u", AgentID: "big"}}
	// The big scope has common terms (commonTermMatches); the race
	// detector makes SQLite ten times slower, so it gets a smaller store.
	sizes, queries := []int{2600, 400, 300}, 300
	if raceEnabled {
		sizes, queries = []int{900, 150, 100}, 40
	}
	id := 0
	write := func(sc mnemo.Scope, recs []mnemo.Record) {
		t.Helper()
		for len(recs) > 0 {
			n := min(500, len(recs))
			if _, err := db.Write(ctx, sc, recs[:n]); err != nil {
				t.Fatal(err)
			}
			recs = recs[n:]
		}
	}
	for i, sc := range scopes {
		var recs []mnemo.Record
		for j := range sizes[i] {
			key := ""
			if j%3 == 0 {
				key = fmt.Sprintf("/k/%d", j)
			}
			recs = append(recs, lexRecord(rng, id, key))
			id++
		}
		write(sc, recs)
	}
	waitLex(t, db)
	compareLex(t, db, scopes, rng, queries, "written")

	// Kept in step: keys rewritten, tombstoned, memories forgotten, a scope
	// cleared.
	var recs []mnemo.Record
	for j := 0; j < sizes[0]/4; j += 3 {
		recs = append(recs, lexRecord(rng, id, fmt.Sprintf("/k/%d", j)))
		id++
	}
	for j := sizes[0] / 4; j < sizes[0]/3; j += 3 {
		r := lexRecord(rng, id, fmt.Sprintf("/k/%d", j))
		r.Tombstone = true
		recs = append(recs, r)
		id++
	}
	write(scopes[0], recs)
	var forget []string
	for j := 1; j < sizes[0]; j += 7 {
		forget = append(forget, uuidFor(j))
	}
	if _, err := db.Forget(ctx, scopes[0], forget, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Clear(ctx, scopes[2]); err != nil {
		t.Fatal(err)
	}
	if !db.lex.fresh(ctx) {
		t.Fatal("the in-memory index was dropped by plain writes")
	}
	compareLex(t, db, scopes, rng, queries, "changed")

	// Contexts indexed again in place (REC-36), of live memories and of
	// ones tombstoned or forgotten (skipped).
	reindex := func(h *DB, sc mnemo.Scope, from, to int) {
		t.Helper()
		var ups []mnemo.ContextUpdate
		for j := from; j < to; j += 5 {
			ups = append(ups, mnemo.ContextUpdate{ID: uuidFor(j), Context: lexText(rng)})
		}
		if _, err := h.WriteContexts(ctx, sc, nil, ups); err != nil {
			t.Fatal(err)
		}
	}
	reindex(db, scopes[0], 0, sizes[0])
	compareLex(t, db, scopes, rng, queries, "contexts indexed again")

	// Written by another process (the CLI beside a server): caught up
	// from the table, with this process's writes between theirs; a
	// deletion of theirs has the index built anew.
	other, err := Open(ctx, path, Options{Synchronous: "NORMAL", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for round := range 3 {
		var mine, theirs []mnemo.Record
		for j := range 60 {
			r := lexRecord(rng, id, "")
			if j%4 == 0 {
				r = lexRecord(rng, id, fmt.Sprintf("/k/%d", 3*j)) // rewrites a key
				r.Tombstone = j%8 == 0
			}
			if j%2 == 0 {
				theirs = append(theirs, r)
			} else {
				mine = append(mine, r)
			}
			id++
		}
		if _, err := other.Write(ctx, scopes[round%2], theirs[:15]); err != nil {
			t.Fatal(err)
		}
		write(scopes[round%2], mine)
		if _, err := other.Write(ctx, scopes[1], theirs[15:]); err != nil {
			t.Fatal(err)
		}
		if round == 1 {
			reindex(other, scopes[1], sizes[0], sizes[0]+sizes[1])
		}
		if round == 2 {
			if _, err := other.Forget(ctx, scopes[1], []string{uuidFor(id - 1), uuidFor(id - 3)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		waitLex(t, db)
		compareLex(t, db, scopes, rng, queries/4, fmt.Sprintf("written by another process, round %d", round))
	}

	// Built while writes go on: what commits during the build is replayed.
	db.lex.reset()
	for i := range 4 {
		var recs []mnemo.Record
		for j := range sizes[2] / 3 {
			recs = append(recs, lexRecord(rng, id, fmt.Sprintf("/k/%d", 3*(sizes[2]/3*i+j))))
			id++
		}
		write(scopes[i%2], recs)
	}
	waitLex(t, db)
	compareLex(t, db, scopes, rng, queries, "written during a build")

	// Built at open from the memories table.
	db.Close()
	if db, err = Open(ctx, path, Options{Synchronous: "NORMAL", Logger: logger}); err != nil {
		t.Fatal(err)
	}
	waitLex(t, db)
	compareLex(t, db, scopes, rng, queries, "reopened")
}

// compareLex compares the in-memory index with FTS5: its counts with
// FTS5's averages record, its rankings with FTS5's for OR and AND queries,
// and whole searches, filters and prefixes included.
func compareLex(t *testing.T, db *DB, scopes []mnemo.Scope, rng *rand.Rand, queries int, when string) {
	t.Helper()
	ctx := t.Context()
	var avg []byte
	if err := db.reader.QueryRowContext(ctx, `SELECT block FROM memories_fts_data WHERE id = 1`).Scan(&avg); err != nil {
		t.Fatal(err)
	}
	db.lex.mu.RLock()
	err := checkAverages(avg, db.lex.rows, db.lex.tokens)
	db.lex.mu.RUnlock()
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	checkFTSStats(t, db, when)
	words := append(slices.Clone(lexWords), "absent", "ELDER", "Café")
	pick := func() []string {
		var out []string
		for range 1 + rng.IntN(5) {
			f := rng.Float64()
			w := words[int(f*float64(len(words)))]
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
		return out
	}
	ranked, searched := 0, 0
	for i := range queries {
		sc := scopes[i%len(scopes)]
		sp, err := db.scopeSpan(ctx, sc)
		if err != nil {
			t.Fatal(err)
		}
		terms := pick()
		for _, op := range []lexJoin{lexOr, lexAnd, lexPairs} {
			q := mnemo.TextQuery{Terms: terms}
			if op == lexPairs && len(terms) < 3 {
				continue
			}
			n := []int{1, 5, 20, 100, 5000}[rng.IntN(5)]
			got, ok := db.lex.rank(sp, lexQuery{terms: terms, op: op}, n)
			var toks int
			for _, term := range terms {
				if _, ok := lexQueryTerm(term); ok {
					toks++
				}
			}
			if !ok {
				if toks == len(terms) {
					t.Fatalf("%s: rank(%q) could not answer", when, terms)
				}
				continue
			}
			want, err := db.rankFTS(ctx, sp, &q, op, n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %q joined by %d, %d wanted:\n in memory %v\n FTS5      %v", when, terms, op, n, got, want)
			}
			ranked++
		}

		q := mnemo.TextQuery{Terms: terms, Limit: []int{1, 10, 50}[rng.IntN(3)], MatchAll: rng.IntN(5) == 0}
		switch rng.IntN(4) {
		case 1:
			q.Filter.MinConfidence = 0.5
		case 2:
			q.Filter.Types = []string{mnemo.TypeEvent}
		}
		if rng.IntN(6) == 0 {
			q.Prefixes = []string{"ap"}
		}
		// The Write Guard's near-duplicate search too (memory/guard.go):
		// every term, the best one or five, no filter but the time.
		guard := mnemo.TextQuery{Terms: terms, Limit: []int{1, 5}[rng.IntN(2)], MatchAll: true,
			Filter: mnemo.Filter{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}}
		for _, q := range []mnemo.TextQuery{q, guard} {
			mem, err := db.Search(ctx, sc, q)
			if err != nil {
				t.Fatal(err)
			}
			var fts mnemo.SearchResult
			withoutLex(db, func() { fts, err = db.Search(ctx, sc, q) })
			if err != nil {
				t.Fatal(err)
			}
			if len(mem.Hits) != len(fts.Hits) {
				t.Fatalf("%s: Search(%+v): %d hits in memory, %d from FTS5", when, q, len(mem.Hits), len(fts.Hits))
			}
			for k := range mem.Hits {
				if m, f := mem.Hits[k], fts.Hits[k]; m.Memory.ID != f.Memory.ID || m.Lexical != f.Lexical {
					t.Fatalf("%s: Search(%+v) hit %d: %s %v in memory, %s %v from FTS5", when, q, k, m.Memory.ID, m.Lexical, f.Memory.ID, f.Lexical)
				}
			}
			searched += len(mem.Hits)
		}
	}
	if ranked < queries || searched == 0 {
		t.Fatalf("%s: only %d rankings compared, %d hits searched", when, ranked, searched)
	}
}

// TestLexTokensAsFTS5 checks lexTokens against FTS5's own tokenizer: for
// each text it is sure of, the same tokens in the same order.
func TestLexTokensAsFTS5(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE f USING fts5 (a, content = '', tokenize = 'unicode61 remove_diacritics 0')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(f, instance)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		text string
		sure bool
	}{
		{"plain words here", true},
		{"MiXeD Case ASCII", true},
		{"x-ray o'neil snake_case v1.2 2026 a+b=c", true},
		{"  leading   and trailing  ", true},
		{"café naïve ÿ ß æøå", true},
		{"× ÷ ¿¡ « » — – … € ©", true},
		{"喜欢 北京 喜欢北京", true},
		{"ελλάδα москва", true},
		{"ひらがな カタカナ 한국어", true},
		{"½ ² ³ ª º", true},
		{"µ", false}, // SQLite folds it to μ
		{"emoji 😀 here", true},
		{"", true},
		{"CAFÉ", false},         // an upper-case letter outside ASCII
		{"e\u0301clair", false}, // a combining mark
		{"हिन्दी", false},       // a script SQLite's tables may class otherwise
		{"\xff bad", false},     // not UTF-8
	}
	for i, tt := range tests {
		var got []string
		ok := lexTokens(tt.text, func(tok string) bool { got = append(got, tok); return true })
		if ok != tt.sure {
			t.Errorf("lexTokens(%q) sure = %v, want %v", tt.text, ok, tt.sure)
			continue
		}
		if !ok {
			continue
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO f (rowid, a) VALUES (?, ?)`, i+1, tt.text); err != nil {
			t.Fatal(err)
		}
		rows, err := db.QueryContext(ctx, `SELECT term FROM v WHERE doc = ? ORDER BY offset`, i+1)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			want = append(want, s)
		}
		rows.Close()
		if !slices.Equal(got, want) {
			t.Errorf("lexTokens(%q) = %q, FTS5 %q", tt.text, got, want)
		}
	}
}

// BenchmarkLexIndexBuild builds the in-memory full-text index of the store
// $MNEMO_SCALE_DB (a copy: opening it may migrate it), as opening it does:
//
//	MNEMO_SCALE_DB=/copy/mnemo.db go test -run '^$' -bench LexIndexBuild -benchtime 3x ./sqlite
func BenchmarkLexIndexBuild(b *testing.B) {
	path := os.Getenv("MNEMO_SCALE_DB")
	if path == "" {
		b.Skip("MNEMO_SCALE_DB is not set")
	}
	db, err := Open(b.Context(), path, Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for b.Loop() {
		db.lex.reset()
		for !db.LexicalIndex().Ready {
			time.Sleep(time.Millisecond)
		}
	}
	st := db.LexicalIndex()
	b.ReportMetric(float64(st.Bytes)/float64(st.Rows), "bytes/memory")
}

// TestLexIndexFollowsConcurrentProcesses has two handles on one file write
// at once (a server and the CLI beside it) while the first searches: once
// the writes end, the first's in-memory index ranks as FTS5 does. Each
// write also sets earlier memories' contexts (REC-36).
func TestLexIndexFollowsConcurrentProcesses(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := Open(ctx, path, Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := Open(ctx, path, Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	scopes := []mnemo.Scope{{TenantID: "t", AgentID: "a"}, {TenantID: "t", AgentID: "b"}}
	rounds := 30
	if raceEnabled {
		rounds = 10
	}
	var wg sync.WaitGroup
	for w, h := range []*DB{db, other} {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for r := range rounds {
				var recs []mnemo.Record
				for j := range 20 {
					key := ""
					if j%3 == 0 {
						key = fmt.Sprintf("/k/%d/%d", w, rng.IntN(40))
					}
					recs = append(recs, lexRecord(rng, 100000*(w+1)+20*r+j, key))
				}
				// Earlier memories of the scope get new contexts, in
				// the same transaction (REC-36), from either process.
				var ups []mnemo.ContextUpdate
				for j := 0; r >= 2 && j < 20; j += 3 {
					ups = append(ups, mnemo.ContextUpdate{ID: uuidFor(100000*(w+1) + 20*(r-2) + j), Context: lexText(rng)})
				}
				if _, err := h.WriteContexts(ctx, scopes[r%2], recs, ups); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	stop := make(chan struct{})
	searched := make(chan struct{})
	go func() {
		defer close(searched)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := db.Search(ctx, scopes[0], mnemo.TextQuery{Terms: []string{"apple", "fig"}, Limit: 10}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-searched
	waitLex(t, db)
	compareLex(t, db, scopes, rand.New(rand.NewPCG(3, 4)), 60, "after concurrent writers")
}

// TestLexIndexCatchesUpInline checks that a search after a few writes of
// another process catches the index up itself and ranks in memory, and
// that after many it lets FTS5 answer and the index catch up behind.
func TestLexIndexCatchesUpInline(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := Open(ctx, path, Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := Open(ctx, path, Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	rng := rand.New(rand.NewPCG(5, 6))
	write := func(h *DB, n int) {
		t.Helper()
		var recs []mnemo.Record
		for range n {
			recs = append(recs, lexRecord(rng, rng.IntN(1<<30), ""))
		}
		if _, err := h.Write(ctx, scope, recs); err != nil {
			t.Fatal(err)
		}
	}
	write(db, 50)
	waitLex(t, db)
	write(other, 3)
	if !db.lex.fresh(ctx) {
		t.Fatal("after 3 writes of another process, the next search did not catch the index up")
	}
	compareLex(t, db, []mnemo.Scope{scope}, rng, 20, "caught up by a search")
	write(other, inlineCatchUp+1)
	if db.lex.fresh(ctx) {
		t.Fatalf("after %d writes of another process, the next search caught the index up itself", inlineCatchUp+1)
	}
	waitLex(t, db)
	compareLex(t, db, []mnemo.Scope{scope}, rng, 20, "caught up in the background")
}

// checkFTSStats checks the full-text statistics the writer keeps
// (fts_scopes) against the index's own record of each row's length, and
// the in-memory index's per scope against both when it is built.
func checkFTSStats(t *testing.T, db *DB, when string) {
	t.Helper()
	ctx := t.Context()
	kept := map[int64][2]int64{}
	rows, err := db.reader.QueryContext(ctx, `SELECT scope, docs, tokens FROM fts_scopes WHERE scope > 0 AND docs != 0`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, docs, tokens int64
		if err := rows.Scan(&id, &docs, &tokens); err != nil {
			t.Fatal(err)
		}
		kept[id] = [2]int64{docs, tokens}
	}
	rows.Close()
	want := map[int64][2]int64{}
	rows, err = db.reader.QueryContext(ctx, `SELECT id, sz FROM memories_fts_docsize`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var (
			id int64
			sz []byte
		)
		if err := rows.Scan(&id, &sz); err != nil {
			t.Fatal(err)
		}
		n, err := docsizeTokens(sz)
		if err != nil {
			t.Fatal(err)
		}
		st := want[id>>scopeBits]
		want[id>>scopeBits] = [2]int64{st[0] + 1, st[1] + n}
	}
	rows.Close()
	if !maps.Equal(kept, want) {
		t.Fatalf("%s: fts_scopes holds %v, the index %v", when, kept, want)
	}
	db.lex.mu.RLock()
	defer db.lex.mu.RUnlock()
	if !db.lex.ready {
		return
	}
	mem := map[int64][2]int64{}
	for id, s := range db.lex.scopes {
		if s.rows != 0 {
			mem[id] = [2]int64{s.rows, s.tokens}
		}
	}
	if !maps.Equal(mem, want) {
		t.Fatalf("%s: the in-memory index holds %v by scope, the index %v", when, mem, want)
	}
}

// fts5BM25 ranks expr in the span by FTS5's own bm25(), whose statistics
// are the whole table's: in a store of one scope, the scope's.
func fts5BM25(t *testing.T, db *DB, expr string, sp span, n int) []ranked {
	t.Helper()
	rows, err := db.reader.QueryContext(t.Context(), `SELECT rowid, `+bm25+` AS rank FROM memories_fts
		WHERE memories_fts MATCH ? AND rowid >= ? AND rowid < ?
		ORDER BY rank LIMIT ?`, expr, sp.lo, sp.hi, n)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []ranked
	for rows.Next() {
		var r ranked
		if err := rows.Scan(&r.seq, &r.rank); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
