package failover_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/failover"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// BenchmarkReplay measures the spool's replay rate into PostgreSQL 15:
// 5,000 memories written while the database was unreachable (batches of
// 50, one in five keyed), replayed in batches of DefaultReplayBatch once
// it answers. Reported as records/s.
//
//	go test -run '^$' -bench Replay -benchtime 3x ./failover
func BenchmarkReplay(b *testing.B) {
	const n, batch = 5000, 50
	ctx := context.Background()
	px, dsn := newProxy(b, pgtest.Native(b))
	var replayed int
	var took time.Duration
	for i := range b.N {
		b.StopTimer()
		px.down()
		// NoSync: the spool's fsyncs are the setup's, not the replay's.
		fs, err := failover.New(ctx, opener(dsn), filepath.Join(b.TempDir(), "spool"), failover.Options{ProbeEvery: time.Hour, NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		svc := service.New(fs, service.Options{Guard: memory.GuardOptions{Off: true}})
		scope := mnemo.Scope{TenantID: "bench", AgentID: fmt.Sprintf("agent-%d", i)}
		for j := 0; j < n; j += batch {
			drafts := make([]mnemo.Draft, batch)
			for k := range drafts {
				drafts[k] = mnemo.Draft{Content: str(fmt.Sprintf("memory %d of the outage: the deploy of service %d moved to week %d", j+k, (j+k)%37, (j+k)%52))}
				if k%5 == 0 {
					drafts[k].Key = fmt.Sprintf("/bench/key/%d", (j+k)%100)
				}
			}
			if _, err := svc.Write(ctx, scope, drafts); err != nil {
				b.Fatal(err)
			}
		}
		px.up()
		b.StartTimer()
		start := time.Now()
		got, err := fs.Replay(ctx)
		took += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if got != n || !fs.Up() {
			b.Fatalf("replayed %d of %d, up %v, replaying %v, spooled %d", got, n, fs.Up(), fs.Replaying(), fs.Spooled())
		}
		replayed += got
		b.StopTimer()
		svc.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(replayed)/took.Seconds(), "records/s")
}
