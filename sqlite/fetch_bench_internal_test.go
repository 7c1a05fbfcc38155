package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

// BenchmarkFetchSeqs reads 60 of 600 conversation turns by seq, as each
// of recall's searches does for its candidates (PERF-10): rows of a
// speaker's data, two names, a 612-dimension vector; read from the table,
// or kept from an earlier read.
func BenchmarkFetchSeqs(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "mnemo.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	space := mnemo.VectorSpace{Model: "bench", Dimension: 612}
	if err := db.SetVectorSpace(ctx, space, false); err != nil {
		b.Fatal(err)
	}
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	r := rand.New(rand.NewPCG(1, 2))
	epoch := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	var recs []mnemo.Record
	for i := range 600 {
		v := make([]float32, space.Dimension)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		name := []string{"Caroline", "Melanie"}[i%2]
		data, _ := json.Marshal(map[string]string{"role": "user", "name": name})
		m := mnemo.Memory{
			ID:             fmt.Sprintf("01959581-0000-7000-8000-%012d", i),
			Key:            fmt.Sprintf("/turn/D%d:%d", i/20+1, i%20+1),
			SessionID:      fmt.Sprintf("session_%d", i/20+1),
			Type:           mnemo.TypeEvent,
			Content:        fmt.Sprintf("%s: Hey, I went to the LGBTQ support group yesterday and it was so powerful, %d people came.", name, i),
			Data:           data,
			Entities:       []string{name, "LGBTQ"},
			Confidence:     1,
			CreatedAt:      epoch.Add(time.Duration(i) * time.Minute),
			Embedding:      v,
			EmbeddingModel: space.Model,
		}
		recs = append(recs, mnemo.Record{Memory: m, Index: mnemo.IndexText{Text: m.Content}, Embed: m.Content})
	}
	if _, err := db.Write(ctx, scope, recs); err != nil {
		b.Fatal(err)
	}
	sp, err := db.scopeSpan(ctx, scope)
	if err != nil {
		b.Fatal(err)
	}
	var f mnemo.Filter
	w, err := db.live(ctx, scope, sp, &f)
	if err != nil {
		b.Fatal(err)
	}
	seqs := make([]int64, 60)
	for i := range seqs {
		seqs[i] = sp.lo + int64(i*10)
	}
	if err := db.IndexVectors(ctx); err != nil {
		b.Fatal(err)
	}
	// read: every row read from the table; kept: the rows a search read
	// before, checked (rowCache).
	for _, kept := range []bool{false, true} {
		b.Run(map[bool]string{false: "read", true: "kept"}[kept], func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if !kept {
					db.rows = newRowCache(rowCacheBytes)
				}
				found, err := db.fetchSeqs(ctx, seqs, w)
				if err != nil {
					b.Fatal(err)
				}
				if found[59] == nil {
					b.Fatal("row 59 not found")
				}
			}
			// CPU time, which the other jobs on a shared machine disturb
			// less than wall time.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
