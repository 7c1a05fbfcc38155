package http_test

import (
	"testing"
	"time"

	mhttp "github.com/mnemo-dev/mnemo/http"
)

// TestWriteNotApplied checks that a keyed write losing last-write-wins says
// so, with the winner's time, alone and in a batch.
func TestWriteNotApplied(t *testing.T) {
	base := serve(t, mhttp.Options{})
	var first struct {
		UpdatedAt time.Time `json:"updated_at"`
		Applied   bool      `json:"applied"`
	}
	if st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "key": "/city", "content": "lives in Berlin"}, &first); st != 201 || !first.Applied {
		t.Fatalf("first write: %d %s", st, raw)
	}
	stale := first.UpdatedAt.Add(-time.Hour).Format(time.RFC3339Nano)
	var lost struct {
		Content         string     `json:"content"`
		Applied         bool       `json:"applied"`
		WinnerUpdatedAt *time.Time `json:"winner_updated_at"`
	}
	st, raw := call(t, "POST", base+"/v1/memories", map[string]any{"agent_id": "a", "key": "/city", "content": "lives in Rome", "updated_at": stale}, &lost)
	if st != 201 || lost.Applied || lost.WinnerUpdatedAt == nil || !lost.WinnerUpdatedAt.Equal(first.UpdatedAt) || lost.Content != "lives in Berlin" {
		t.Fatalf("stale write: %d %s; want applied false and winner_updated_at %v", st, raw, first.UpdatedAt)
	}
	var batch struct {
		Applied         []bool       `json:"applied"`
		WinnerUpdatedAt []*time.Time `json:"winner_updated_at"`
	}
	st, raw = call(t, "POST", base+"/v1/memories/batch", map[string]any{"agent_id": "a", "memories": []map[string]any{
		{"key": "/city", "content": "lives in Oslo", "updated_at": stale},
		{"key": "/tea", "content": "likes green tea"},
	}}, &batch)
	if st != 201 || len(batch.Applied) != 2 || batch.Applied[0] || !batch.Applied[1] ||
		batch.WinnerUpdatedAt[0] == nil || !batch.WinnerUpdatedAt[0].Equal(first.UpdatedAt) || batch.WinnerUpdatedAt[1] != nil {
		t.Fatalf("batch: %d %s", st, raw)
	}
}
