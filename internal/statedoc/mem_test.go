package statedoc

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// NewMem is what the services keep runs and sessions in when its store
// keeps no state: it must behave as the stores' StateStore does
// (storetest's State case).
func TestMemState(t *testing.T) {
	ctx := context.Background()
	st := NewMem()
	a, b := mnemo.Scope{TenantID: "t", AgentID: "a"}, mnemo.Scope{TenantID: "t", AgentID: "b"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	doc := mnemo.StateDoc{Kind: mnemo.StateRun, ID: "r", Body: []byte(`1`), UpdatedAt: t0}
	if v, err := st.PutState(ctx, a, doc); err != nil || v != 1 {
		t.Fatalf("create: %d, %v", v, err)
	}
	if _, err := st.PutState(ctx, a, doc); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Fatalf("create twice: %v", err)
	}
	if _, err := st.GetState(ctx, b, mnemo.StateRun, "r"); mnemo.ErrorCode(err) != mnemo.ENOTFOUND {
		t.Fatalf("other agent: %v", err)
	}
	got, _ := st.GetState(ctx, a, mnemo.StateRun, "r")
	got.Body, got.UpdatedAt = []byte(`2`), t0.Add(time.Hour)
	if v, err := st.PutState(ctx, a, got); err != nil || v != 2 {
		t.Fatalf("update: %d, %v", v, err)
	}
	got.Body[0] = '9' // the store keeps its own copy
	if d, _ := st.GetState(ctx, a, mnemo.StateRun, "r"); string(d.Body) != "2" || d.Scope != a {
		t.Fatalf("stored = %+v", d)
	}
	st.PutState(ctx, b, mnemo.StateDoc{Kind: mnemo.StateRun, ID: "old", Body: []byte(`0`), UpdatedAt: t0.Add(-time.Hour)})
	if docs, _ := st.ListState(ctx, a, mnemo.StateRun); len(docs) != 1 || docs[0].ID != "r" {
		t.Fatalf("list = %+v", docs)
	}
	if idle, _ := st.IdleState(ctx, mnemo.StateRun, t0, 0); len(idle) != 1 || idle[0].ID != "old" || idle[0].Scope != b {
		t.Fatalf("idle = %+v", idle)
	}
	if _, err := st.DeleteState(ctx, a, mnemo.StateRun, "r", 1); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Fatalf("delete a changed document: %v", err)
	}
	if ok, err := st.DeleteState(ctx, a, mnemo.StateRun, "r", 2); !ok || err != nil {
		t.Fatalf("delete: %v, %v", ok, err)
	}
	if ok, err := st.DeleteState(ctx, a, mnemo.StateRun, "r", 0); ok || err != nil {
		t.Fatalf("delete again: %v, %v", ok, err)
	}
}
