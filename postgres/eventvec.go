package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// L3, event vectors (EVT-8, EVT-9, EVT-15), in pgvector.
//
// A vector is kept as a halfvec (pgvector 0.7; vector on older versions)
// of the vector divided by its largest component, with that scale beside
// it: half of float32's bytes, as sqlite keeps a quarter (int8), and the
// scale cancels out of a cosine. The column, vec, is added at Open when
// the server has pgvector; without it events are stored without their
// vectors and every L3 method but EventVectorsOf (which finds none)
// answers ErrNoVectorIndex, as memories' vector methods do (PG-2).
//
// Search is an exact cosine scan of the scope's vectors of the query's
// model that the filters leave, not an HNSW index as memories have: one
// table holds the vectors of every model and dimension (an HNSW index
// needs one dimension), event vectors are pruned after 30 days unless
// searches keep finding them, so a scope holds few enough for a scan, and
// an index could not lead with tenant_id (SEC-1).

var _ mnemo.EventVectorStore = (*DB)(nil)

// ensureEventVectors adds the vec column when the server has pgvector,
// once per schema, under the migration lock.
func (db *DB) ensureEventVectors(ctx context.Context) error {
	return db.tx(ctx, allTenants, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var typ *string
		if err := tx.QueryRow(ctx, `SELECT format_type(atttypid, NULL) FROM pg_attribute
			WHERE attrelid = to_regclass(quote_ident(current_schema()) || '.event_vectors') AND attname = 'vec' AND NOT attisdropped`).Scan(&typ); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if typ != nil {
			db.evType = *typ
			return nil
		}
		if _, err := tx.Exec(ctx, migrateLock); err != nil {
			return err
		}
		t := "vector"
		var half bool
		if err := tx.QueryRow(ctx, `SELECT to_regtype('halfvec') IS NOT NULL`).Scan(&half); err != nil {
			return err
		}
		if half {
			t = "halfvec"
		}
		if _, err := tx.Exec(ctx, `ALTER TABLE event_vectors ADD COLUMN IF NOT EXISTS vec `+t); err != nil {
			return err
		}
		db.evType = t
		return nil
	})
}

// vecText is v divided by scale in pgvector's text form.
func vecText(v []float32, scale float64) string {
	var b strings.Builder
	b.Grow(len(v) * 8)
	b.WriteByte('[')
	for i, f := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		x := 0.0
		if scale > 0 {
			x = float64(f) / scale
		}
		b.WriteString(strconv.FormatFloat(x, 'g', 6, 32))
	}
	b.WriteByte(']')
	return b.String()
}

// maxAbs is the largest absolute component of v.
func maxAbs(v []float32) float64 {
	var m float64
	for _, f := range v {
		m = max(m, math.Abs(float64(f)))
	}
	return m
}

// parseVecText reads pgvector's text form, times scale.
func parseVecText(s string, scale float32) ([]float32, error) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if s == "" {
		return []float32{}, nil
	}
	parts := strings.Split(s, ",")
	v := make([]float32, len(parts))
	for i, p := range parts {
		f, err := strconv.ParseFloat(p, 32)
		if err != nil {
			return nil, err
		}
		v[i] = float32(f) * scale
	}
	return v, nil
}

func checkEventVectors(e mnemo.Event) error {
	for _, v := range e.Vectors {
		if v.Modality == "" || v.Model == "" {
			return mnemo.Errorf(mnemo.EINVALID, "an event vector needs a modality and a model")
		}
		if len(v.Vector) > 0 && !sqlrow.Finite(v.Vector) {
			return mnemo.Errorf(mnemo.EINVALID, "event %s: the %s vector has a NaN or infinite component", e.ID, v.Modality)
		}
	}
	return nil
}

// addEventVectors stores the vectors of e in an append's transaction (the
// event's id is new, so its vectors are too).
func (db *DB) addEventVectors(ctx context.Context, tx pgx.Tx, scope mnemo.Scope, e mnemo.Event) error {
	for _, v := range e.Vectors {
		var (
			vec   *string
			scale float64
		)
		if len(v.Vector) > 0 {
			scale = maxAbs(v.Vector)
			s := vecText(v.Vector, scale)
			vec = &s
		}
		_, err := tx.Exec(ctx, `INSERT INTO event_vectors (tenant_id, agent_id, event_id, modality, ts_ns, type, source, model, input, made, scale, vec)
			VALUES ($1::text, $2::text, $3::text, $4::text, $5::bigint, $6::text, $7::text, $8::text, $9::text, $10::bool, $11::real, $12::text::`+db.evType+`)`,
			scope.TenantID, scope.AgentID, e.ID, v.Modality, sqlrow.Nanos(e.TS), e.Type, e.Source, v.Model, v.Input, vec != nil, scale, vec)
		if err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "23505" {
				return mnemo.Errorf(mnemo.EINVALID, "event %s has two %s vectors", e.ID, v.Modality)
			}
			return err
		}
	}
	return nil
}

// SearchEventVectors implements mnemo.EventVectorStore: an exact cosine
// scan, best vector per event.
func (db *DB) SearchEventVectors(ctx context.Context, scope mnemo.Scope, q mnemo.EventVectorQuery) ([]mnemo.EventVectorHit, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if db.vectors != nil {
		return nil, db.vectors
	}
	scale := maxAbs(q.Vector)
	if scale == 0 || !sqlrow.Finite(q.Vector) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "the query vector has no direction")
	}
	if q.Limit <= 0 {
		q.Limit = 10
	}
	p := &params{}
	qv := p.p(vecText(q.Vector, scale), "text") + "::" + db.evType
	w := `tenant_id = ` + p.p(scope.TenantID, "text") + ` AND agent_id = ` + p.p(scope.AgentID, "text") +
		` AND model = ` + p.p(q.Model, "text") + ` AND made`
	if q.From != nil {
		w += ` AND ts_ns >= ` + p.p(sqlrow.Nanos(*q.From), "bigint")
	}
	if q.To != nil {
		w += ` AND ts_ns < ` + p.p(sqlrow.Nanos(*q.To), "bigint")
	}
	for _, f := range []struct {
		col  string
		vals []string
	}{{"modality", q.Modalities}, {"type", q.Types}, {"source", q.Sources}} {
		if len(f.vals) > 0 {
			w += ` AND ` + f.col + ` = ANY(` + p.p(f.vals, "text[]") + `)`
		}
	}
	// A zero vector has no cosine (NaN): it scores 0, as in sqlite.
	query := `SELECT event_id, modality, score, input FROM (
			SELECT DISTINCT ON (event_id) event_id, modality, input, score FROM (
				SELECT event_id, modality, input,
					CASE WHEN d = 'NaN'::float8 THEN 0 ELSE 1 - d END AS score
				FROM (SELECT event_id, modality, input, (vec <=> ` + qv + `)::float8 AS d FROM event_vectors WHERE ` + w + `) x
			) y ORDER BY event_id, score DESC, modality
		) h ORDER BY score DESC, event_id LIMIT ` + p.p(q.Limit, "int")
	var out []mnemo.EventVectorHit
	err := db.read(ctx, scope.TenantID, func(qr querier) error {
		out = out[:0]
		rows, err := qr.Query(ctx, query, p.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var h mnemo.EventVectorHit
			if err := rows.Scan(&h.EventID, &h.Modality, &h.Score, &h.Input); err != nil {
				return err
			}
			out = append(out, h)
		}
		return rows.Err()
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && strings.Contains(pe.Message, "different") && strings.Contains(pe.Message, "dimensions") {
		return nil, mnemo.Errorf(mnemo.EMISMATCH, "vectors of %s have another dimension than the query's %d: one model, two dimensions (%s)",
			q.Model, len(q.Vector), pe.Message)
	}
	if err != nil {
		return nil, db.fail("search event vectors", err)
	}
	return out, nil
}

// EventVectorsOf implements mnemo.EventVectorStore. Without pgvector no
// vector is kept, and none is returned.
func (db *DB) EventVectorsOf(ctx context.Context, scope mnemo.Scope, ids []string) ([]mnemo.StoredEventVector, error) {
	if err := checkScope(scope); err != nil || len(ids) == 0 || db.vectors != nil {
		return nil, err
	}
	var out []mnemo.StoredEventVector
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT event_id, modality, model, vec::text, scale, input, access_count FROM event_vectors
			WHERE tenant_id = $1::text AND agent_id = $2::text AND event_id = ANY($3::text[]) ORDER BY event_id, modality`,
			scope.TenantID, scope.AgentID, ids)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				v     mnemo.StoredEventVector
				vec   *string
				scale float32
			)
			if err := rows.Scan(&v.EventID, &v.Modality, &v.Model, &vec, &scale, &v.Input, &v.AccessCount); err != nil {
				return err
			}
			if vec != nil {
				if v.Vector, err = parseVecText(*vec, scale); err != nil {
					return err
				}
			}
			out = append(out, v)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, db.fail("event vectors", err)
	}
	return out, nil
}

// EventVectorModels implements mnemo.EventVectorStore.
func (db *DB) EventVectorModels(ctx context.Context, scope mnemo.Scope) (map[string][]string, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	if db.vectors != nil {
		return nil, db.vectors
	}
	out := map[string][]string{}
	err := db.read(ctx, scope.TenantID, func(q querier) error {
		clear(out)
		rows, err := q.Query(ctx, `SELECT DISTINCT modality, model FROM event_vectors
			WHERE tenant_id = $1::text AND agent_id = $2::text ORDER BY modality, model`, scope.TenantID, scope.AgentID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var mod, model string
			if err := rows.Scan(&mod, &model); err != nil {
				return err
			}
			out[mod] = append(out[mod], model)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, db.fail("event vector models", err)
	}
	return out, nil
}

// TouchEventVectors implements mnemo.EventVectorStore.
func (db *DB) TouchEventVectors(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error {
	ctx = bookkeeping(ctx)
	if err := checkScope(scope); err != nil || len(ids) == 0 {
		return err
	}
	if db.vectors != nil {
		return db.vectors
	}
	err := db.tx(ctx, scope.TenantID, pgx.TxOptions{}, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE event_vectors SET access_count = access_count + 1, last_access_ns = $1::bigint
			WHERE tenant_id = $2::text AND agent_id = $3::text AND event_id = ANY($4::text[])`,
			sqlrow.Nanos(at), scope.TenantID, scope.AgentID, ids)
		return err
	})
	return db.fail("touch event vectors", err)
}

// PruneEventVectors implements mnemo.EventVectorStore (EVT-15), across
// tenants.
func (db *DB) PruneEventVectors(ctx context.Context, before time.Time, minAccess int) (int, error) {
	if db.vectors != nil {
		return 0, db.vectors
	}
	var n int64
	err := db.tx(ctx, allTenants, pgx.TxOptions{}, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM event_vectors WHERE ts_ns < $1::bigint AND made AND access_count < $2::int`,
			sqlrow.Nanos(before), minAccess)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, db.fail("prune event vectors", err)
	}
	return int(n), nil
}

// PendingEventVectors implements mnemo.EventVectorStore, across tenants.
func (db *DB) PendingEventVectors(ctx context.Context, n int) ([]mnemo.EventVectorJob, error) {
	if db.vectors != nil {
		return nil, db.vectors
	}
	var out []mnemo.EventVectorJob
	err := db.read(ctx, allTenants, func(q querier) error {
		out = out[:0]
		rows, err := q.Query(ctx, `SELECT tenant_id, agent_id, event_id, modality, model, input
			FROM event_vectors WHERE NOT made ORDER BY ts_ns LIMIT $1::int`, n)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var j mnemo.EventVectorJob
			if err := rows.Scan(&j.TenantID, &j.AgentID, &j.EventID, &j.Modality, &j.Model, &j.Input); err != nil {
				return err
			}
			out = append(out, j)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, db.fail("pending event vectors", err)
	}
	return out, nil
}

// SetEventVectors implements mnemo.EventVectorStore, in one transaction.
func (db *DB) SetEventVectors(ctx context.Context, jobs []mnemo.EventVectorJob, vecs [][]float32) error {
	ctx = bookkeeping(ctx)
	if len(jobs) != len(vecs) {
		return fmt.Errorf("postgres: set event vectors: %d jobs but %d vectors", len(jobs), len(vecs))
	}
	if db.vectors != nil {
		return db.vectors
	}
	for i, j := range jobs {
		if len(vecs[i]) == 0 || !sqlrow.Finite(vecs[i]) {
			return mnemo.Errorf(mnemo.EINVALID, "event %s: the %s vector is empty or not finite", j.EventID, j.Modality)
		}
	}
	err := db.tx(ctx, allTenants, pgx.TxOptions{}, func(tx pgx.Tx) error {
		for i, j := range jobs {
			scale := maxAbs(vecs[i])
			if _, err := tx.Exec(ctx, `UPDATE event_vectors SET vec = $1::text::`+db.evType+`, scale = $2::real, model = $3::text, made = true
				WHERE tenant_id = $4::text AND agent_id = $5::text AND event_id = $6::text AND modality = $7::text AND NOT made`,
				vecText(vecs[i], scale), scale, j.Model, j.TenantID, j.AgentID, j.EventID, j.Modality); err != nil {
				return err
			}
		}
		return nil
	})
	return db.fail("set event vectors", err)
}
