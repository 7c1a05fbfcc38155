package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/mnemo-dev/mnemo"
)

// rankFTS ranks q's terms and prefixes, joined as op says, in the scope's
// rowid range from the full-text index itself: its token instances
// (memories_fts_instances), each row's length (memories_fts_docsize) and
// the scope's statistics (fts_scopes). It answers what lexIndex answers,
// and what it cannot (prefixes, terms it cannot be sure to split as FTS5
// does, a store it has yet to build), with the same ranks: bm25Top scores
// both. FTS5's own bm25() would rank with the whole table's statistics,
// every scope's (REC-10).
func (db *DB) rankFTS(ctx context.Context, sp span, q *mnemo.TextQuery, op lexJoin, n int) ([]ranked, error) {
	phrases := make([]ftsPhrase, 0, len(q.Terms)+len(q.Prefixes))
	for i, t := range append(slices.Clip(q.Terms), q.Prefixes...) {
		toks, err := db.ftsTokens(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
		phrases = append(phrases, ftsPhrase{tokens: toks, prefix: i >= len(q.Terms)})
	}
	if len(phrases) == 0 {
		return nil, nil
	}
	var nRow, tokens int64
	err := db.readStmts.QueryRowContext(ctx, `SELECT docs, tokens FROM fts_scopes WHERE scope = ?`, sp.lo>>scopeBits).Scan(&nRow, &tokens)
	if errors.Is(err, sql.ErrNoRows) || err == nil && nRow <= 0 {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}

	// Each phrase's rows and frequencies, by seq.
	matches := make([][]ftsMatch, len(phrases))
	for i, p := range phrases {
		if matches[i], err = db.phraseMatches(ctx, sp, p); err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
	}
	// The rows op may score: those with enough of the phrases.
	need := 1
	switch op {
	case lexAnd:
		need = len(phrases)
	case lexPairs:
		need = 2
	}
	count := map[int64]int{}
	for _, ms := range matches {
		for _, m := range ms {
			count[m.seq]++
		}
	}
	var seqs []int64
	for seq, c := range count {
		if c >= need {
			seqs = append(seqs, seq)
		}
	}
	if len(seqs) == 0 {
		return nil, nil
	}
	slices.Sort(seqs)
	lens, err := db.docLengths(ctx, sp, seqs, 4*len(seqs) > int(nRow))
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	// Document numbers in seq order, so that each list is sorted by them.
	num := make(map[int64]uint32, len(seqs))
	for i, seq := range seqs {
		num[seq] = uint32(i)
	}
	hits := make([]int64, len(phrases))
	lists := make([][]lexPosting, len(phrases))
	for i, ms := range matches {
		hits[i] = int64(len(ms))
		for _, m := range ms {
			if d, ok := num[m.seq]; ok {
				lists[i] = append(lists[i], lexPosting{doc: d, tf: m.tf})
			}
		}
	}
	doc := func(d uint32) (int64, int32) { return seqs[d], lens[d] }
	return bm25Top(nRow, tokens, hits, lists, op, doc, n), nil
}

// ftsPhrase is a query term or prefix as FTS5 reads it: the tokens its
// tokenizer makes of it, the last a prefix of a token if prefix is set.
type ftsPhrase struct {
	tokens []string
	prefix bool
}

// ftsMatch is a row holding a phrase, with the phrase's frequency in
// each column.
type ftsMatch struct {
	seq int64
	tf  [3]uint16
}

// ftsColumn returns the number of a column of memories_fts, by name.
func ftsColumn(name string) (int, error) {
	switch name {
	case "text":
		return 0, nil
	case "context":
		return 1, nil
	case "meta":
		return 2, nil
	}
	return 0, fmt.Errorf("full-text column %q", name)
}

// phraseMatches returns the rows of the span holding p, by seq: where its
// tokens stand one after the other in one column, as FTS5 matches a
// phrase, each place counted once.
func (db *DB) phraseMatches(ctx context.Context, sp span, p ftsPhrase) ([]ftsMatch, error) {
	if len(p.tokens) == 0 {
		return nil, nil
	}
	if len(p.tokens) == 1 && !p.prefix {
		return db.tokenMatches(ctx, sp, p.tokens[0])
	}
	type place struct {
		seq int64
		col int
	}
	// at[i] holds the offsets of token i, by row and column.
	at := make([]map[place][]int32, len(p.tokens))
	for i, tok := range p.tokens {
		cond, args := `term = ?`, []any{tok}
		if p.prefix && i == len(p.tokens)-1 {
			// Every token starting with tok: the range up to tok with its
			// last byte one higher (UTF-8 has no 0xFF byte).
			upper := []byte(tok)
			upper[len(upper)-1]++
			cond, args = `term >= ? AND term < ?`, []any{tok, string(upper)}
		}
		rows, err := db.readStmts.QueryContext(ctx, `SELECT doc, col, offset FROM memories_fts_instances
			WHERE `+cond+` AND doc >= ? AND doc < ?`, append(args, sp.lo, sp.hi)...)
		if err != nil {
			return nil, err
		}
		m := map[place][]int32{}
		for rows.Next() {
			var (
				seq int64
				col string
				off int32
			)
			if err := rows.Scan(&seq, &col, &off); err != nil {
				rows.Close()
				return nil, err
			}
			c, err := ftsColumn(col)
			if err != nil {
				rows.Close()
				return nil, err
			}
			k := place{seq, c}
			m[k] = append(m[k], off)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		for _, offs := range m {
			slices.Sort(offs) // a prefix's tokens come one after another
		}
		at[i] = m
	}
	bySeq := map[int64]*ftsMatch{}
	for k, offs := range at[0] {
		n := 0
		for _, o := range offs {
			whole := true
			for i := 1; i < len(at) && whole; i++ {
				_, whole = slices.BinarySearch(at[i][k], o+int32(i))
			}
			if whole {
				n++
			}
		}
		if n == 0 {
			continue
		}
		m := bySeq[k.seq]
		if m == nil {
			m = &ftsMatch{seq: k.seq}
			bySeq[k.seq] = m
		}
		m.tf[k.col] = uint16(min(n, 1<<16-1))
	}
	out := make([]ftsMatch, 0, len(bySeq))
	for _, m := range bySeq {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b ftsMatch) int { return cmp.Compare(a.seq, b.seq) })
	return out, nil
}

// tokenMatches is phraseMatches for a phrase of one token, tok: its
// instances come by row, then column, so they are counted as they come.
func (db *DB) tokenMatches(ctx context.Context, sp span, tok string) ([]ftsMatch, error) {
	rows, err := db.readStmts.QueryContext(ctx, `SELECT doc, col FROM memories_fts_instances
		WHERE term = ? AND doc >= ? AND doc < ?`, tok, sp.lo, sp.hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		out []ftsMatch
		seq int64
		col string
	)
	for rows.Next() {
		if err := rows.Scan(&seq, &col); err != nil {
			return nil, err
		}
		c, err := ftsColumn(col)
		if err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].seq != seq {
			if len(out) > 0 && out[len(out)-1].seq > seq {
				return nil, errors.New("full-text instances out of order")
			}
			out = append(out, ftsMatch{seq: seq})
		}
		if tf := &out[len(out)-1].tf[c]; *tf < 1<<16-1 {
			*tf++
		}
	}
	return out, rows.Err()
}

// docLengths returns the tokens the full-text index holds for each row at
// seqs, all columns; -1 for a row it does not hold. With scan set it reads
// the whole span in order, cheaper than a lookup each when seqs are many of
// its rows.
func (db *DB) docLengths(ctx context.Context, sp span, seqs []int64, scan bool) ([]int32, error) {
	var (
		rows *sql.Rows
		err  error
	)
	if scan {
		rows, err = db.readStmts.QueryContext(ctx, `SELECT id, sz FROM memories_fts_docsize WHERE id >= ? AND id < ?`, sp.lo, sp.hi)
	} else {
		list := make([]byte, 0, 12*len(seqs)+2)
		list = append(list, '[')
		for i, s := range seqs {
			if i > 0 {
				list = append(list, ',')
			}
			list = strconv.AppendInt(list, s, 10)
		}
		list = append(list, ']')
		rows, err = db.readStmts.QueryContext(ctx, `SELECT d.id, d.sz
			FROM json_each(?) AS j CROSS JOIN memories_fts_docsize d ON d.id = j.value`, string(list))
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	// Rows come by id, as seqs are sorted.
	out := make([]int32, len(seqs))
	for i := range out {
		out[i] = -1
	}
	i := 0
	for rows.Next() {
		var (
			seq int64
			sz  []byte
		)
		if err := rows.Scan(&seq, &sz); err != nil {
			return nil, err
		}
		for i < len(seqs) && seqs[i] < seq {
			i++
		}
		if i == len(seqs) {
			break
		}
		if seqs[i] != seq {
			continue
		}
		n, err := docsizeTokens(sz)
		if err != nil {
			return nil, fmt.Errorf("memory %d: %w", seq, err)
		}
		out[i] = int32(min(n, 1<<31-1))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ftsTokens returns the tokens FTS5's tokenizer makes of s: lexTokens's
// when it is sure of them, else the tokenizer's own, from a table in
// memory (ftsTokenizer).
func (db *DB) ftsTokens(ctx context.Context, s string) ([]string, error) {
	var toks []string
	if lexTokens(s, func(t string) bool { toks = append(toks, t); return true }) {
		return toks, nil
	}
	return db.tokenizer.tokens(ctx, s)
}

// ftsTokenizer splits text as memories_fts does: with an FTS5 table of the
// same tokenizer in an in-memory database of its own, which reads and
// writes nothing of the store.
type ftsTokenizer struct {
	mu   sync.Mutex
	db   *sql.DB
	conn *sql.Conn // the one connection: the in-memory database is its own
	// terms keeps the tokens of short texts (query terms, which come again
	// and again), up to tokenizerTerms of them.
	terms map[string][]string
}

const (
	tokenizerTerms    = 4096
	tokenizerTermSize = 64 // bytes: longer texts are not kept
)

func (t *ftsTokenizer) tokens(ctx context.Context, s string) ([]string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if toks, ok := t.terms[s]; ok {
		return toks, nil
	}
	if t.conn == nil {
		if err := t.open(ctx); err != nil {
			return nil, fmt.Errorf("tokenizer: %w", err)
		}
	}
	// The table holds one row, replaced each time.
	if _, err := t.conn.ExecContext(ctx, `INSERT OR REPLACE INTO f (rowid, a) VALUES (1, ?)`, s); err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	rows, err := t.conn.QueryContext(ctx, `SELECT term FROM v WHERE doc = 1 ORDER BY offset`)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	defer rows.Close()
	var toks []string
	for rows.Next() {
		var tok string
		if err := rows.Scan(&tok); err != nil {
			return nil, fmt.Errorf("tokenizer: %w", err)
		}
		toks = append(toks, tok)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	if len(s) <= tokenizerTermSize {
		if len(t.terms) >= tokenizerTerms || t.terms == nil {
			t.terms = make(map[string][]string)
		}
		t.terms[s] = slices.Clip(toks)
	}
	return toks, nil
}

func (t *ftsTokenizer) open(ctx context.Context) error {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return err
	}
	for _, q := range []string{
		`CREATE VIRTUAL TABLE f USING fts5 (a, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(f, instance)`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			conn.Close()
			db.Close()
			return err
		}
	}
	t.db, t.conn = db, conn
	return nil
}

func (t *ftsTokenizer) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn != nil {
		t.conn.Close()
		t.db.Close()
		t.conn, t.db = nil, nil
	}
}
