package scale

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/mnemo-dev/mnemo/embed/glove"
)

// TestWriteQueries writes the embeddings of the benchmark's recall queries
// (the built-in embedder, the generator's seed 2, as Run times them) to
// $MNEMO_SCALE_QUERIES, little-endian float32, one query after another:
// for vector's BenchmarkIndexFile to search a store's index file with
// (issue 20). $MNEMO_SCALE_QUERY_COUNT says how many (default 1000).
//
//	MNEMO_SCALE_QUERIES=/tmp/q.bin go test -run WriteQueries ./bench/scale
func TestWriteQueries(t *testing.T) {
	out := os.Getenv("MNEMO_SCALE_QUERIES")
	if out == "" {
		t.Skip("MNEMO_SCALE_QUERIES not set")
	}
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("MNEMO_SCALE_QUERY_COUNT")); err == nil && v > 0 {
		n = v
	}
	emb, err := embedder(EmbedderBuiltin)
	if err != nil {
		t.Fatal(err)
	}
	words, err := glove.New().Words(vocabulary)
	if err != nil {
		t.Fatal(err)
	}
	g := newGenerator(words, 2)
	var buf []byte
	for range n {
		vs, err := emb.Embed(context.Background(), []string{g.query()})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range vs[0] {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
		}
	}
	if err := os.WriteFile(out, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}
