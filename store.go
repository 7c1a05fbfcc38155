package mnemo

import (
	"context"
	"strings"
	"time"
)

// Store keeps memories. Backends (sqlite, postgres, files) implement it and
// pass the conformance suite in storetest. Every method is scoped: nothing a
// call does is visible from, or touches, another scope.
//
// A Store does not analyse text or rank results: the Service hands it
// analysed index text on write and analysed terms on search, and ranks the
// candidates it returns.
type Store interface {
	// Write applies a batch atomically: all records are stored or none.
	// A record with a key upserts the key's memory, last write wins by
	// UpdatedAt and then by arrival (a write older than the stored one is
	// kept in history but does not change the memory). A tombstone removes
	// the key from every read and stays in history. Write returns, for each
	// record, the memory as stored after the batch.
	Write(ctx context.Context, scope Scope, recs []Record) ([]Memory, error)

	// Replace changes a keyless memory in place (API-14): the record's
	// memory, whose ID is stored and live in scope, replaces it, keeping
	// its id, creation time and access counters, with a revision in
	// history, as an upsert of a key does. A memory with a key changes by
	// its key through Write.
	Replace(ctx context.Context, scope Scope, rec Record) (Memory, error)

	// Get returns a live memory by id, or ENOTFOUND.
	Get(ctx context.Context, scope Scope, id string) (Memory, error)
	// GetByKey returns the live memory of a key, or ENOTFOUND.
	GetByKey(ctx context.Context, scope Scope, key string) (Memory, error)
	// List returns live memories matching q and the total number matching.
	List(ctx context.Context, scope Scope, q ListQuery) ([]Memory, int, error)
	// Search returns lexical candidates for q, best BM25 first. When the
	// full-text index cannot answer it falls back to substring matching and
	// says so in SearchResult.Degraded.
	Search(ctx context.Context, scope Scope, q TextQuery) (SearchResult, error)

	// Touch records an access (recall) of the memories at time at.
	Touch(ctx context.Context, scope Scope, ids []string, at time.Time) error
	// Forget deletes memories by id and by key for good, returning how many
	// were deleted. Their history keeps only the fact of the deletion.
	Forget(ctx context.Context, scope Scope, ids, keys []string) (int, error)
	// Clear deletes every memory of the scope, returning how many.
	Clear(ctx context.Context, scope Scope) (int, error)

	// History returns the revisions of a key, oldest first.
	History(ctx context.Context, scope Scope, key string) ([]Revision, error)
	// DeletedAfter returns the revisions, oldest first, of up to limit keys
	// of scope with an applied tombstone written after t (its Revision.At,
	// when the store applied it), the keys tombstoned earliest after t
	// first, revived since or not, so that as_of (REC-27) can answer with
	// what such a key held then; the caller judges what held when by the
	// revisions' memories. A key forgotten for good keeps no revision to
	// answer with: Forget blanks its history.
	DeletedAfter(ctx context.Context, scope Scope, t time.Time, limit int) ([]Revision, error)
	// Stats describes the scope's memories.
	Stats(ctx context.Context, scope Scope) (Stats, error)
	// CountTypes counts the memories matching f by type, with their mean
	// vitality, most numerous first.
	CountTypes(ctx context.Context, scope Scope, f Filter) ([]TypeCount, error)

	Close() error
}

// Record is one write handed to a Store: the full memory to store, or a
// tombstone for Memory.Key, with its analysed index text.
type Record struct {
	Memory    Memory
	Tombstone bool
	Index     IndexText
	// Embed is the text the memory's vector is made from (its content with
	// a little conversational context); empty means the memory gets no
	// vector. When Memory.Embedding is set it is that text's vector, made
	// with Memory.EmbeddingModel; otherwise a VectorStore queues the memory
	// for embedding.
	Embed string
}

// IndexText is what the lexical index sees of a memory, already analysed
// into space-separated terms (see package analysis).
type IndexText struct {
	Text    string // content, speaker name, summary: weighted 1
	Context string // conversational neighbours: weighted lower
	Meta    string // key segments, tags, category, type
}

// ContextIndexer is a Store that can change, in place, the conversational
// context a live memory is indexed with (IndexText.Context), REC-36: a
// message stored before its replies arrived learns of them so, and one
// beside a message corrected or forgotten forgets its old words (REC-37).
// Nothing else of the memory changes — not its content, version nor
// history — and its vector only where the update says so.
type ContextIndexer interface {
	// WriteContexts is Write that also sets the index context of each
	// update's memory, in the same transaction where the store can; with
	// no records it only sets them. An id the scope does not hold live is
	// skipped: the context is a help, and the memory may be gone.
	WriteContexts(ctx context.Context, scope Scope, recs []Record, updates []ContextUpdate) ([]Memory, error)
}

// ContextUpdate is a memory's new index context, already analysed, and
// when Embed is not empty the new text its vector is made from: a
// VectorStore drops the vector made from the old text and queues the
// memory for embedding, as a write that comes without its vector.
type ContextUpdate struct {
	ID      string
	Context string
	Embed   string
}

// Filter narrows reads. The zero Filter matches every live memory that is
// neither archived nor expired at Now.
type Filter struct {
	Tags          []string   `json:"tags,omitempty"`
	AllTags       bool       `json:"all_tags,omitempty"` // all of Tags, not any
	Types         []string   `json:"types,omitempty"`
	Categories    []string   `json:"categories,omitempty"`
	SessionID     string     `json:"session_id,omitempty"`
	KeyPrefix     string     `json:"key_prefix,omitempty"`
	CreatedAfter  *time.Time `json:"created_after,omitempty"`  // inclusive
	CreatedBefore *time.Time `json:"created_before,omitempty"` // exclusive
	// OccurredAfter and OccurredBefore keep the memories whose Occurred
	// window overlaps [OccurredAfter, OccurredBefore) (REC-25).
	OccurredAfter  *time.Time `json:"occurred_after,omitempty"`
	OccurredBefore *time.Time `json:"occurred_before,omitempty"`
	// AsOf keeps the memories that held at that time (REC-27): begun by
	// then (created, or occurred, at or before it) and not ended (no
	// valid_to after it). A store answers with its live rows; the Service
	// swaps a key's memory rewritten since for the revision that stood
	// then. Nil is now, with ended memories kept (as before REC-27).
	AsOf *time.Time `json:"as_of,omitempty"`
	// NotIDs leaves these memories out. A SQL store sets it to the
	// recurring memories none of whose occurrences fall within the occurred
	// bounds, which its SQL cannot tell (REC-30).
	NotIDs []string `json:"-"`
	// Dated keeps the memories whose Occurred came from their text or
	// their writer, not from their creation (REC-29: the candidates of a
	// "when" question).
	Dated           bool     `json:"dated,omitempty"`
	MinConfidence   float64  `json:"min_confidence,omitempty"`
	MinVitality     float64  `json:"min_vitality,omitempty"`
	Pinned          bool     `json:"pinned,omitempty"`   // only pinned memories
	Unpinned        bool     `json:"unpinned,omitempty"` // only memories not pinned
	SecurityLevels  []string `json:"security_levels,omitempty"`
	IncludeArchived bool     `json:"include_archived,omitempty"`
	// ArchivedOnly keeps only archived memories (API-13: the inspector's
	// "archived only"); it implies IncludeArchived.
	ArchivedOnly   bool `json:"archived_only,omitempty"`
	IncludeExpired bool `json:"include_expired,omitempty"`
	// Now is the time expiry is judged at; zero means the store's clock.
	Now time.Time `json:"-"`
}

// List orders.
const (
	OrderNewest = "newest" // created_at descending (default)
	OrderOldest = "oldest" // created_at ascending
	OrderKey    = "key"    // key ascending, for recall_path
	// OrderVitality is vitality descending, then the newest first, for
	// boot.
	OrderVitality = "vitality"
	// OrderOccurred is the occurred window's start descending, then its
	// end, then the latest stored first: what happened last comes first.
	// Recall reads the memories of a window the query names so (REC-25),
	// along the stores' occurred index, which the other orders cannot use.
	OrderOccurred = "occurred"
)

// TypeCount is how many memories of a type there are.
type TypeCount struct {
	Type         string  `json:"type"`
	Count        int     `json:"count"`
	MeanVitality float64 `json:"mean_vitality"`
}

// ListQuery selects a page of memories.
type ListQuery struct {
	Filter
	Order  string
	Limit  int // 0 means all
	Offset int
	// NoVectors leaves Embedding out of the results, for reads that do not
	// need it.
	NoVectors bool
	// NoTotal skips counting every match; List's total is then -1.
	NoTotal bool
}

// TextQuery asks for lexical candidates. Terms and Prefixes are analysed
// (see analysis.Analyzer.Query); a memory matches if it contains any.
type TextQuery struct {
	Filter
	Terms    []string
	Prefixes []string
	Limit    int
	// MatchAll matches only memories with every term and prefix (the Write
	// Guard's search for the same text), not any.
	MatchAll bool
}

// Hit is one lexical candidate.
type Hit struct {
	Memory Memory
	// Lexical is the BM25 score (higher is better) or, when degraded, the
	// fraction of query terms found.
	Lexical float64
}

// SearchResult is a Store's answer to a TextQuery.
type SearchResult struct {
	Hits     []Hit
	Degraded bool   // answered by the fallback, not the full-text index
	Reason   string // why it degraded
	// Cause is the Degraded* cause of a degraded answer; empty means
	// DegradedFullText.
	Cause string
}

// Revision ops.
const (
	OpPut       = "put"
	OpTombstone = "tombstone"
	OpForget    = "forget"
	OpClear     = "clear"
)

// Revision is one entry of a key's history.
type Revision struct {
	Seq      int64     `json:"seq"`
	MemoryID string    `json:"memory_id"`
	Key      string    `json:"key,omitempty"`
	Op       string    `json:"op"`
	At       time.Time `json:"at"`
	Applied  bool      `json:"applied"` // false when the write lost last-write-wins
	Memory   *Memory   `json:"memory,omitempty"`
}

// Stats describes one scope.
type Stats struct {
	Memories   int        `json:"memories"` // live, including archived and expired
	Archived   int        `json:"archived"`
	Keys       int        `json:"keys"`       // live memories with a key
	Tombstones int        `json:"tombstones"` // keys currently tombstoned
	Sessions   int        `json:"sessions"`
	Oldest     *time.Time `json:"oldest,omitempty"`
	Newest     *time.Time `json:"newest,omitempty"`
	// Degraded is set when the lexical index is unavailable.
	Degraded bool `json:"degraded"`
	// Vectors describes the scope's embeddings, for stores that keep them.
	Vectors *VectorStats `json:"vectors,omitempty"`
}

// VectorStats describes a scope's embeddings.
type VectorStats struct {
	Model     string `json:"model"`
	Dimension int    `json:"dimension"`
	Embedded  int    `json:"embedded"` // live memories with a vector
	Pending   int    `json:"pending"`  // live memories waiting for one
	// Indexed is how many vectors the ANN index holds: 0 with none; -1
	// when the index could not be read.
	Indexed int `json:"indexed"`
	// CacheHitRate is the query-embedding cache's hit rate since start, set
	// by the Service.
	CacheHitRate *float64 `json:"cache_hit_rate,omitempty"`
	// Unavailable says why the store cannot keep or search vectors (a
	// PostgreSQL server without pgvector); empty when it can.
	Unavailable string `json:"unavailable,omitempty"`
}

// VectorStore is a Store that keeps one embedding per memory and finds the
// nearest ones. The Service embeds; the store keeps vectors durable with
// their memories and indexes them.
//
// A store is made with one model and dimension (VectorSpace); a vector of
// another is refused, so that vectors of different models are never
// compared.
type VectorStore interface {
	Store
	// VectorSpace returns the model and dimension of the stored vectors; the
	// zero VectorSpace when none was set.
	VectorSpace(ctx context.Context) (VectorSpace, error)
	// SetVectorSpace sets the model and dimension. When it differs from the
	// stored one, it fails with EMISMATCH unless reset is true. With reset,
	// every stored vector is dropped and every memory queued again, whether
	// or not the space changes (reindex).
	SetVectorSpace(ctx context.Context, vs VectorSpace, reset bool) error
	// Unembedded returns up to n live memories, of any scope, waiting for a
	// vector, oldest first.
	Unembedded(ctx context.Context, n int) ([]EmbedJob, error)
	// CountUnembedded counts the live memories waiting for a vector.
	CountUnembedded(ctx context.Context) (int, error)
	// SetVectors stores the vectors of jobs (vecs[i] for jobs[i]). A job
	// whose memory was deleted, or whose embed text changed since, is
	// skipped: its vector would describe text the memory no longer has.
	SetVectors(ctx context.Context, jobs []EmbedJob, vecs [][]float32) error
	// SearchVectors returns the live memories of scope matching q's filter
	// whose vectors are nearest q.Vector, best first.
	SearchVectors(ctx context.Context, scope Scope, q VectorQuery) ([]VectorHit, error)
}

// VectorSpace names the model vectors are made with, and their dimension.
type VectorSpace struct {
	Model     string `json:"model"`
	Dimension int    `json:"dimension"`
}

// EmbedJob is a memory waiting for its vector.
type EmbedJob struct {
	ID   string // the memory's id
	Text string // what to embed (Record.Embed)
}

// VectorQuery asks for the nearest neighbours of Vector.
type VectorQuery struct {
	Filter
	Vector []float32
	Limit  int
}

// VectorHit is one vector candidate.
type VectorHit struct {
	Memory     Memory
	Similarity float64 // cosine similarity, -1 to 1
}

// MaxListLimit bounds one page of List.
const MaxListLimit = 1000

// Check validates f and normalises it in place; a zero Now becomes now.
func (f *Filter) Check(now time.Time) error {
	if f.Now.IsZero() {
		f.Now = now.UTC()
	}
	// Normalised copies: the caller's slices stay as they were.
	tags := make([]string, len(f.Tags))
	for i, t := range f.Tags {
		tags[i] = strings.ToLower(strings.TrimSpace(t))
	}
	f.Tags = tags
	var err error
	if f.Types, err = CheckWords("type", f.Types); err != nil {
		return err
	}
	if f.Categories, err = CheckWords("category", f.Categories); err != nil {
		return err
	}
	for _, l := range f.SecurityLevels {
		switch l {
		case SecurityPublic, SecurityInternal, SecurityConfidential, SecurityRestricted:
		default:
			return Errorf(EINVALID, "security level must be public, internal, confidential or restricted, not %q", l)
		}
	}
	if f.Pinned && f.Unpinned {
		return Errorf(EINVALID, "pinned and unpinned exclude each other")
	}
	if f.ArchivedOnly {
		f.IncludeArchived = true
	}
	for _, t := range []struct {
		name string
		t    *time.Time
	}{{"created_after", f.CreatedAfter}, {"created_before", f.CreatedBefore}, {"occurred_after", f.OccurredAfter},
		{"occurred_before", f.OccurredBefore}, {"as_of", f.AsOf}} {
		// The stores read what the writes keep (TIME-1): a bound beyond
		// the range would be one no row can hold.
		if err := CheckTimePtr(t.name, t.t); err != nil {
			return err
		}
	}
	if f.OccurredAfter != nil && f.OccurredBefore != nil && !f.OccurredBefore.After(*f.OccurredAfter) {
		return Errorf(EINVALID, "occurred_before must be after occurred_after")
	}
	if f.MinConfidence < 0 || f.MinConfidence > 1 {
		return Errorf(EINVALID, "min_confidence must be between 0 and 1")
	}
	if f.MinVitality < 0 || f.MinVitality > 1 {
		return Errorf(EINVALID, "min_vitality must be between 0 and 1")
	}
	if f.KeyPrefix != "" && f.KeyPrefix != "/" && !strings.HasSuffix(f.KeyPrefix, "://") {
		if f.KeyPrefix, err = NormalizeKey(f.KeyPrefix); err != nil {
			return err
		}
	}
	return nil
}

// KeyUnder reports whether key is prefix or below it, as a path: "/user"
// matches "/user" and "/user/…", not "/username"; a prefix ending in "/"
// matches everything under it.
func KeyUnder(key, prefix string) bool {
	if key == "" {
		return false
	}
	if strings.HasSuffix(prefix, "/") {
		return strings.HasPrefix(key, prefix)
	}
	return key == prefix || strings.HasPrefix(key, prefix+"/")
}
