package sqlite

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
	"github.com/mnemo-dev/mnemo/vector"
)

var _ mnemo.EventVectorStore = (*DB)(nil)

// insertEventVector stores one L3 vector (or a row waiting for one) in an
// append's transaction. An event's id is new, so its vectors are too.
const insertEventVector = `INSERT INTO event_vectors (tenant_id, agent_id, event_id, modality, ts, type, source, model, vector, input)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// Event vectors are stored as int8 with one float32 scale per vector:
// a byte, the scale, then one signed byte per component (v ≈ scale × c).
// A quarter of float32's bytes: an append with L3 writes ~0.5 KiB of
// vector per event instead of 2 KiB, which is most of what L3 costs it,
// and cosine similarity moves by well under 0.01. The scale cancels out
// of a cosine, so the search never decodes.
const vecInt8 = 1

func encodeEventVector(v []float32) any {
	if len(v) == 0 {
		return nil
	}
	var m float64
	for _, f := range v {
		m = max(m, math.Abs(float64(f)))
	}
	b := make([]byte, 5+len(v))
	b[0] = vecInt8
	scale := float32(m / 127)
	binary.LittleEndian.PutUint32(b[1:], math.Float32bits(scale))
	if m > 0 {
		for i, f := range v {
			b[5+i] = byte(int8(math.Round(float64(f) / m * 127)))
		}
	}
	return b
}

// eventVectorDim is the dimension of a stored vector, -1 when it is not
// one this code wrote.
func eventVectorDim(b []byte) int {
	if len(b) < 5 || b[0] != vecInt8 {
		return -1
	}
	return len(b) - 5
}

func decodeEventVector(b []byte) []float32 {
	if eventVectorDim(b) < 0 {
		return nil
	}
	scale := math.Float32frombits(binary.LittleEndian.Uint32(b[1:]))
	v := make([]float32, len(b)-5)
	for i := range v {
		v[i] = scale * float32(int8(b[5+i]))
	}
	return v
}

// fail is the test hook of AppendEvents (DB.failAt).
func (db *DB) fail(layer string) error {
	if db.failAt == nil {
		return nil
	}
	return db.failAt(layer)
}

// addEventVectors stores the vectors of e with ins.
func addEventVectors(ctx context.Context, ins *sql.Stmt, scope mnemo.Scope, e mnemo.Event) error {
	for _, v := range e.Vectors {
		if v.Modality == "" || v.Model == "" {
			return mnemo.Errorf(mnemo.EINVALID, "an event vector needs a modality and a model")
		}
		if len(v.Vector) > 0 && !sqlrow.Finite(v.Vector) {
			return mnemo.Errorf(mnemo.EINVALID, "event %s: the %s vector has a NaN or infinite component", e.ID, v.Modality)
		}
		if _, err := ins.ExecContext(ctx, scope.TenantID, scope.AgentID, e.ID, v.Modality, sqlrow.Nanos(e.TS), e.Type, e.Source,
			v.Model, encodeEventVector(v.Vector), v.Input); err != nil {
			if isConstraint(err) {
				return mnemo.Errorf(mnemo.EINVALID, "event %s has two %s vectors", e.ID, v.Modality)
			}
			return fmt.Errorf("sqlite: append events: vectors: %w", err)
		}
	}
	return nil
}

// SearchEventVectors implements mnemo.EventVectorStore: an exact cosine
// scan of the scope's vectors of q.Model that the filters leave, on the
// reader pool (a write in progress never holds it).
func (db *DB) SearchEventVectors(ctx context.Context, scope mnemo.Scope, q mnemo.EventVectorQuery) ([]mnemo.EventVectorHit, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	qn := vector.Norm(q.Vector)
	if qn == 0 {
		return nil, mnemo.Errorf(mnemo.EINVALID, "the query vector has no direction")
	}
	if q.Limit <= 0 {
		q.Limit = 10
	}
	var (
		b    strings.Builder
		args = []any{scope.TenantID, scope.AgentID, q.Model}
	)
	b.WriteString(`SELECT event_id, modality, vector, input FROM event_vectors
		WHERE tenant_id = ? AND agent_id = ? AND model = ? AND vector IS NOT NULL`)
	if q.From != nil {
		b.WriteString(` AND ts >= ?`)
		args = append(args, sqlrow.Nanos(*q.From))
	}
	if q.To != nil {
		b.WriteString(` AND ts < ?`)
		args = append(args, sqlrow.Nanos(*q.To))
	}
	for _, f := range []struct {
		col  string
		vals []string
	}{{"modality", q.Modalities}, {"type", q.Types}, {"source", q.Sources}} {
		if len(f.vals) == 0 {
			continue
		}
		b.WriteString(` AND ` + f.col + ` IN (` + placeholders(len(f.vals)) + `)`)
		for _, v := range f.vals {
			args = append(args, v)
		}
	}
	rows, err := db.reader.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search event vectors: %w", err)
	}
	defer rows.Close()
	best := map[string]int{} // event id → index in top
	top := &hitHeap{}
	var blob []byte
	for rows.Next() {
		var h mnemo.EventVectorHit
		if err := rows.Scan(&h.EventID, &h.Modality, &blob, &h.Input); err != nil {
			return nil, fmt.Errorf("sqlite: search event vectors: %w", err)
		}
		if d := eventVectorDim(blob); d != len(q.Vector) {
			return nil, mnemo.Errorf(mnemo.EMISMATCH, "event %s has a %s vector of %d dimensions from %s, the query %d: one model, two dimensions",
				h.EventID, h.Modality, d, q.Model, len(q.Vector))
		}
		h.Score = cosineBlob(q.Vector, qn, blob)
		if i, ok := best[h.EventID]; ok { // the event's best modality counts
			if h.Score > (*top)[i].Score {
				(*top)[i] = h
				heap.Fix(top, i)
				reindex(top, best)
			}
			continue
		}
		if top.Len() < q.Limit {
			heap.Push(top, h)
			reindex(top, best)
		} else if h.Score > (*top)[0].Score {
			delete(best, (*top)[0].EventID)
			(*top)[0] = h
			heap.Fix(top, 0)
			reindex(top, best)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search event vectors: %w", err)
	}
	out := slices.Clone(*top)
	slices.SortFunc(out, func(a, b mnemo.EventVectorHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.EventID, b.EventID))
	})
	return out, nil
}

// reindex refreshes the positions of the heap's events. The heap holds
// at most a page of hits, so this stays cheap.
func reindex(h *hitHeap, pos map[string]int) {
	clear(pos)
	for i, x := range *h {
		pos[x.EventID] = i
	}
}

// hitHeap is a min-heap of hits by score: the worst of the best on top.
type hitHeap []mnemo.EventVectorHit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return h[i].Score < h[j].Score }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(mnemo.EventVectorHit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// cosineBlob is the cosine of q (of norm qn) and a stored vector, read
// from its bytes: the scale cancels, the int8 components are enough.
func cosineBlob(q []float32, qn float64, b []byte) float64 {
	c := b[5 : 5+len(q)]
	var n int64
	var fdot float64
	for i, x := range c {
		v := int64(int8(x))
		n += v * v
		fdot += float64(q[i]) * float64(v)
	}
	if n == 0 {
		return 0
	}
	return fdot / (qn * math.Sqrt(float64(n)))
}

// EventVectorsOf implements mnemo.EventVectorStore.
func (db *DB) EventVectorsOf(ctx context.Context, scope mnemo.Scope, ids []string) ([]mnemo.StoredEventVector, error) {
	if err := checkScope(scope); err != nil || len(ids) == 0 {
		return nil, err
	}
	args := []any{scope.TenantID, scope.AgentID}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT event_id, modality, model, vector, input, access_count FROM event_vectors
		WHERE tenant_id = ? AND agent_id = ? AND event_id IN (`+placeholders(len(ids))+`) ORDER BY event_id, modality`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: event vectors: %w", err)
	}
	defer rows.Close()
	var out []mnemo.StoredEventVector
	for rows.Next() {
		var (
			v    mnemo.StoredEventVector
			blob []byte
		)
		if err := rows.Scan(&v.EventID, &v.Modality, &v.Model, &blob, &v.Input, &v.AccessCount); err != nil {
			return nil, fmt.Errorf("sqlite: event vectors: %w", err)
		}
		v.Vector = decodeEventVector(blob)
		out = append(out, v)
	}
	return out, rows.Err()
}

// EventVectorModels implements mnemo.EventVectorStore.
func (db *DB) EventVectorModels(ctx context.Context, scope mnemo.Scope) (map[string][]string, error) {
	if err := checkScope(scope); err != nil {
		return nil, err
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT DISTINCT modality, model FROM event_vectors
		WHERE tenant_id = ? AND agent_id = ? ORDER BY modality, model`, scope.TenantID, scope.AgentID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: event vector models: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var mod, model string
		if err := rows.Scan(&mod, &model); err != nil {
			return nil, fmt.Errorf("sqlite: event vector models: %w", err)
		}
		out[mod] = append(out[mod], model)
	}
	return out, rows.Err()
}

// TouchEventVectors implements mnemo.EventVectorStore.
func (db *DB) TouchEventVectors(ctx context.Context, scope mnemo.Scope, ids []string, at time.Time) error {
	if err := checkScope(scope); err != nil || len(ids) == 0 {
		return err
	}
	args := []any{sqlrow.Nanos(at), scope.TenantID, scope.AgentID}
	for _, id := range ids {
		args = append(args, id)
	}
	_, err := db.writer.ExecContext(ctx, `UPDATE event_vectors SET access_count = access_count + 1, last_access = ?
		WHERE tenant_id = ? AND agent_id = ? AND event_id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return fmt.Errorf("sqlite: touch event vectors: %w", err)
	}
	return nil
}

// PruneEventVectors implements mnemo.EventVectorStore.
func (db *DB) PruneEventVectors(ctx context.Context, before time.Time, minAccess int) (int, error) {
	res, err := db.writer.ExecContext(ctx, `DELETE FROM event_vectors
		WHERE ts < ? AND vector IS NOT NULL AND access_count < ?`, sqlrow.Nanos(before), minAccess)
	if err != nil {
		return 0, fmt.Errorf("sqlite: prune event vectors: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// PendingEventVectors implements mnemo.EventVectorStore.
func (db *DB) PendingEventVectors(ctx context.Context, n int) ([]mnemo.EventVectorJob, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT tenant_id, agent_id, event_id, modality, model, input
		FROM event_vectors WHERE vector IS NULL ORDER BY ts LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("sqlite: pending event vectors: %w", err)
	}
	defer rows.Close()
	var out []mnemo.EventVectorJob
	for rows.Next() {
		var j mnemo.EventVectorJob
		if err := rows.Scan(&j.TenantID, &j.AgentID, &j.EventID, &j.Modality, &j.Model, &j.Input); err != nil {
			return nil, fmt.Errorf("sqlite: pending event vectors: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// SetEventVectors implements mnemo.EventVectorStore, in one transaction.
func (db *DB) SetEventVectors(ctx context.Context, jobs []mnemo.EventVectorJob, vecs [][]float32) error {
	if len(jobs) != len(vecs) {
		return fmt.Errorf("sqlite: set event vectors: %d jobs but %d vectors", len(jobs), len(vecs))
	}
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: set event vectors: %w", err)
	}
	defer tx.Rollback()
	for i, j := range jobs {
		if len(vecs[i]) == 0 || !sqlrow.Finite(vecs[i]) {
			return mnemo.Errorf(mnemo.EINVALID, "event %s: the %s vector is empty or not finite", j.EventID, j.Modality)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE event_vectors SET vector = ?, model = ?
			WHERE tenant_id = ? AND agent_id = ? AND event_id = ? AND modality = ? AND vector IS NULL`,
			encodeEventVector(vecs[i]), j.Model, j.TenantID, j.AgentID, j.EventID, j.Modality); err != nil {
			return fmt.Errorf("sqlite: set event vectors: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: set event vectors: %w", err)
	}
	return nil
}
