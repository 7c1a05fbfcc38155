package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/memory"
)

// tinyModel2Vec writes a tiny model2vec model (4-d, a WordPiece vocabulary
// of a dozen words) into a directory and returns it: no package ships
// real weights.
func tinyModel2Vec(t *testing.T) string {
	t.Helper()
	words := []string{"[PAD]", "[UNK]", "the", "boat", "harbour", "ship", "port", "cake", "oven", "bread", "##s", "!"}
	rows := [][]float32{{0, 0, 0, 0}, {0, 0, 0, 0}, {.1, .1, .1, .1}, {1, .1, 0, 0}, {.9, .3, 0, 0}, {1, 0, .1, 0}, {.8, .2, .1, 0},
		{0, 0, 1, .1}, {0, .1, .9, .2}, {0, 0, .8, .3}, {.1, .1, .1, .1}, {0, 0, 0, 0}}
	var data []byte
	for _, r := range rows {
		for _, x := range r {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(x))
		}
	}
	head, _ := json.Marshal(map[string]any{"embeddings": map[string]any{"dtype": "F32", "shape": []int{len(words), 4}, "data_offsets": []int{0, len(data)}}})
	st := append(binary.LittleEndian.AppendUint64(nil, uint64(len(head))), head...)
	vocab := map[string]int{}
	for i, w := range words {
		vocab[w] = i
	}
	tok, _ := json.Marshal(map[string]any{
		"normalizer": map[string]any{"type": "BertNormalizer", "lowercase": true},
		"model":      map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "vocab": vocab},
	})
	dir := filepath.Join(t.TempDir(), "tiny")
	os.MkdirAll(dir, 0o755)
	for name, b := range map[string][]byte{"model.safetensors": append(st, data...), "tokenizer.json": tok} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestModel2VecProvider: embedding.provider model2vec with embedding.path
// embeds with the local model: a recall by meaning finds a memory that
// shares no word with the query (EMB-1).
func TestModel2VecProvider(t *testing.T) {
	t.Parallel()
	model := tinyModel2Vec(t)
	cfg := filepath.Join(t.TempDir(), "mnemo.yml")
	if err := os.WriteFile(cfg, []byte("embedding:\n  provider: model2vec\n  path: "+model+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mnemo := runner(t, dir)
	mnemo("--config", cfg, "remember", "The boat is in the harbour")
	mnemo("--config", cfg, "remember", "Bread and cake in the oven")
	var res memory.Result
	out := mnemo("--config", cfg, "--json", "recall", "--profile", "semantic", "--explain", "ships port")
	if json.Unmarshal([]byte(out), &res) != nil || len(res.Results) == 0 || !strings.Contains(res.Results[0].Content, "boat") ||
		res.Results[0].Explain.Vector != "indexed" {
		t.Fatalf("recall by meaning: %s", out)
	}
	out = mnemo("--config", cfg, "--json", "stats")
	if !strings.Contains(out, "model2vec:tiny") {
		t.Fatalf("stats name no model2vec model: %s", out)
	}

	// No path, or a directory with no model: a configuration error.
	bad := filepath.Join(t.TempDir(), "bad.yml")
	os.WriteFile(bad, []byte("embedding:\n  provider: model2vec\n"), 0o644)
	if code, _, errs := run(t, dir, "", "--config", bad, "recall", "x"); code == 0 || !strings.Contains(errs, "embedding.path") {
		t.Fatalf("no path: %d %s", code, errs)
	}
	os.WriteFile(bad, []byte("embedding:\n  provider: model2vec\n  path: "+t.TempDir()+"\n"), 0o644)
	if code, _, errs := run(t, dir, "", "--config", bad, "recall", "x"); code == 0 || !strings.Contains(errs, "model.safetensors") {
		t.Fatalf("no model: %d %s", code, errs)
	}
}
