package http_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/internal/testkit"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// listBenchN is the size of the store the inspector's list is measured on.
const listBenchN = 100_000

// BenchmarkListPage measures GET /v1/memories as the inspector asks for
// it (API-15): a page of 100 in its default order (newest first) with the
// total, first and at a deep offset, through the HTTP handler over a
// 100k-memory SQLite store (kept in the temp dir between runs). The goal
// is 200 ms a page; docs/BENCHMARKS.md has the figures.
//
//	go test -run '^$' -bench BenchmarkListPage -benchtime 50x ./http
func BenchmarkListPage(b *testing.B) {
	path := testkit.KeptStore(b, fmt.Sprintf("mnemo-bench-list-%d", listBenchN), func(svc *service.Mnemo) error {
		c := testkit.NewCorpus(7)
		ctx := context.Background()
		at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; i < listBenchN; i += 1000 {
			ds := make([]mnemo.Draft, 1000)
			for j := range ds {
				created := at.Add(time.Duration(i+j) * time.Minute)
				ds[j] = testkit.Draft(c.Sentence(12), fmt.Sprintf("t%d", (i+j)%20))
				ds[j].CreatedAt = &created
				if (i+j)%3 == 0 {
					ds[j].Key = fmt.Sprintf("/bench/%d/%d", (i+j)%50, i+j)
				}
			}
			if _, err := svc.RememberUnguarded(ctx, testkit.BenchScope, ds); err != nil {
				return err
			}
		}
		return nil
	})
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	srv := mhttp.NewServer(service.New(db, service.Options{}), mhttp.Options{
		Keys: []mhttp.APIKey{apiKey("bench", testkit.BenchScope.TenantID, nil, mhttp.ScopeRead)}})
	for _, bc := range []struct {
		name   string
		offset int
	}{{"first", 0}, {"offset=99900", listBenchN - 100}} {
		b.Run(bc.name, func(b *testing.B) {
			url := fmt.Sprintf("/v1/memories?agent_id=%s&limit=100&offset=%d", testkit.BenchScope.AgentID, bc.offset)
			var took []time.Duration
			for b.Loop() {
				req := httptest.NewRequest("GET", url, nil)
				req.Header.Set("Authorization", "Bearer "+secret("bench"))
				rec := httptest.NewRecorder()
				start := time.Now()
				srv.ServeHTTP(rec, req)
				took = append(took, time.Since(start))
				if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"total":100000`) {
					b.Fatalf("%d %.300s", rec.Code, rec.Body)
				}
			}
			testkit.ReportPercentiles(b, took)
		})
	}
}
