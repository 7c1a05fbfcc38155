package mnemo

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sync"
	"time"
)

// stateLocks serialise this process's updates of one state document, so
// that its own writers never race; the version check settles races with
// other processes.
type stateLocks [64]sync.Mutex

func (l *stateLocks) lock(scope Scope, kind, id string) func() {
	h := fnv.New32a()
	for _, s := range []string{scope.TenantID, scope.AgentID, kind, id} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	mu := &l[h.Sum32()%uint32(len(l))]
	mu.Lock()
	return mu.Unlock
}

// stateRetries bounds the retries of a state update that keeps losing to
// concurrent writers.
const stateRetries = 16

// updateState reads the document kind/id into v (absent: create decides),
// applies fn and writes it back, again from the read when another writer
// came first. fn reports whether to write; it may run more than once.
func updateState[T any](ctx context.Context, st StateStore, scope Scope, kind, id string, create bool, now func() time.Time, fn func(v *T, exists bool) (bool, error)) (T, error) {
	var zero T
	for range stateRetries {
		var v T
		doc, err := st.GetState(ctx, scope, kind, id)
		exists := err == nil
		switch {
		case ErrorCode(err) == ENOTFOUND && create:
			doc = StateDoc{Kind: kind, ID: id}
		case err != nil:
			return zero, err
		default:
			if err := json.Unmarshal(doc.Body, &v); err != nil {
				return zero, fmt.Errorf("%s %q: %w", kind, id, err)
			}
		}
		write, err := fn(&v, exists)
		if err != nil || !write {
			return v, err
		}
		body, err := json.Marshal(v)
		if err != nil {
			return zero, err
		}
		doc.Body, doc.UpdatedAt = body, now().UTC()
		_, err = st.PutState(ctx, scope, doc)
		if ErrorCode(err) == ECONFLICT {
			continue
		}
		return v, err
	}
	return zero, Errorf(ECONFLICT, "%s %q is being changed by too many writers at once; retry", kind, id)
}

// getState reads the document kind/id into v.
func getState[T any](ctx context.Context, st StateStore, scope Scope, kind, id string) (T, StateDoc, error) {
	var v T
	doc, err := st.GetState(ctx, scope, kind, id)
	if err != nil {
		return v, doc, err
	}
	if err := json.Unmarshal(doc.Body, &v); err != nil {
		return v, doc, fmt.Errorf("%s %q: %w", kind, id, err)
	}
	return v, doc, nil
}
