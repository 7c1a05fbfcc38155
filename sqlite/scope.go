package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mnemo-dev/mnemo"
)

// scopeBits is how many low bits of a seq count the memories of a scope;
// the bits above hold the scope's number (see migrations/0001_core.sql).
const scopeBits = 32

// span is the range of seqs a scope owns, lo inclusive, hi exclusive.
type span struct{ lo, hi int64 }

// spanOf returns the span of scope number id. Scope numbers start at 1, so
// span 0 holds no rows: it is the span of a scope never written.
func spanOf(id int64) span { return span{id << scopeBits, (id + 1) << scopeBits} }

// scopeSpan returns the span of scope. A scope's number never changes once
// committed, so it is cached; the cache is filled from committed reads only.
func (db *DB) scopeSpan(ctx context.Context, s mnemo.Scope) (span, error) {
	if id, ok := db.scopes.Load(s); ok {
		return spanOf(id.(int64)), nil
	}
	id, err := scopeID(ctx, db.reader, s)
	if err != nil {
		return span{}, err
	}
	if id != 0 {
		db.scopes.Store(s, id)
	}
	return spanOf(id), nil
}

// scopeID returns the number of scope, or 0 if it has none.
func scopeID(ctx context.Context, q querier, s mnemo.Scope) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM scopes WHERE tenant_id = ? AND agent_id = ?`, s.TenantID, s.AgentID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	} else if err != nil {
		return 0, fmt.Errorf("sqlite: scope: %w", err)
	}
	return id, nil
}

func checkScope(s mnemo.Scope) error {
	if s.TenantID == "" || s.AgentID == "" {
		return mnemo.Errorf(mnemo.EINVALID, "tenant_id and agent_id are required")
	}
	return nil
}
