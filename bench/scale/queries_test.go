package scale

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
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
// (PERF-14). $MNEMO_SCALE_QUERY_COUNT says how many (default 1000).
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

// TestWriteVectors writes the first $MNEMO_SCALE_VECTOR_COUNT embeddings
// (default all) of the store at $MNEMO_SCALE_DB, in the order its ANN
// indexer inserts them (vector_rev), to $MNEMO_SCALE_VECTORS as
// little-endian float32s: for vector's BenchmarkIndexFileBuild to build
// an index of a store's real vectors of any size without one saved
// (PERF-12). It only reads the store.
//
//	MNEMO_SCALE_DB=… MNEMO_SCALE_VECTORS=/tmp/v.bin go test -run WriteVectors ./bench/scale
func TestWriteVectors(t *testing.T) {
	db, out := os.Getenv("MNEMO_SCALE_DB"), os.Getenv("MNEMO_SCALE_VECTORS")
	if db == "" || out == "" {
		t.Skip("MNEMO_SCALE_DB or MNEMO_SCALE_VECTORS not set")
	}
	n := -1
	if v, err := strconv.Atoi(os.Getenv("MNEMO_SCALE_VECTOR_COUNT")); err == nil && v > 0 {
		n = v
	}
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(`SELECT embedding FROM memories INDEXED BY memories_vector_rev
		WHERE vector_rev > 0 AND tombstone = 0 ORDER BY vector_rev LIMIT ?`, n)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	count := 0
	for rows.Next() {
		var blob sql.RawBytes
		if err := rows.Scan(&blob); err != nil {
			t.Fatal(err)
		}
		if len(blob) == 0 {
			continue
		}
		if _, err := w.Write(blob); err != nil {
			t.Fatal(err)
		}
		count++
	}
	if err := errors.Join(rows.Err(), w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d vectors written to %s", count, out)
}
