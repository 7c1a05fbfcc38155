package model2vec

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tests write their own tiny models: no package ships real weights.

// st is one tensor to write.
type st struct {
	name, dtype string
	shape       []int
	data        []byte
}

// safetensors writes tensors in the safetensors layout.
func safetensors(ts ...st) []byte {
	head := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var data []byte
	for _, t := range ts {
		head[t.name] = map[string]any{"dtype": t.dtype, "shape": t.shape, "data_offsets": []int{len(data), len(data) + len(t.data)}}
		data = append(data, t.data...)
	}
	h, _ := json.Marshal(head)
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	return append(append(out, h...), data...)
}

func f32s(v []float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// f16s encodes values exact in binary16 (small integers and halves).
func f16s(v []float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, toHalf(x))
	}
	return b
}

func toHalf(x float32) uint16 {
	bits := math.Float32bits(x)
	sign := uint16(bits>>16) & 0x8000
	if x == 0 {
		return sign
	}
	exp := int((bits>>23)&0xff) - 127 + 15
	return sign | uint16(exp)<<10 | uint16((bits>>13)&0x3ff)
}

var vocab = []string{"[PAD]", "[UNK]", "the", "cat", "##s", "sat", "on", "mat", "!", "cafe", "dog", "猫"}

// tokenizerJSON is a WordPiece tokenizer.json as model2vec's potion models
// ship (BERT normaliser, lowercasing).
func tokenizerFile(model string) []byte {
	v := map[string]int{}
	for i, w := range vocab {
		v[w] = i
	}
	b, _ := json.Marshal(map[string]any{
		"version":       "1.0",
		"normalizer":    map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"model":         map[string]any{"type": model, "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": v},
	})
	return b
}

// matrix is row i = (i, 1, -i/2, 0.5) for the 4-d test model.
func matrix() []float32 {
	m := make([]float32, 0, 4*len(vocab))
	for i := range vocab {
		m = append(m, float32(i), 1, -float32(i)/2, 0.5)
	}
	return m
}

// want is the normalised mean of rows.
func want(rows ...int) []float32 {
	m := matrix()
	v := make([]float32, 4)
	for _, r := range rows {
		for k := range v {
			v[k] += m[4*r+k]
		}
	}
	var ss float64
	for _, x := range v {
		ss += float64(x * x)
	}
	for k := range v {
		v[k] /= float32(math.Sqrt(ss))
	}
	return v
}

func close(t *testing.T, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k := range got {
		if math.Abs(float64(got[k]-want[k])) > tol {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func writeModel(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny-model")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestTokenize(t *testing.T) {
	tok, err := parseTokenizer(tokenizerFile("WordPiece"))
	if err != nil {
		t.Fatal(err)
	}
	for text, ids := range map[string][]int32{
		"The cats sat!":      {2, 3, 4, 5, 8},
		"  CAFÉ\ton the mat": {9, 6, 2, 7},  // lowercased, accent stripped
		"the zebra":          {2, 1},        // [UNK]
		"猫cat":               {11, 3},       // CJK split
		"dogs,cat":           {10, 4, 1, 3}, // "," is punctuation, not in the vocabulary
		"":                   nil,
	} {
		if got := tok.encode(text, nil); !slices.Equal(got, ids) {
			t.Errorf("%q: %v, want %v", text, got, ids)
		}
	}
}

func TestEmbed(t *testing.T) {
	dir := writeModel(t, map[string][]byte{
		"model.safetensors": safetensors(st{"embeddings", "F32", []int{len(vocab), 4}, f32s(matrix())}),
		"tokenizer.json":    tokenizerFile("WordPiece"),
		"config.json":       []byte(`{"model_type": "model2vec", "normalize": true, "seq_length": 3}`),
	})
	e, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dimension() != 4 || e.Model() != "model2vec:tiny-model" {
		t.Fatalf("%d %s", e.Dimension(), e.Model())
	}
	vs, err := e.Embed(context.Background(), []string{"The cat sat", "the zebra cat", "zebra", "the cat sat on the mat"})
	if err != nil {
		t.Fatal(err)
	}
	close(t, vs[0], want(2, 3, 5), 1e-6)
	close(t, vs[1], want(2, 3), 1e-6) // [UNK] is left out
	close(t, vs[2], []float32{0, 0, 0, 0}, 0)
	close(t, vs[3], want(2, 3, 5), 1e-6) // seq_length 3
}

func TestEmbedF16WeightsMapping(t *testing.T) {
	// Rows exact in binary16; token i maps to row i%6 (a quantised
	// vocabulary), each row weighted by its weight.
	m := matrix()[:4*6]
	mapping := make([]byte, 0)
	for i := range vocab {
		mapping = binary.LittleEndian.AppendUint64(mapping, uint64(i%6))
	}
	weights := []float32{1, 1, 2, 0.5, 1, 3}
	e, err := New("tiny", safetensors(
		st{"embeddings", "F16", []int{6, 4}, f16s(m)},
		st{"weights", "F32", []int{6}, f32s(weights)},
		st{"mapping", "I64", []int{len(vocab)}, mapping},
	), tokenizerFile("WordPiece"), nil)
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := e.Embed(context.Background(), []string{"the mat"}) // tokens 2 and 7: rows 2 and 1
	v := make([]float32, 4)
	for k := range v {
		v[k] = 2*m[4*2+k] + 1*m[4*1+k]
	}
	var ss float64
	for _, x := range v {
		ss += float64(x * x)
	}
	for k := range v {
		v[k] /= float32(math.Sqrt(ss))
	}
	close(t, vs[0], v, 1e-6)
}

func TestHalf(t *testing.T) {
	for h, f := range map[uint16]float32{0x3c00: 1, 0xc000: -2, 0x3800: 0.5, 0x0001: float32(math.Ldexp(1, -24)), 0x7bff: 65504, 0x0000: 0} {
		if got := half(h); got != f {
			t.Errorf("half(%#x) = %v, want %v", h, got, f)
		}
	}
	if !math.IsInf(float64(half(0x7c00)), 1) || !math.IsNaN(float64(half(0x7e00))) {
		t.Error("inf or nan")
	}
}

func TestRejects(t *testing.T) {
	good := safetensors(st{"embeddings", "F32", []int{len(vocab), 4}, f32s(matrix())})
	for name, c := range map[string]struct{ st, tok []byte }{
		"no header":       {[]byte{1, 2}, tokenizerFile("WordPiece")},
		"header too long": {binary.LittleEndian.AppendUint64(nil, 1<<40), tokenizerFile("WordPiece")},
		"offsets outside": {safetensors(st{"embeddings", "F32", []int{len(vocab), 4}, nil})[:40], tokenizerFile("WordPiece")},
		"shape and bytes": {safetensors(st{"embeddings", "F32", []int{len(vocab), 5}, f32s(matrix())}), tokenizerFile("WordPiece")},
		"no embeddings":   {safetensors(st{"other", "F32", []int{1}, f32s([]float32{1})}), tokenizerFile("WordPiece")},
		"BPE tokenizer":   {good, tokenizerFile("BPE")},
		"not JSON":        {good, []byte("{")},
		"mapping too far": {safetensors(st{"embeddings", "F32", []int{len(vocab), 4}, f32s(matrix())}, st{"mapping", "I32", []int{1}, binary.LittleEndian.AppendUint32(nil, 99)}), tokenizerFile("WordPiece")},
	} {
		if _, err := New("x", c.st, c.tok, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "model.safetensors") {
		t.Errorf("an empty directory: %v", err)
	}
}

// randomModel is a potion-sized model (vocab 30,000, 256 d) of random
// weights over a generated vocabulary, and texts of its words.
func randomModel(tb testing.TB) (*Embedder, []string) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, dim = 30000, 256
	words := []string{"[PAD]", "[UNK]"}
	for len(words) < rows {
		w := make([]byte, 3+rng.IntN(6))
		for i := range w {
			w[i] = byte('a' + rng.IntN(26))
		}
		if len(words)%3 == 0 {
			words = append(words, "##"+string(w))
		} else {
			words = append(words, string(w))
		}
	}
	v := map[string]int{}
	for i, w := range words {
		v[w] = i
	}
	tj, _ := json.Marshal(map[string]any{
		"normalizer": map[string]any{"type": "BertNormalizer", "lowercase": true},
		"model":      map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "vocab": v},
	})
	m := make([]float32, rows*dim)
	for i := range m {
		m[i] = float32(rng.NormFloat64())
	}
	e, err := New("random", safetensors(st{"embeddings", "F32", []int{rows, dim}, f32s(m)}), tj, nil)
	if err != nil {
		tb.Fatal(err)
	}
	texts := make([]string, 1000)
	for i := range texts {
		var b strings.Builder
		for j := range 15 + rng.IntN(10) {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strings.TrimPrefix(words[2+rng.IntN(rows-2)], "##"))
		}
		texts[i] = b.String()
	}
	return e, texts
}

// BenchmarkEmbed: texts/s of a potion-sized model (30,000 × 256), ~20-word
// texts:
//
//	go test -run '^$' -bench Embed -cpu 1 ./embed/model2vec
func BenchmarkEmbed(b *testing.B) {
	e, texts := randomModel(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Embed(ctx, texts[i%len(texts):i%len(texts)+1]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "texts/s")
}

func FuzzSafetensors(f *testing.F) {
	f.Add(safetensors(st{"embeddings", "F32", []int{2, 2}, f32s([]float32{1, 2, 3, 4})}))
	f.Add(safetensors(st{"embeddings", "F16", []int{1, 2}, f16s([]float32{1, 2})}, st{"mapping", "I32", []int{1}, []byte{0, 0, 0, 0}}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, err := readSafetensors(b)
		if err != nil {
			return
		}
		for name, x := range ts {
			n := 1
			for _, d := range x.shape {
				n *= d
			}
			if len(x.f32)+len(x.ints) != n {
				t.Fatalf("%s: %d values for shape %v", name, len(x.f32)+len(x.ints), x.shape)
			}
		}
		// A model from it embeds without panicking.
		if e, err := New("f", b, tokenizerFile("WordPiece"), nil); err == nil {
			e.Embed(context.Background(), []string{"the cat sat"})
		}
	})
}

func FuzzTokenizer(f *testing.F) {
	f.Add(tokenizerFile("WordPiece"), "The CAFÉ cats, sat!")
	f.Add([]byte(`{"model":{"type":"WordPiece","vocab":{"a":0},"continuing_subword_prefix":""}}`), "aaa")
	f.Add([]byte(`{"normalizer":{"type":"Sequence","normalizers":[{"type":"Lowercase"},{"type":"StripAccents"}]},"model":{"type":"WordPiece","vocab":{"é":0}}}`), "É\x00\ufffd")
	f.Add([]byte(`{"normalizer":{"type":"Precompiled"},"pre_tokenizer":{"type":"Metaspace","replacement":"▁"},"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["▁a",-1],["b",-2],["猫",-3],["▁",-4]]}}`), "a b 猫狗\xff ＡＢ")
	f.Fuzz(func(t *testing.T, tj []byte, text string) {
		tok, err := parseTokenizer(tj)
		if err != nil {
			return
		}
		for _, id := range tok.encode(text, nil) {
			if id != tok.unk && !slices.Contains(valuesOf(tok.vocab), id) {
				t.Fatalf("id %d is in no vocabulary entry", id)
			}
		}
	})
}

func valuesOf(m map[string]int32) []int32 {
	out := make([]int32, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestMultilingualModel loads tiny multilingual models as a user would
// bring one (EMB-7), in the directory layout Load reads: a WordPiece
// vocabulary of English words and Chinese characters (BERT splits CJK text
// into characters), and a Unigram one of SentencePiece pieces, as
// potion-multilingual-128M ships, whose rows put a word and its
// translation together. A Chinese text then embeds nearest the English
// text of its meaning.
func TestMultilingualModel(t *testing.T) {
	// Each token's row is its concept's axis: 0 cat, 1 dog, 2 coffee, 3
	// drink, 4 user; other tokens weigh little on all.
	for name, tokens := range map[string]map[string]int{
		"WordPiece": {"cat": 0, "猫": 0, "dog": 1, "狗": 1, "coffee": 2, "咖": 2, "啡": 2,
			"drinks": 3, "喝": 3, "user": 4, "用": 4, "户": 4},
		"Unigram": {"▁cat": 0, "猫": 0, "▁dog": 1, "狗": 1, "▁coffee": 2, "咖啡": 2,
			"▁drinks": 3, "喝": 3, "▁user": 4, "用户": 4},
	} {
		t.Run(name, func(t *testing.T) {
			words := []string{"[PAD]", "[UNK]", "the", "▁the", "▁"}
			for w := range tokens {
				words = append(words, w)
			}
			slices.Sort(words[5:])
			const dim = 5
			var m []float32
			ids := map[string]int{}
			var pieces [][2]any
			for i, w := range words {
				ids[w] = i
				pieces = append(pieces, [2]any{w, -float64(len([]rune(w)) + i%3)})
				row := make([]float32, dim)
				if c, ok := tokens[w]; ok {
					row[c] = 1
				} else {
					for k := range row {
						row[k] = 0.1
					}
				}
				m = append(m, row...)
			}
			var tok []byte
			if name == "WordPiece" {
				tok, _ = json.Marshal(map[string]any{
					"normalizer":    map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "lowercase": true},
					"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
					"model":         map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": ids},
				})
			} else {
				tok, _ = json.Marshal(map[string]any{
					"normalizer":    map[string]any{"type": "Sequence", "normalizers": []any{map[string]any{"type": "Precompiled", "precompiled_charsmap": "AAAA"}}},
					"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{map[string]any{"type": "WhitespaceSplit"}, map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"}}},
					"model":         map[string]any{"type": "Unigram", "unk_id": 1, "vocab": pieces},
				})
			}
			dir := writeModel(t, map[string][]byte{
				"model.safetensors": safetensors(st{"embeddings", "F32", []int{len(words), dim}, f32s(m)}),
				"tokenizer.json":    tok,
				"config.json":       []byte(`{"model_type": "model2vec", "normalize": true}`),
			})
			e, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			english := []string{"the user drinks coffee", "the cat", "the dog"}
			for _, tt := range []struct {
				zh   string
				want int // index in english
			}{
				{"用户喝咖啡", 0},
				{"猫", 1},
				{"狗狗", 2},
			} {
				vs, err := e.Embed(context.Background(), append([]string{tt.zh}, english...))
				if err != nil {
					t.Fatal(err)
				}
				best, bestCos := -1, -2.0
				for i := range english {
					var c float64
					for k := range vs[0] {
						c += float64(vs[0][k]) * float64(vs[1+i][k])
					}
					if c > bestCos {
						best, bestCos = i, c
					}
				}
				if best != tt.want {
					t.Errorf("%q is nearest %q (%.3f), want %q", tt.zh, english[best], bestCos, english[tt.want])
				}
			}
		})
	}
}

// TestUnigram checks Unigram encoding: the pieces of highest total score,
// NFKC for the Precompiled normaliser, Metaspace marks, unknown characters
// as one unknown piece.
func TestUnigram(t *testing.T) {
	pieces := [][2]any{{"<unk>", 0}, {"▁the", -1}, {"▁cat", -2}, {"▁c", -4}, {"at", -3}, {"▁", -5},
		{"s", -5}, {"猫", -3}, {"咖啡", -4}, {"咖", -3}, {"啡", -3}, {"▁a", -2}}
	b, _ := json.Marshal(map[string]any{
		"normalizer": map[string]any{"type": "Precompiled", "precompiled_charsmap": "AAAA"},
		"model":      map[string]any{"type": "Unigram", "unk_id": 0, "vocab": pieces},
	})
	tok, err := parseTokenizer(b)
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string][]int32{
		"the cats": {1, 2, 6}, // ▁the ▁cat s
		"ｃａｔ":      {2},       // NFKC
		"猫":        {5, 7},    // ▁ 猫
		"咖啡":       {5, 8},    // ▁ 咖啡 (-4) over 咖 啡 (-6)
		"狗狗 cat":   {5, 0, 2}, // ▁, one unknown piece for 狗狗, ▁cat
		"a\xffb":   {11, 0},   // invalid UTF-8 and b: unknown
		"":         nil,
		"  \t\n ":  nil,
	} {
		if got := tok.encode(text, nil); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
	for name, model := range map[string]map[string]any{
		"not pairs":   {"type": "Unigram", "vocab": map[string]int{"a": 1}},
		"empty":       {"type": "Unigram", "vocab": []any{}},
		"bad score":   {"type": "Unigram", "vocab": []any{[]any{"a", "x"}}},
		"unk outside": {"type": "Unigram", "unk_id": 5, "vocab": []any{[]any{"a", -1}}},
	} {
		b, _ := json.Marshal(map[string]any{"model": model})
		if _, err := parseTokenizer(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
