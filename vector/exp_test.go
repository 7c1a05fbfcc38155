package vector

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

func envInt(k string, d int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil {
		return v
	}
	return d
}

func TestExperiment(t *testing.T) {
	if os.Getenv("EXP") == "" {
		t.Skip()
	}
	if v, err := strconv.ParseFloat(os.Getenv("SPREAD"), 64); err == nil {
		spread = v
	}
	n, dim := envInt("N", 20000), envInt("DIM", 100)
	data := dataset(n, dim, 1)
	qs := queries(200, n, dim, 1)
	x := New(dim, Options{M: envInt("M", 16), EfConstruction: envInt("EFC", 128), ExactBelow: 1})
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i)
	}
	start := time.Now()
	if err := x.AddBatch(ids, data); err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	fmt.Printf("build %d x %d: %v (%.0f/s)\n", n, dim, el, float64(n)/el.Seconds())
	truth := make([][]uint64, len(qs))
	for i, q := range qs {
		truth[i] = bruteForce(data, q, 10)
	}
	// quantised exact
	var rq float64
	for i, q := range qs {
		rq += recall(x.exact(x.normalized(q), 10, nil), truth[i])
	}
	fmt.Printf("exact-quantised recall %.4f\n", rq/float64(len(qs)))
	for _, ef := range []int{16, 32, 48, 64, 96, 128, 192, 256} {
		x.opts.EfSearch = ef
		var r float64
		start := time.Now()
		for i, q := range qs {
			r += recall(x.Search(q, 10, nil), truth[i])
		}
		fmt.Printf("ef %d recall %.4f  %.3f ms/q\n", ef, r/float64(len(qs)), float64(time.Since(start).Microseconds())/1000/float64(len(qs)))
	}
}
