package sqlite

import (
	"context"
	"strings"
	"testing"
)

// TestVectorRevQueryPlans: the indexer's catch-up and the pending scan
// read along the vector_rev index, never the whole scope sorted by rev
// (which made an index build of 100k vectors take 16 minutes), and the
// planner would choose that without INDEXED BY.
func TestVectorRevQueryPlans(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	plan := func(q string) string {
		rows, err := db.reader.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, 5, 1, 1<<40, 32)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var steps []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, detail)
		}
		return strings.Join(steps, "; ")
	}
	for name, q := range map[string]string{"catch-up": catchUpQuery, "pending": pendingQuery} {
		got := plan(q)
		if !strings.Contains(got, "USING INDEX memories_vector_rev") || strings.Contains(got, "TEMP B-TREE") {
			t.Errorf("%s: plan %q, want a search of memories_vector_rev and no sort", name, got)
		}
		// Without INDEXED BY the planner walks the scope's rowid range
		// and sorts: the hint is what makes the plan.
		bare := strings.Replace(q, " INDEXED BY memories_vector_rev", "", 1)
		if got := plan(bare); strings.Contains(got, "USING INDEX memories_vector_rev") && !strings.Contains(got, "TEMP B-TREE") {
			t.Logf("%s: the planner now finds the index without the hint: %q", name, got)
		}
	}
}
