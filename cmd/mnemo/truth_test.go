package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// writeAhead stores, in the data directory's SQLite file, a revision of key
// dated an hour from now: any write from the CLI then loses to it.
func writeAhead(t *testing.T, dir string, sc mnemo.Scope, key, content string) time.Time {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ahead := time.Now().Add(time.Hour).UTC()
	res, err := service.New(db, service.Options{}).Write(context.Background(), sc, []mnemo.Draft{{Key: key, Content: &content, UpdatedAt: &ahead}})
	if err != nil || !res[0].Applied {
		t.Fatalf("write ahead: %+v %v", res, err)
	}
	return res[0].UpdatedAt
}

func TestRememberNotApplied(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, _, errs := run(t, dir, "", "remember", "--key", "/city", "lives in Paris"); code != 0 {
		t.Fatalf("remember: %s", errs)
	}
	winner := writeAhead(t, dir, mnemo.Scope{TenantID: "default", AgentID: "default"}, "/city", "lives in Berlin")
	code, out, errs := run(t, dir, "", "remember", "--key", "/city", "lives in Rome")
	if code != 0 || !strings.Contains(errs, "not applied") || !strings.Contains(errs, winner.Format(time.RFC3339Nano)) {
		t.Fatalf("stale remember: exit %d, stdout %q, stderr %q; want a 'not applied' note with %v", code, out, errs, winner)
	}
	code, out, _ = run(t, dir, "", "remember", "--json", "--key", "/city", "lives in Oslo")
	var res memory.WriteResult
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Applied || res.WinnerUpdatedAt == nil || !res.WinnerUpdatedAt.Equal(winner) {
		t.Fatalf("stale remember --json: %d %s", code, out)
	}
}

// TestRecallExplainShowsTheFormula checks that --explain prints what the
// score is made of: the hybrid product's factors, and the weighted sum's
// weights, never a weight of 0.00 beside a non-zero score.
func TestRecallExplainShowsTheFormula(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runner(t, dir)
	r("remember", "Moved to Lisbon in 2024")
	out := r("recall", "--explain", "Lisbon")
	if strings.Contains(out, "× 0.00") || !strings.Contains(out, "× priority_vitality") || !strings.Contains(out, "= product") {
		t.Errorf("recall --explain (hybrid):\n%s\nwant the factors of the product, no zero weights", out)
	}
	out = r("recall", "--profile", "seed001", "--explain", "Lisbon")
	if !strings.Contains(out, "keyword") || !strings.Contains(out, "× 0.40") || !strings.Contains(out, "sum") {
		t.Errorf("recall --explain (seed001):\n%s\nwant keyword × 0.40 and the sum", out)
	}
}

// TestJSONLeavesVectorsOut checks that --json prints no vector unless
// --include-embedding asks for it.
func TestJSONLeavesVectorsOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runner(t, dir)
	r("remember", "--key", "/city", "Moved to Lisbon in 2024")
	for _, args := range [][]string{{"get", "--json", "--key", "/city"}, {"list", "--json"}, {"recall", "--json", "Lisbon"}, {"remember", "--json", "Likes green tea"}} {
		if out := r(args...); strings.Contains(out, `"embedding"`) {
			t.Errorf("%v printed a vector:\n%.400s", args, out)
		}
	}
	for _, args := range [][]string{{"get", "--json", "--include-embedding", "--key", "/city"}, {"list", "--json", "--include-embedding"}} {
		if out := r(args...); !strings.Contains(out, `"embedding": [`) {
			t.Errorf("%v printed no vector:\n%.400s", args, out)
		}
	}
}

// TestImportIntoAnotherAgent exports agent a and imports it into agent b of
// the same store: new ids, printed old and new.
func TestImportIntoAnotherAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runner(t, dir)
	id := strings.TrimSpace(r("--agent", "a", "remember", "likes green tea"))
	file := filepath.Join(t.TempDir(), "a.jsonl")
	r("--agent", "a", "export", "-o", file)
	out := r("--agent", "b", "import", file)
	if !strings.Contains(out, "imported 1") || !strings.Contains(out, id+" ") {
		t.Fatalf("import into b:\n%s\nwant the old id %s and its new one", out, id)
	}
	var res struct {
		Imported int               `json:"imported"`
		IDs      map[string]string `json:"ids"`
	}
	if err := json.Unmarshal([]byte(r("--agent", "b", "--json", "import", file)), &res); err != nil || res.IDs[id] == "" {
		t.Fatalf("import --json: %+v %v", res, err)
	}
	if got := r("--agent", "b", "list"); !strings.Contains(got, res.IDs[id]) {
		t.Errorf("b lists:\n%s\nwant %s", got, res.IDs[id])
	}
}
