package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"modernc.org/libc"

	"github.com/mnemo-dev/mnemo"
)

// lexIndex is the full-text index again, in memory: a posting list per
// term and scope, every document's length, and each scope's counts.
// Ranking from FTS5's own records reads each matching row's length from a
// b-tree, which was most of the lexical stage of recall on a large store
// (PERF-2, PERF-10). lexIndex ranks the same rows with FTS5's bm25 over
// the scope's statistics (REC-10), bit for bit as rankFTS does (bm25Top
// scores both), so Search's answers do not depend on which answers.
//
// It mirrors FTS5 rather than replacing it: FTS5 stays the index of record,
// and rankFTS answers every query lexIndex cannot (prefixes, terms whose
// tokens it cannot be sure to split as unicode61 does) and every query
// until lexIndex is built. It is built in the background when the store
// opens, from the index text in the memories table, and checked against
// FTS5's own row and token counts; text it cannot be sure to split is
// split by SQLite's own tokenizer (ftsTokenizer). The single writer keeps
// it in step after each commit. A change it cannot follow one row at a
// time (a forget, a clear, an index rebuild, a schema change) has it built
// anew.
type lexIndex struct {
	db *DB

	// wmu orders the writer's commits with the start of a build: the
	// writer holds it from commit to apply, a build while it takes its
	// snapshot and starts logging.
	wmu sync.Mutex

	mu      sync.RWMutex
	ready   bool    // built and in step: rank may answer
	logging bool    // a build is under way: log what commits meanwhile
	log     []lexOp // committed since the build's snapshot
	schema  int64   // the schema version the index was built at

	// seen is the history seq up to which the index holds every write:
	// each write appends to history, this process's and another's (the
	// CLI beside a server, API-16) alike. A write of this process whose
	// history follows seen advances it; one of another process leaves a
	// gap, which catchUp fills from the table.
	seen     int64
	catching bool // a catch-up is under way

	rows   int64             // live documents, all scopes: FTS5's row count
	tokens int64             // their tokens, all columns
	terms  map[string]uint32 // term ids, never reused
	scopes map[int64]*lexScope

	// builds counts builds started, so that a stale one gives way; stop
	// cancels the latest.
	builds  int
	stop    context.CancelFunc
	wg      sync.WaitGroup
	closing bool

	// bound keeps a build's garbage from growing the heap to twice its
	// live part, the ANN index's included: after a reopen of a large store
	// the runtime would otherwise hold far more than is live (PERF-12).
	bound heapBound
}

// lexScope holds the documents of one scope (one rowid range). Document
// numbers are given in insertion order, so each posting list is sorted by
// them; an update gives the row a new number and leaves the old postings
// dead until the scope is compacted.
type lexScope struct {
	post map[uint32]*lexPosts
	docs []lexDoc
	// bySeq is the document number + 1 of each seq of the scope by its
	// low bits, 0 for none: seqs are given in order, so this is dense, and
	// a quarter of a map's memory.
	bySeq []uint32
	arena []uint32 // where the next documents' term lists go
	// live counts live postings, dead those of removed documents.
	live, dead int
	// rows and tokens are the scope's live documents and their tokens,
	// all columns: its BM25 statistics, with each term's live count.
	rows, tokens int64
}

type lexPosts struct {
	p    []lexPosting
	live int32 // live documents of the scope with the term
}

// lexPosting is one document's frequencies of a term, by column.
type lexPosting struct {
	doc uint32
	tf  [3]uint16
}

type lexDoc struct {
	seq   int64
	len   int32    // tokens, all columns; -1 once removed
	dated bool     // says when it happened: Filter.Dated selects it (REC-29)
	terms []uint32 // distinct, for removal
}

// lexOp is a committed change to one row of the full-text index: its new
// index text, or its removal.
type lexOp struct {
	seq   int64 // -1: no row, only history
	del   bool
	dated bool      // occurred_source is text or writer (REC-29)
	text  [3]string // text, context, meta
	// history is the span of history seqs of the write, on its last op.
	history historySpan
}

// BM25 of FTS5 with Search's column weights (bm25 in search.go).
var lexWeights = [3]float64{1.0, 0.35, 0.6}

func newLexIndex(db *DB) *lexIndex {
	return &lexIndex{db: db, bound: heapBound{headroom: buildHeadroom}}
}

// start builds the index in the background.
func (ix *lexIndex) start() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.startLocked()
}

func (ix *lexIndex) startLocked() {
	if ix.closing {
		return
	}
	if ix.stop != nil {
		ix.stop()
	}
	ix.builds++
	ix.ready, ix.logging, ix.log = false, false, nil
	ix.terms, ix.scopes = nil, nil
	gen := ix.builds
	ctx, stop := context.WithCancel(context.Background())
	ix.stop = stop
	ix.wg.Add(1)
	go func() {
		defer ix.wg.Done()
		defer stop()
		if err := ix.build(ctx, gen); err != nil && ctx.Err() == nil && !errors.Is(err, errLexStale) {
			ix.db.logger.Warn("in-memory full-text index not built; the full-text index ranks every search", "err", err)
		}
	}()
}

// close stops a build and waits for it.
func (ix *lexIndex) close() {
	ix.mu.Lock()
	ix.closing = true
	ix.ready = false
	if ix.stop != nil {
		ix.stop()
	}
	ix.mu.Unlock()
	ix.wg.Wait()
}

// reset drops the index and builds it again: the full-text index was
// rebuilt, or its schema changed.
func (ix *lexIndex) reset() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.builds > 0 { // else Open has yet to start the first
		ix.startLocked()
	}
}

// fresh reports whether the index may answer: it is built, and the schema
// has not changed since (the full-text table dropped or rebuilt behind the
// store's back). A changed schema has it built anew.
func (ix *lexIndex) fresh(ctx context.Context) bool {
	ix.mu.RLock()
	ready, schema := ix.ready, ix.schema
	ix.mu.RUnlock()
	if !ready {
		return false
	}
	var now, top int64
	if err := ix.db.readStmts.QueryRowContext(ctx, `SELECT schema_version, `+historyTop+` FROM pragma_schema_version`).Scan(&now, &top); err != nil {
		return false
	}
	if now != schema {
		ix.reset()
		return false
	}
	ix.mu.RLock()
	seen, ready := ix.seen, ix.ready
	ix.mu.RUnlock()
	if top <= seen {
		return ready
	}
	// Written since by another process, or by this one between its commit
	// and apply. A few writes are caught up here, unless this process's
	// writer is committing (a search does not wait for it, PERF-11);
	// else the full-text index answers until the index has caught up in the background.
	if top-seen <= inlineCatchUp && ix.wmu.TryLock() {
		err := ix.catchUpLocked(ctx)
		ix.wmu.Unlock()
		if err != nil {
			ix.db.logger.Warn("in-memory full-text index not caught up; building it again", "err", err)
			ix.reset()
			return false
		}
		ix.mu.RLock()
		seen, ready = ix.seen, ix.ready
		ix.mu.RUnlock()
		if top <= seen {
			return ready
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.catching && !ix.closing {
		ix.catching = true
		ix.wg.Add(1)
		go func() {
			defer ix.wg.Done()
			if err := ix.catchUp(context.Background()); err != nil {
				ix.db.logger.Warn("in-memory full-text index not caught up; building it again", "err", err)
				ix.reset()
			}
		}()
	}
	return false
}

// inlineCatchUp is the most history entries a search catches up itself.
const inlineCatchUp = 64

// historyTop is the history seq of the last write committed: AUTOINCREMENT
// keeps it in sqlite_sequence.
const historyTop = `coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'history'), 0)`

// catchUp brings the index in step with the writes of other processes
// since seen: it applies each written memory's row as the table holds it
// now. A deletion by another process has the index built anew, as the
// rows it removed are gone from the table.
func (ix *lexIndex) catchUp(ctx context.Context) error {
	defer func() {
		ix.mu.Lock()
		ix.catching = false
		ix.mu.Unlock()
	}()
	ix.wmu.Lock()
	defer ix.wmu.Unlock()
	return ix.catchUpLocked(ctx)
}

// catchUpLocked is catchUp with wmu held: no write of this process
// commits meanwhile, so each history seq up to top is another process's
// or already applied.
func (ix *lexIndex) catchUpLocked(ctx context.Context) error {
	tx, err := ix.db.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ix.mu.RLock()
	seen, ready := ix.seen, ix.ready
	ix.mu.RUnlock()
	if !ready {
		return nil // a build is under way, and reads what it needs
	}
	var top int64
	if err := tx.QueryRowContext(ctx, `SELECT `+historyTop).Scan(&top); err != nil {
		return err
	}
	if top <= seen {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT h.op, m.seq, m.tombstone, m.index_text, m.index_context, m.index_meta,
		m.occurred_source IN ('`+mnemo.OccurredText+`', '`+mnemo.OccurredWriter+`')
		FROM history h LEFT JOIN memories m ON m.id = h.memory_id
		WHERE h.seq > ? AND h.seq <= ? AND h.applied = 1 ORDER BY h.seq`, seen, top)
	if err != nil {
		return err
	}
	defer rows.Close()
	var ops []lexOp
	for rows.Next() {
		var (
			op        string
			seq       sql.NullInt64
			tombstone sql.NullBool
			text      [3]sql.NullString
			dated     sql.NullBool
		)
		if err := rows.Scan(&op, &seq, &tombstone, &text[0], &text[1], &text[2], &dated); err != nil {
			return err
		}
		if op == mnemo.OpForget || op == mnemo.OpClear {
			rows.Close()
			ix.reset()
			return nil
		}
		if !seq.Valid {
			continue // deleted since: its deletion's entry follows
		}
		o := lexOp{seq: seq.Int64, del: tombstone.Bool, dated: dated.Bool}
		for i := range text {
			o.text[i] = text[i].String
		}
		ops = append(ops, o)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.ready || ix.seen != seen {
		return nil // built anew meanwhile
	}
	for i := range ops {
		if err := ix.applyLocked(&ops[i]); err != nil {
			ix.ready = false
			return err
		}
	}
	ix.seen = top
	return nil
}

// errLexStale is returned by a build that a newer one replaced.
var errLexStale = errors.New("superseded by a newer build")

// build reads every indexed row in one read transaction, then replays the
// writes committed since its snapshot.
func (ix *lexIndex) build(ctx context.Context, gen int) error {
	ix.db.vectors.awaitBulk(ctx)
	tx, err := ix.db.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()

	// The snapshot is taken by the first read; no commit may fall between
	// it and the start of the log.
	var (
		avg    []byte
		schema int64
	)
	ix.wmu.Lock()
	ok, err := ix.db.ftsExists(ctx, tx)
	if err != nil || !ok {
		ix.wmu.Unlock()
		return err // no FTS5 table: Search is degraded, and says so
	}
	var seen int64
	err = tx.QueryRowContext(ctx, `SELECT block FROM memories_fts_data WHERE id = 1`).Scan(&avg)
	if err == nil {
		err = tx.QueryRowContext(ctx, `SELECT schema_version, `+historyTop+` FROM pragma_schema_version`).Scan(&schema, &seen)
	}
	if err == nil {
		ix.mu.Lock()
		if ix.builds == gen {
			ix.logging = true
		} else {
			err = errLexStale
		}
		ix.mu.Unlock()
	}
	ix.wmu.Unlock()
	if err != nil {
		return err
	}

	nb := &lexIndex{terms: make(map[string]uint32), scopes: make(map[int64]*lexScope)}
	// NOT INDEXED reads the table in rowid order: the planner would take a
	// partial index of live rows and seek each row from it.
	rows, err := tx.QueryContext(ctx, `SELECT seq, index_text, index_context, index_meta,
		occurred_source IN ('`+mnemo.OccurredText+`', '`+mnemo.OccurredWriter+`')
		FROM memories NOT INDEXED WHERE tombstone = 0`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var op lexOp
	for n := 1; rows.Next(); n++ {
		if err := rows.Scan(&op.seq, &op.text[0], &op.text[1], &op.text[2], &op.dated); err != nil {
			return err
		}
		if n%1024 == 0 {
			ix.bound.check()
		}
		d, err := ix.docTerms(ctx, &op)
		if err != nil {
			return fmt.Errorf("memory %d: %w", op.seq, err)
		}
		nb.insert(op.seq, op.dated, d)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := checkAverages(avg, nb.rows, nb.tokens); err != nil {
		return err
	}
	// The statistics the writer keeps, against the index just counted:
	// a process of a version that kept none may have written since the
	// store was migrated (REC-10).
	kept, err := keptFTSStats(ctx, tx)
	if err != nil {
		return err
	}
	tx.Rollback()
	if !nb.statsEqual(kept) {
		ix.db.logger.Warn("full-text statistics of the scopes differ from the index; counting them again")
		if err := ix.db.refillFTSStats(ctx, true); err != nil {
			return err
		}
	}

	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.builds != gen || ix.closing {
		return errLexStale
	}
	ix.rows, ix.tokens, ix.terms, ix.scopes = nb.rows, nb.tokens, nb.terms, nb.scopes
	ix.schema, ix.seen = schema, seen
	for i := range ix.log {
		if err := ix.applyLocked(&ix.log[i]); err != nil {
			ix.logging, ix.log = false, nil
			return err
		}
		ix.follow(&ix.log[i])
	}
	ix.logging, ix.log = false, nil
	ix.ready = true
	return nil
}

// statsEqual reports whether kept holds each scope's rows and tokens as
// the index counts them.
func (ix *lexIndex) statsEqual(kept map[int64][2]int64) bool {
	n := 0
	for id, s := range ix.scopes {
		if s.rows == 0 && s.tokens == 0 {
			continue
		}
		if kept[id] != [2]int64{s.rows, s.tokens} {
			return false
		}
		n++
	}
	return n == len(kept)
}

// checkAverages compares the index's counts with FTS5's averages record: a
// varint row count, then a varint token count a column.
func checkAverages(rec []byte, rows, tokens int64) error {
	if len(rec) == 0 { // nothing indexed yet
		return checkCounts(0, 0, rows, tokens)
	}
	n, k := ftsVarint(rec)
	if k == 0 {
		return errors.New("unreadable FTS5 averages record")
	}
	rec = rec[k:]
	var total uint64
	for range 3 {
		t, k := ftsVarint(rec)
		if k == 0 {
			return errors.New("unreadable FTS5 averages record")
		}
		total += t
		rec = rec[k:]
	}
	return checkCounts(int64(n), int64(total), rows, tokens)
}

func checkCounts(ftsRows, ftsTokens, rows, tokens int64) error {
	if ftsRows != rows || ftsTokens != tokens {
		return fmt.Errorf("FTS5 holds %d rows of %d tokens, the memories table %d of %d", ftsRows, ftsTokens, rows, tokens)
	}
	return nil
}

// apply brings the index in step with ops, just committed by a write whose
// history entries are (h.from, h.to]. The caller holds wmu from before the
// commit.
func (ix *lexIndex) apply(ops []lexOp, h historySpan) {
	// The span goes with the last op, or alone: a write may change no
	// indexed text and still take history seqs.
	ops = append(ops, lexOp{seq: -1, history: h})
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.logging {
		ix.log = append(ix.log, ops...)
	}
	if !ix.ready {
		return
	}
	for i := range ops {
		if err := ix.applyLocked(&ops[i]); err != nil {
			ix.ready = false
			ix.db.logger.Warn("in-memory full-text index dropped; the full-text index ranks every search", "err", err)
			return
		}
		ix.follow(&ops[i])
	}
}

// historySpan is the history seqs a write took: (from, to].
type historySpan struct{ from, to int64 }

// follow advances seen past op's write when it follows seen: else another
// process wrote between, and seen stays for catchUp to fill the gap.
func (ix *lexIndex) follow(op *lexOp) {
	if h := op.history; h.to > h.from && h.from == ix.seen {
		ix.seen = h.to
	}
}

// applyLocked applies op.
func (ix *lexIndex) applyLocked(op *lexOp) error {
	if op.seq < 0 {
		return nil // a write's history span alone
	}
	ix.remove(op.seq)
	if op.del {
		return nil
	}
	d, err := ix.docTerms(context.Background(), op)
	if err != nil {
		return fmt.Errorf("memory %d: %w", op.seq, err)
	}
	ix.insert(op.seq, op.dated, d)
	return nil
}

// docTerms returns op's terms: analyzeDoc's when it is sure of them, else
// those of SQLite's own tokenizer (ftsTokenizer), a little slower.
func (ix *lexIndex) docTerms(ctx context.Context, op *lexOp) ([]lexTerm, error) {
	if d, ok := analyzeDoc(op); ok {
		return d, nil
	}
	var terms []lexTerm
	for c, text := range op.text {
		toks, err := ix.db.tokenizer.tokens(ctx, text)
		if err != nil {
			return nil, err
		}
		for _, tok := range toks {
			i := slices.IndexFunc(terms, func(t lexTerm) bool { return t.term == tok })
			if i < 0 {
				i = len(terms)
				terms = append(terms, lexTerm{term: tok})
			}
			if terms[i].tf[c] == 1<<16-1 {
				return nil, errors.New("a term more than 65,535 times in one column")
			}
			terms[i].tf[c]++
		}
	}
	return terms, nil
}

// lexTerm is one distinct term of a document and its frequencies.
type lexTerm struct {
	term string
	tf   [3]uint16
}

// insert adds the document at seq, which the index must not hold.
func (ix *lexIndex) insert(seq int64, dated bool, terms []lexTerm) {
	s := ix.scopes[seq>>scopeBits]
	if s == nil {
		s = &lexScope{post: make(map[uint32]*lexPosts)}
		ix.scopes[seq>>scopeBits] = s
	}
	doc := uint32(len(s.docs))
	// The documents' term lists share blocks: one allocation for many.
	if cap(s.arena)-len(s.arena) < len(terms) {
		s.arena = make([]uint32, 0, max(4096, len(terms)))
	}
	d := lexDoc{seq: seq, dated: dated, terms: s.arena[len(s.arena) : len(s.arena)+len(terms) : len(s.arena)+len(terms)]}
	s.arena = s.arena[:len(s.arena)+len(terms)]
	for i, t := range terms {
		id, ok := ix.terms[t.term]
		if !ok {
			id = uint32(len(ix.terms))
			ix.terms[t.term] = id
		}
		p := s.post[id]
		if p == nil {
			p = &lexPosts{}
			s.post[id] = p
		}
		p.p = append(p.p, lexPosting{doc: doc, tf: t.tf})
		p.live++
		d.terms[i] = id
		d.len += int32(t.tf[0]) + int32(t.tf[1]) + int32(t.tf[2])
	}
	s.docs = append(s.docs, d)
	local := int(seq & (1<<scopeBits - 1))
	if local >= len(s.bySeq) {
		s.bySeq = slices.Grow(s.bySeq, local+1-len(s.bySeq))[:local+1]
	}
	s.bySeq[local] = doc + 1
	s.live += len(terms)
	ix.rows++
	ix.tokens += int64(d.len)
	s.rows++
	s.tokens += int64(d.len)
}

// remove drops the document at seq, if the index holds it.
func (ix *lexIndex) remove(seq int64) {
	s := ix.scopes[seq>>scopeBits]
	if s == nil {
		return
	}
	local := int(seq & (1<<scopeBits - 1))
	if local >= len(s.bySeq) || s.bySeq[local] == 0 {
		return
	}
	d := &s.docs[s.bySeq[local]-1]
	for _, id := range d.terms {
		s.post[id].live--
	}
	ix.rows--
	ix.tokens -= int64(d.len)
	s.rows--
	s.tokens -= int64(d.len)
	s.live -= len(d.terms)
	s.dead += len(d.terms)
	d.len, d.terms = -1, nil
	s.bySeq[local] = 0
	if s.dead > 1024 && s.dead > s.live {
		s.compact()
	}
}

// compact drops the postings of removed documents.
func (s *lexScope) compact() {
	for id, p := range s.post {
		if p.live == 0 {
			delete(s.post, id)
			continue
		}
		p.p = slices.DeleteFunc(p.p, func(e lexPosting) bool { return s.docs[e.doc].len < 0 })
		p.p = slices.Clip(p.p)
	}
	s.dead = 0
}

// analyzeDoc splits op's three columns into terms, as FTS5's unicode61
// tokenizer (remove_diacritics 0) does, or reports false if it cannot be
// sure to.
func analyzeDoc(op *lexOp) ([]lexTerm, bool) {
	terms := make([]lexTerm, 0, 32)
	for c, text := range op.text {
		ok := lexTokens(text, func(tok string) bool {
			// A memory has a few dozen distinct terms: a scan is cheaper
			// than a map.
			i := slices.IndexFunc(terms, func(t lexTerm) bool { return t.term == tok })
			if i < 0 {
				i = len(terms)
				terms = append(terms, lexTerm{term: tok})
			}
			if terms[i].tf[c] == 1<<16-1 {
				return false
			}
			terms[i].tf[c]++
			return true
		})
		if !ok {
			return nil, false
		}
	}
	return terms, true
}

// lexTokens calls yield with each token of s as FTS5's unicode61 tokenizer
// (remove_diacritics 0) gives it: runs of letters, digits and private-use
// characters, folded to lower case. It reports false when s holds a
// character whose class or case SQLite's Unicode tables may give otherwise
// than Go's (a newer script, a combining mark, an upper-case letter
// outside ASCII), or when yield does.
func lexTokens(s string, yield func(string) bool) bool {
	start := -1
	var folded []byte // set when an ASCII capital needs folding
	flush := func(end int) bool {
		if start < 0 {
			return true
		}
		tok := s[start:end]
		if folded != nil {
			tok = string(folded)
			folded = folded[:0]
			folded = nil
		}
		start = -1
		if len(tok) > 1000 {
			return false
		}
		return yield(tok)
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
				if start < 0 {
					start = i
				}
				if folded != nil {
					folded = append(folded, c)
				}
			case c >= 'A' && c <= 'Z':
				if start < 0 {
					start = i
				}
				if folded == nil {
					folded = append([]byte(nil), s[start:i]...)
				}
				folded = append(folded, c+'a'-'A')
			default:
				if !flush(i) {
					return false
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch lexClass(r) {
		case lexUnsure:
			return false
		case lexTokenChar:
			if start < 0 {
				start = i
			}
			if folded != nil {
				folded = append(folded, s[i:i+n]...)
			}
		default:
			if !flush(i) {
				return false
			}
		}
		i += n
	}
	return flush(len(s))
}

const (
	lexSeparator = iota
	lexTokenChar
	lexUnsure
)

// lexClass classes a non-ASCII rune for lexTokens. Only blocks whose
// letters and digits are as old as SQLite's tables (Unicode 6.1) are
// trusted: Latin-1 and Latin Extended, Greek, Cyrillic, kana, the basic CJK
// ideographs, Hangul syllables. Anything else that Go counts as a letter,
// digit or mark is unsure; punctuation and symbols separate in both.
func lexClass(r rune) int {
	if r == utf8.RuneError {
		return lexUnsure
	}
	tok := unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
	mark := unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me)
	if !tok && !mark {
		return lexSeparator
	}
	trusted := (r >= 0xA0 && r <= 0x24F) || (r >= 0x370 && r <= 0x4FF) ||
		(r >= 0x3040 && r <= 0x30FF) || (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0xAC00 && r <= 0xD7A3)
	switch {
	case !trusted || mark || unicode.IsUpper(r) || unicode.IsTitle(r):
		return lexUnsure
	case unicode.ToLower(unicode.ToUpper(r)) != r:
		return lexUnsure // SQLite case-folds: µ to μ, ς to σ, ſ to s
	case r >= 0x370 && r <= 0x3FF && !unicode.Is(unicode.Greek, r):
		return lexUnsure // the Coptic letters of the Greek block
	}
	return lexTokenChar
}

// lexQuery is what rank can answer: terms of one token each, joined by op.
type lexQuery struct {
	terms  []string
	tokens bool // the terms are FTS5's tokens of them already
	op     lexJoin
	// dated keeps to the rows that say when they happened, which a "when"
	// question's search wants (REC-29): few of the matches, so the table
	// need not be asked about the rest (PERF-10).
	dated bool
}

// lexJoin is how a lexQuery's terms are joined.
type lexJoin int

const (
	lexOr    lexJoin = iota // any term: "a" OR "b" OR "c"
	lexAnd                  // every term: "a" AND "b" AND "c"
	lexPairs                // any two: ("a" AND "b") OR ("a" AND "c") OR ("b" AND "c")
)

// term returns the token FTS5 makes of a quoted query term, or false when
// it makes other than exactly one that lexIndex can be sure of.
func lexQueryTerm(t string) (string, bool) {
	var (
		tok string
		n   int
	)
	ok := lexTokens(t, func(s string) bool { tok = s; n++; return n == 1 })
	return tok, ok && n == 1
}

// count returns how many live rows of the scope hold term, up to max, and
// false when the index cannot say.
func (ix *lexIndex) count(sp span, term string) (int, bool) {
	tok, ok := lexQueryTerm(term)
	if !ok {
		return 0, false
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if !ix.ready {
		return 0, false
	}
	s := ix.scopes[sp.lo>>scopeBits]
	id, ok := ix.terms[tok]
	if s == nil || !ok || s.post[id] == nil {
		return 0, true
	}
	return int(s.post[id].live), true
}

// rank returns the best n rows of the scope matching q, best first, as
// rankInIndex asks FTS5 for them: by bm25 rank, then rowid. It reports
// false when the index cannot answer.
func (ix *lexIndex) rank(sp span, q lexQuery, n int) ([]ranked, bool) {
	if len(q.terms) == 0 || len(q.terms) > 64 {
		return nil, false
	}
	toks := q.terms
	if !q.tokens {
		toks = make([]string, len(q.terms))
		for i, t := range q.terms {
			tok, ok := lexQueryTerm(t)
			if !ok {
				return nil, false
			}
			toks[i] = tok
		}
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if !ix.ready {
		return nil, false
	}
	s := ix.scopes[sp.lo>>scopeBits]
	if s == nil || s.rows == 0 {
		return nil, true
	}
	// The scope's statistics, not the whole table's as FTS5's bm25 has
	// them: a scope's ranking depends on nothing outside it (REC-10).
	hits := make([]int64, len(toks))
	lists := make([][]lexPosting, len(toks))
	for i, tok := range toks {
		if id, ok := ix.terms[tok]; ok {
			if p := s.post[id]; p != nil {
				lists[i], hits[i] = p.p, int64(p.live)
			}
		}
	}
	doc := func(d uint32) (int64, int32) {
		e := &s.docs[d]
		if q.dated && !e.dated {
			return e.seq, -1
		}
		return e.seq, e.len
	}
	return bm25Top(s.rows, s.tokens, hits, lists, q.op, doc, n), true
}

// bm25Top returns the best n documents matching the phrases whose
// postings are lists, joined as op says, by FTS5's bm25 with Search's
// column weights, bit for bit (the same float operations in the same
// order, the same log), over a scope of nRow documents of tokens tokens in
// which hits[i] documents hold phrase i. doc gives a posting's seq and
// length, a length below 0 leaving it out. Postings are sorted by document.
func bm25Top(nRow, tokens int64, hits []int64, lists [][]lexPosting, op lexJoin, doc func(uint32) (int64, int32), n int) []ranked {
	if nRow <= 0 {
		return nil
	}
	avgdl := float64(tokens) / float64(nRow)
	idf := make([]float64, len(lists))
	for i, nHit := range hits {
		// SQLite's own log (musl's, compiled to Go): math.Log may differ
		// in the last bit, and ranks must not.
		v := libc.Xlog(nil, (float64(nRow-nHit)+0.5)/(float64(nHit)+0.5))
		if v <= 0 {
			v = 1e-6
		}
		idf[i] = v
		if op == lexAnd && len(lists[i]) == 0 {
			return nil
		}
	}
	const (
		k1 = float64(1.2)
		b  = float64(0.75)
	)
	top := lexTop{n: n}
	freq := make([]float64, len(lists))
	has := make([]bool, len(lists))
	// add scores the document d, whose frequencies freq holds, as
	// fts5Bm25Function does: each phrase of the expression in order, its
	// conversions keeping Go from fusing a multiply and an add.
	add := func(d uint32) {
		seq, dl := doc(d)
		if dl < 0 {
			return
		}
		D := float64(dl)
		term := func(i int) float64 {
			f := freq[i]
			return float64(idf[i] * (float64(f*(k1+float64(1))) / (f + float64(k1*(float64(1)-b+float64(b*D)/avgdl)))))
		}
		score := float64(0)
		if op == lexPairs {
			// Each term is a phrase of every pair it is in, and counts in
			// those of the pairs the row matches (FTS5 reports no
			// instances of a phrase whose AND did not match).
			for i := range freq {
				for j := i + 1; j < len(freq); j++ {
					if has[i] && has[j] {
						score = score + term(i)
						score = score + term(j)
					}
				}
			}
		} else {
			for i := range freq {
				if has[i] {
					score = score + term(i)
				}
			}
		}
		top.add(ranked{seq: seq, rank: float64(-float64(1) * score)})
	}
	// weigh sets freq[i] from a posting: instance by instance, in column
	// order, as bm25 adds them.
	weigh := func(i int, e lexPosting) {
		f := float64(0)
		for c := range e.tf {
			for range e.tf[c] {
				f += lexWeights[c]
			}
		}
		freq[i], has[i] = f, true
	}

	if op == lexAnd {
		// Walk the shortest list, seeking the others.
		short := 0
		for i := range lists {
			if len(lists[i]) < len(lists[short]) {
				short = i
			}
		}
		pos := make([]int, len(lists))
	rows:
		for _, e := range lists[short] {
			for i, l := range lists {
				if i == short {
					continue
				}
				k, found := slices.BinarySearchFunc(l[pos[i]:], e.doc, func(p lexPosting, doc uint32) int { return cmp.Compare(p.doc, doc) })
				pos[i] += k
				if pos[i] == len(l) {
					break rows
				}
				if !found {
					continue rows
				}
			}
			for i, l := range lists {
				if i == short {
					weigh(i, e)
				} else {
					weigh(i, l[pos[i]])
				}
			}
			add(e.doc)
		}
		return top.sorted()
	}

	pos := make([]int, len(lists))
	for {
		// The next document of any list: lists are few (a query's terms).
		doc := uint32(1<<32 - 1)
		more := false
		for i, l := range lists {
			if pos[i] < len(l) {
				more = true
				doc = min(doc, l[pos[i]].doc)
			}
		}
		if !more {
			break
		}
		matched := 0
		for i, l := range lists {
			freq[i], has[i] = 0, false
			if pos[i] < len(l) && l[pos[i]].doc == doc {
				weigh(i, l[pos[i]])
				matched++
				pos[i]++
			}
		}
		if op == lexPairs && matched < 2 {
			continue
		}
		add(doc)
	}
	return top.sorted()
}

// lexTop keeps the best n of what it is given: lowest rank, then lowest
// seq, as FTS5's rowid-ordered scan and SQLite's stable sort leave ties.
type lexTop struct {
	n int
	h []ranked // a max-heap: the worst kept first
}

func lexWorse(a, b ranked) bool {
	return a.rank > b.rank || (a.rank == b.rank && a.seq > b.seq)
}

func (t *lexTop) add(r ranked) {
	if len(t.h) < t.n {
		t.h = append(t.h, r)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !lexWorse(t.h[i], t.h[p]) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return
	}
	if t.n == 0 || !lexWorse(t.h[0], r) {
		return
	}
	t.h[0] = r
	for i := 0; ; {
		l, w := 2*i+1, i
		if l < len(t.h) && lexWorse(t.h[l], t.h[w]) {
			w = l
		}
		if l+1 < len(t.h) && lexWorse(t.h[l+1], t.h[w]) {
			w = l + 1
		}
		if w == i {
			break
		}
		t.h[i], t.h[w] = t.h[w], t.h[i]
		i = w
	}
}

func (t *lexTop) sorted() []ranked {
	slices.SortFunc(t.h, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.seq, b.seq))
	})
	return t.h
}

// bytes estimates the index's memory: postings, documents, terms.
func (ix *lexIndex) bytes() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var n int64
	for t := range ix.terms {
		n += int64(len(t)) + 16 + 8 // the key, its header, map overhead
	}
	for _, s := range ix.scopes {
		for _, p := range s.post {
			n += int64(cap(p.p))*12 + 32 + 16
		}
		for _, d := range s.docs {
			n += 40 + int64(cap(d.terms))*4
		}
		n += int64(cap(s.bySeq)) * 4
	}
	return n
}

// LexicalIndexStats describes the in-memory full-text index.
type LexicalIndexStats struct {
	Ready bool  // built and in step: it ranks searches
	Rows  int64 // memories it holds, all scopes
	Bytes int64 // its memory, estimated
}

// LexicalIndex describes the in-memory full-text index, which FTS5 stands
// in for until it is built.
func (db *DB) LexicalIndex() LexicalIndexStats {
	st := LexicalIndexStats{Bytes: db.lex.bytes()}
	db.lex.mu.RLock()
	st.Ready, st.Rows = db.lex.ready, db.lex.rows
	db.lex.mu.RUnlock()
	return st
}
