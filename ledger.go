package mnemo

import (
	"context"
	"encoding/json"
	"time"
)

// Ledger actions: what happened to memories besides a write (LIFE-6).
const (
	ActionArchive = "archive" // a memory was archived (faded, over capacity, retention)
	ActionRestore = "restore" // an archived memory was brought back
	ActionDelete  = "delete"  // erased for good
	ActionForget  = "forget"  // forgotten on request, by id or key
	ActionClear   = "clear"   // every memory of the agent cleared on request
	ActionDecay   = "decay"   // vitality recomputed
	ActionDegrade = "degrade" // a part failed and the answer came from a fallback
	ActionPrune   = "prune"   // archived by a prune on request
	ActionReset   = "reset"   // every memory archived: the agent starts over
	// ActionRetention is reflect's retention: archived now, erased after
	// the grace period.
	ActionRetention = "retention"
	// ActionCompact is a compaction: memories of one tag merged into a summary
	// memory, the originals archived.
	ActionCompact = "compact"
	// ActionExtract is memories extracted from a conversation by a model.
	ActionExtract = "extract"
	// ActionGuard is a Write Guard decision other than add or update.
	ActionGuard = "guard"
)

// LedgerEntry is one lifecycle event: what happened to which memories, why,
// and who did it.
type LedgerEntry struct {
	Seq       int64           `json:"seq"`
	At        time.Time       `json:"at"`
	TenantID  string          `json:"tenant_id"`
	AgentID   string          `json:"agent_id"`
	Action    string          `json:"action"`
	MemoryIDs []string        `json:"memory_ids,omitempty"`
	Reason    string          `json:"reason"`
	Actor     string          `json:"actor"` // reflect, api, cli, mcp, system
	Details   json.RawMessage `json:"details,omitempty"`
}

// LedgerQuery selects ledger entries, newest first.
type LedgerQuery struct {
	Seq      int64      `json:"seq,omitempty"` // one entry
	Action   string     `json:"action,omitempty"`
	MemoryID string     `json:"memory_id,omitempty"`
	Since    *time.Time `json:"since,omitempty"` // inclusive
	Until    *time.Time `json:"until,omitempty"` // exclusive
	Limit    int        `json:"limit,omitempty"` // 0: 100
	Offset   int        `json:"offset,omitempty"`
}

// LifeChange changes the life of one memory: its vitality, its stability
// or whether it is archived. Nil fields are left as they are.
type LifeChange struct {
	ID        string   `json:"id"`
	Vitality  *float64 `json:"vitality,omitempty"`
	Stability *float64 `json:"stability,omitempty"`
	Archived  *bool    `json:"archived,omitempty"`
	// ValidTo ends what the memory says (REC-27: it was contradicted); a
	// memory that already ended earlier keeps its end.
	ValidTo *time.Time `json:"valid_to,omitempty"`
}

// LifecycleStore is a Store whose memories age and whose lifecycle events
// are kept: reflect changes memories in bulk, and every change it makes is
// in the ledger in the same transaction.
type LifecycleStore interface {
	Store
	// ApplyLife applies changes (to live memories of scope; others are
	// skipped) and appends entries, atomically, and returns how many
	// memories changed.
	ApplyLife(ctx context.Context, scope Scope, changes []LifeChange, entries []LedgerEntry) (int, error)
	// AppendLedger appends entries.
	AppendLedger(ctx context.Context, scope Scope, entries []LedgerEntry) error
	// Ledger returns the scope's entries matching q, newest first, and how
	// many match in all.
	Ledger(ctx context.Context, scope Scope, q LedgerQuery) ([]LedgerEntry, int, error)
	// Scopes lists every scope that has memories, for lifecycle work done
	// for every agent (the scheduled reflect).
	Scopes(ctx context.Context) ([]Scope, error)
}

// Causes of a degradation (PG-2, PG-3, PG-5), for metrics: which part failed.
const (
	DegradedFullText    = "fulltext"     // the full-text index: substring matching answered
	DegradedEmbedder    = "embedder"     // the embedder: hashed TF-IDF answered, writes queued for vectors
	DegradedVectorIndex = "vector_index" // no vector index: full text and recency answered, writes kept without vectors
	DegradedStore       = "store"        // the database: the local spool answered
	DegradedReplica     = "replica"      // a read replica behind or down: the primary answered (PG-11)
)
