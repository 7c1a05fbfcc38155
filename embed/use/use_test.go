package use

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mnemo-dev/mnemo/cpugate"
)

// golden is testdata/golden.json, written by scripts/use/golden.js from the
// reference TF.js implementation.
type golden struct {
	Sentences []struct {
		Text      string    `json:"text"`
		Tokens    []int32   `json:"tokens"`
		Embedding []float32 `json:"embedding"`
	} `json:"sentences"`
	Tokens []struct {
		Text   string  `json:"text"`
		Tokens []int32 `json:"tokens"`
	} `json:"tokens"`
}

// loaded is one Embedder, loaded, shared by the tests that do not test
// loading itself: decoding the model takes most of a second under -race.
var loaded = sync.OnceValues(func() (*Embedder, error) {
	e := New()
	_, err := e.Load()
	return e, err
})

func loadedEmbedder(t testing.TB) *Embedder {
	t.Helper()
	e, err := loaded()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func readGolden(t testing.TB) *golden {
	t.Helper()
	data, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func TestTokenizerMatchesReference(t *testing.T) {
	e := loadedEmbedder(t)
	g := readGolden(t)
	cases := g.Tokens
	for _, s := range g.Sentences {
		cases = append(cases, struct {
			Text   string  `json:"text"`
			Tokens []int32 `json:"tokens"`
		}{s.Text, s.Tokens})
	}
	for _, c := range cases {
		want := c.Tokens
		if len(want) > maxTextTokens {
			want = want[:maxTextTokens]
		}
		if got := e.model.tok.encode(c.Text); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("encode(%q) = %v, want %v", c.Text, got, want)
		}
	}
}

// allPaths lists every matmul path; tests skip those the CPU lacks.
var allPaths = []path{pathGo, pathAVX2, pathAVXVNNI, pathVNNI}

// pathEmbedders holds one Embedder per supported path, loaded once.
var pathEmbedders = sync.OnceValues(func() (map[path]*Embedder, error) {
	m := make(map[path]*Embedder)
	for _, p := range allPaths {
		if !p.supported() {
			continue
		}
		mod, err := loadModelPath(modelFile, nfkcFile, p, false)
		if err != nil {
			return nil, err
		}
		e := New()
		e.once.Do(func() { e.model = mod })
		m[p] = e
	}
	return m, nil
})

// embedGolden embeds the golden sentences with e as the reference does:
// through Embed, but for those longer than the model reads, which TF.js
// cuts to their first maxTokens tokens where Embed reads them in windows
// (TestLongTextWindows): those through the forward pass of their first
// maxTokens tokens.
func embedGolden(t *testing.T, e *Embedder, g *golden) [][]float32 {
	t.Helper()
	texts := make([]string, len(g.Sentences))
	for i, s := range g.Sentences {
		texts[i] = s.Text
	}
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if ids := e.model.tok.encode(text); len(ids) > maxTokens {
			got[i] = e.model.forward([][]int32{ids[:maxTokens]})[0]
		}
	}
	return got
}

// TestEmbedMatchesReference checks every path the CPU supports (the
// portable loops, AVX2 float32, AVX-512 VNNI int8) against the same
// golden vectors from TF.js, at a cosine of at least 0.999 each: a faster
// path must not change what recall finds (PERF-8).
func TestEmbedMatchesReference(t *testing.T) {
	g := readGolden(t)
	es, err := pathEmbedders()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("path picked for this CPU: %v", bestPath())
	for _, p := range allPaths {
		t.Run(p.String(), func(t *testing.T) {
			e := es[p]
			if e == nil {
				t.Skipf("this CPU has no %v path", p)
			}
			if p == pathGo && raceEnabled {
				t.Skip("the portable path's loops run without -race (make test's unit step, FULLSIZE)")
			}
			got := embedGolden(t, e, g)
			worst := 1.0
			for i, s := range g.Sentences {
				c := cosine(got[i], s.Embedding)
				worst = min(worst, c)
				if c < 0.999 {
					t.Errorf("cosine(%q) = %.5f, want >= 0.999", s.Text, c)
				}
			}
			t.Logf("%v: lowest cosine with the reference: %.7f", p, worst)
		})
	}
}

// TestInt8PathsMatchVNNI: the AVX2 and AVX-VNNI paths run the int8 layers
// with the VNNI path's weights, codes and sums, so that a store's vectors
// do not depend on which of the CPUs made them: every golden text, one at
// a time and in a batch, gets the same vector to the bit.
func TestInt8PathsMatchVNNI(t *testing.T) {
	es, err := pathEmbedders()
	if err != nil {
		t.Fatal(err)
	}
	if es[pathVNNI] == nil {
		t.Skip("this CPU lacks AVX-512 VNNI")
	}
	g := readGolden(t)
	texts := make([]string, len(g.Sentences))
	for i, s := range g.Sentences {
		texts[i] = s.Text
	}
	ctx := context.Background()
	for _, p := range []path{pathAVX2, pathAVXVNNI} {
		if es[p] == nil {
			t.Logf("this CPU lacks the %s path", p)
			continue
		}
		for _, batch := range []bool{false, true} {
			var want, got [][]float32
			if batch {
				if want, err = es[pathVNNI].Embed(ctx, texts); err != nil {
					t.Fatal(err)
				}
				if got, err = es[p].Embed(ctx, texts); err != nil {
					t.Fatal(err)
				}
			} else {
				for _, text := range texts {
					w, err := es[pathVNNI].Embed(ctx, []string{text})
					if err != nil {
						t.Fatal(err)
					}
					g, err := es[p].Embed(ctx, []string{text})
					if err != nil {
						t.Fatal(err)
					}
					want, got = append(want, w[0]), append(got, g[0])
				}
			}
			for i := range want {
				for j := range want[i] {
					if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
						t.Fatalf("batch %v: %q: component %d = %v on %s, %v on VNNI", batch, texts[i], j, got[i][j], p, want[i][j])
					}
				}
			}
		}
	}
}

// int8Layer0Embedder is the VNNI path with layer 0 in int8 too, which
// loadModelPath keeps off; nil when the CPU lacks the path.
var int8Layer0Embedder = sync.OnceValues(func() (*Embedder, error) {
	if !pathVNNI.supported() {
		return nil, nil
	}
	mod, err := loadModelPath(modelFile, nfkcFile, pathVNNI, true)
	if err != nil {
		return nil, err
	}
	e := New()
	e.once.Do(func() { e.model = mod })
	return e, nil
})

// TestInt8Layer0MatchesReference: layer 0 in int8, off by default, still
// meets the golden vectors at 0.999.
func TestInt8Layer0MatchesReference(t *testing.T) {
	e, err := int8Layer0Embedder()
	if err != nil {
		t.Fatal(err)
	}
	if e == nil {
		t.Skip("this CPU has no VNNI path")
	}
	if e.model.layer0.qkv == nil {
		t.Fatal("layer 0 is not in int8")
	}
	if d, _ := pathEmbedders(); d[pathVNNI] != nil && d[pathVNNI].model.layer0.qkv != nil {
		t.Error("the default VNNI model runs layer 0 in int8")
	}
	g := readGolden(t)
	got := embedGolden(t, e, g)
	worst := 1.0
	for i, s := range g.Sentences {
		c := cosine(got[i], s.Embedding)
		worst = min(worst, c)
		if c < 0.999 {
			t.Errorf("cosine(%q) = %.5f, want >= 0.999", s.Text, c)
		}
	}
	t.Logf("lowest cosine with the reference: %.7f", worst)
}

// TestLayer0TablesMatchProducts: layer 0's projections from the per-token
// tables give, on every path, the vectors of the matrix products over its
// input that they replace (the same float32 sums in another order; on the
// int8 path a later layer's rounding of its input can move by a step), and
// the same vectors whether a batch filled the rows it reads or an earlier
// one did.
func TestLayer0TablesMatchProducts(t *testing.T) {
	g := readGolden(t)
	texts := slices.Clone(shortTexts)
	for _, s := range g.Sentences {
		texts = append(texts, s.Text)
	}
	for _, p := range allPaths {
		t.Run(p.String(), func(t *testing.T) {
			if !p.supported() {
				t.Skipf("this CPU has no %v path", p)
			}
			if p == pathGo && raceEnabled {
				t.Skip("the portable path's loops run without -race (make test's unit step, FULLSIZE)")
			}
			m, err := loadModelPath(modelFile, nfkcFile, p, false)
			if err != nil {
				t.Fatal(err)
			}
			products := *m
			products.layer0 = nil // layer 0's products run over its input
			docs := make([][]int32, len(texts))
			for i, text := range texts {
				docs[i] = m.tok.encode(text)
			}
			want := products.forward(docs)
			filling := m.forward(docs) // every token new to the tables
			worst := 1.0
			for i, text := range texts {
				filled := m.forward(docs[i : i+1])[0] // every row there
				if !slices.Equal(filled, filling[i]) {
					t.Errorf("%q: the vector from filled rows differs from the one that filled them", text)
				}
				c := cosine(filled, want[i])
				worst = min(worst, c)
				if c < 0.99995 {
					t.Errorf("%q: cosine with the products = %.7f, want >= 0.99995", text, c)
				}
			}
			t.Logf("%v: lowest cosine with the products: %.7f", p, worst)
		})
	}
}

func TestEmbedderIdentity(t *testing.T) {
	e := New()
	if got := e.Model(); got != "use-lite-512-v1" {
		t.Errorf("Model() = %q", got)
	}
	if got := e.Dimension(); got != 512 {
		t.Errorf("Dimension() = %d", got)
	}
	d, err := e.Load()
	if err != nil {
		t.Fatal(err)
	}
	if d2, _ := e.Load(); d2 != d {
		t.Errorf("second Load reported %v, first %v", d2, d)
	}
	t.Logf("load time: %v", d)
}

// TestEmbedEdgeCases checks the inputs the reference handles badly or not
// at all: every one must give a finite unit vector.
func TestEmbedEdgeCases(t *testing.T) {
	tests := []struct {
		name string
		text string
	}{
		{"empty", ""},
		{"spaces", "    "},
		{"chinese", "我喜欢吃北京烤鸭"},
		{"japanese", "東京は日本の首都です。"},
		{"emoji", "😀🎉👍"},
		{"invalid utf-8", "caf\xe9 \xff\xfe"},
		{"nul", "\x00\x00"},
		{"combining marks", "e\u0301\u0301\u0301\u0301\u0323"},
		{"very long", strings.Repeat("antidisestablishmentarianism ", 400)},
		{"hangul jamo", "\u1100\u1161\u11a8 \u3131\u314f"},
	}
	e := loadedEmbedder(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vecs, err := e.Embed(context.Background(), []string{tt.text})
			if err != nil {
				t.Fatal(err)
			}
			checkUnit(t, vecs[0])
		})
	}
}

func checkUnit(t testing.TB, v []float32) {
	t.Helper()
	if len(v) != Dimension {
		t.Fatalf("len = %d, want %d", len(v), Dimension)
	}
	var sum float64
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("component %d = %v", i, x)
		}
		sum += float64(x) * float64(x)
	}
	if math.Abs(sum-1) > 1e-4 {
		t.Fatalf("squared norm = %v, want 1", sum)
	}
}

// TestOutOfVocabularyScripts documents what the model does with text it
// has no pieces for: one unknown token per space-separated run, so texts of
// the same shape collide.
func TestOutOfVocabularyScripts(t *testing.T) {
	e := loadedEmbedder(t)
	vecs, err := e.Embed(context.Background(), []string{"我喜欢吃北京烤鸭", "東京は日本の首都です。", "今天天气很好"})
	if err != nil {
		t.Fatal(err)
	}
	if c := cosine(vecs[0], vecs[1]); c < 0.99999 {
		t.Errorf("cosine of two unrelated all-CJK texts = %v; the model was expected to collide them", c)
	}
	if got := e.model.tok.encode("我喜欢吃北京烤鸭"); !slices.Equal(got, []int32{30, 0}) {
		t.Errorf("encode(Chinese) = %v, want [30 0] (▁, unknown)", got)
	}
}

// TestBatchingIsInvisible checks, on every path the CPU supports, that a
// text's vector does not depend on the batch it is in, including batches
// split into chunks and spread over goroutines: bit for bit, as every row
// is computed alone (its own quantisation, layer norm and attention) in
// the same order of operations wherever it stands.
func TestBatchingIsInvisible(t *testing.T) {
	g := readGolden(t)
	var texts []string
	for range 2 { // 2 copies: several chunks of chunkTokens
		for _, s := range g.Sentences {
			texts = append(texts, s.Text)
		}
	}
	es, err := pathEmbedders()
	if err != nil {
		t.Fatal(err)
	}
	for p, e := range es {
		if p == pathGo && raceEnabled {
			continue // run without the race detector (raceEnabled)
		}
		batch, err := e.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts[:len(g.Sentences)] {
			one, err := e.Embed(context.Background(), []string{text})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(one[0], batch[i]) {
				t.Errorf("%v: %q: alone and in a batch, the vectors differ (cosine %v)", p, text, cosine(one[0], batch[i]))
			}
			if !slices.Equal(batch[i], batch[i+len(g.Sentences)]) {
				t.Errorf("%v: %q: two copies in one batch differ (cosine %v)", p, text, cosine(batch[i], batch[i+len(g.Sentences)]))
			}
		}
	}
}

func TestEmbedConcurrent(t *testing.T) {
	e := New() // not loaded: the goroutines race to load it
	var wg sync.WaitGroup
	results := make([][][]float32, 8)
	for g := range results {
		wg.Go(func() {
			vecs, err := e.Embed(context.Background(), shortTexts)
			if err != nil {
				t.Error(err)
			}
			results[g] = vecs
		})
	}
	wg.Wait()
	for g := 1; g < len(results); g++ {
		for i := range shortTexts {
			if !slices.Equal(results[g][i], results[0][i]) {
				t.Errorf("goroutine %d, text %d: vector differs", g, i)
			}
		}
	}
}

func TestEmbedNoTexts(t *testing.T) {
	vecs, err := loadedEmbedder(t).Embed(context.Background(), nil)
	if err != nil || len(vecs) != 0 {
		t.Errorf("Embed(nil) = %d vectors, %v; want none, nil", len(vecs), err)
	}
}

func TestEmbedCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := loadedEmbedder(t).Embed(ctx, []string{"hello"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestKernelsAgree checks the assembly kernel against the portable one,
// including row counts that are not a multiple of the block.
func TestKernelsAgree(t *testing.T) {
	e := loadedEmbedder(t)
	l := e.model.layers[0].qkv
	for _, rows := range []int{1, 3, 4, 7} {
		x := make([]float32, rows*l.in)
		for i := range x {
			x[i] = float32(math.Sin(float64(i)))
		}
		want := make([]float32, rows*l.out)
		got := make([]float32, rows*l.out)
		l.apply(gemmGo, want, x, rows)
		l.apply(bestPath().kernel(), got, x, rows)
		for i := range want {
			if d := math.Abs(float64(got[i] - want[i])); d > 1e-4*(1+math.Abs(float64(want[i]))) {
				t.Fatalf("rows=%d: element %d = %v, want %v", rows, i, got[i], want[i])
			}
		}
	}
}

func TestNFKC(t *testing.T) {
	e := loadedEmbedder(t)
	tests := []struct{ in, want string }{
		{"plain ascii", "plain ascii"},
		{"ﬁne", "fine"},
		{"ＡＢＣ１２３", "ABC123"},
		{"x²", "x2"},
		{"a\u00a0b", "a b"},
		{"…", "..."},
		{"e\u0301", "é"},
		{"\u212b", "Å"},
		{"q\u0307\u0323", "q\u0323\u0307"},
		{"\u1e9b\u0323", "\u1e69"},
		{"\u1100\u1161\u11a8", "각"},
		{"\u3131\u314f", "가"},
		{"ｶﾞ", "ガ"},
	}
	for _, tt := range tests {
		if got := e.model.tok.norm.String(tt.in); got != tt.want {
			t.Errorf("NFKC(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHalfToFloat(t *testing.T) {
	tests := []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0},
		{0x3c00, 1},
		{0xc000, -2},
		{0x3555, 0.33325195},
		{0x7bff, 65504},
		{0x0001, 5.9604645e-8}, // smallest subnormal
		{0x03ff, 6.097555e-5},  // largest subnormal
		{0x7c00, float32(math.Inf(1))},
	}
	for _, tt := range tests {
		if got := halfToFloat(tt.h); got != tt.want {
			t.Errorf("halfToFloat(%#04x) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

func FuzzEmbed(f *testing.F) {
	for _, s := range []string{"", "hello world", "我喜欢", "\xff", "e\u0301\u0323", "▁▁", "a  b",
		strings.Repeat("a long text in windows ", 40), strings.Repeat("x y ", 800)} {
		f.Add(s)
	}
	e := loadedEmbedder(f)
	f.Fuzz(func(t *testing.T, text string) {
		vecs, err := e.Embed(context.Background(), []string{text, "anchor text"})
		if err != nil {
			t.Fatal(err)
		}
		checkUnit(t, vecs[0])
		checkUnit(t, vecs[1])
	})
}

// TestQGemm checks the int8 kernel against a float64 product of the same
// quantised operands, for row counts that are not a multiple of the block.
func TestQGemm(t *testing.T) {
	if !pathVNNI.supported() {
		t.Skip("this CPU has no AVX-512 VNNI")
	}
	es, err := pathEmbedders()
	if err != nil {
		t.Fatal(err)
	}
	m := es[pathVNNI].model
	l := m.layers[1].ffn2
	float := es[pathGo].model.layers[1].ffn2 // the int8 paths keep no float32 weights
	for _, rows := range []int{1, 3, 4, 7} {
		padded := (rows + blockRows - 1) / blockRows * blockRows
		x := make([]float32, padded*l.in)
		for i := range x[:rows*l.in] {
			x[i] = float32(math.Sin(float64(i))) * 3
		}
		sc := getScratch(padded)
		got := make([]float32, padded*l.out)
		m.apply(l, got, x, rows, sc)
		want := make([]float32, rows*l.out)
		float.apply(gemmGo, want, x, rows)
		q := l.q
		for r := range rows {
			for o := range l.out {
				// The exact product of the quantised operands.
				var sum float64
				for i := range l.in {
					w := q.w[((o/qGroup*(l.in/4)+i/4)*4+(o%qGroup)/16)*64+(o%16)*4+i%4]
					a := float64(sc.sa[r]) * (float64(sc.qa[r*l.in+i]) - float64(sc.zp[r]))
					sum += a * float64(w) * float64(q.sw[o])
				}
				exact := sum + float64(l.bias[o])
				if d := math.Abs(float64(got[r*l.out+o]) - exact); d > 1e-3*(1+math.Abs(exact)) {
					t.Fatalf("rows=%d: element [%d][%d] = %v, want %v", rows, r, o, got[r*l.out+o], exact)
				}
			}
			// And the float product, within the activations' rounding.
			if c := cosine(got[r*l.out:(r+1)*l.out], want[r*l.out:(r+1)*l.out]); c < 0.999 {
				t.Fatalf("rows=%d: row %d: cosine with the float product %v", rows, r, c)
			}
		}
		scratchPool.Put(sc)
	}
}

// TestQuantizeRows checks the assembly activation quantisers against the
// portable one: the same scales and zero points, codes within one step;
// and AVX2's codes, widened and as bytes, against AVX-512's, exactly.
func TestQuantizeRows(t *testing.T) {
	if !pathAVX2.supported() {
		t.Skip("this CPU has no AVX2")
	}
	const rows, in = 5, 1536
	x := make([]float32, rows*in)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)*0.37)) * float32(1+i%5)
		if i/in == 2 {
			x[i] = max(x[i], 0) // a ReLU row
		}
		if i/in == 4 {
			x[i] = 0 // an all-zero row
		}
	}
	a1, a2 := make([]uint8, rows*in), make([]uint8, rows*in)
	words := make([]int16, rows*in)
	s1, s2, s3 := make([]float32, rows), make([]float32, rows), make([]float32, rows)
	z1, z2, z3 := make([]int32, rows), make([]int32, rows), make([]int32, rows)
	for _, relu := range []bool{false, true} {
		quantizeRows(a1, s1, z1, x, rows, in, relu)
		quantizeRowsWords(words, s3, z3, x, rows, in, relu)
		if pathAVXVNNI.supported() {
			bytes, sb, zb := make([]uint8, rows*in), make([]float32, rows), make([]int32, rows)
			quantizeRowsBytes(bytes, sb, zb, x, rows, in, relu)
			for i, w := range words {
				if int16(bytes[i]) != w {
					t.Fatalf("relu %v: code %d = %d as bytes, %d widened", relu, i, bytes[i], w)
				}
			}
			if !slices.Equal(sb, s3) || !slices.Equal(zb, z3) {
				t.Fatalf("relu %v: scales, zero points %v, %v as bytes; %v, %v widened", relu, sb, zb, s3, z3)
			}
		}
		if pathVNNI.supported() {
			quantizeRowsVNNI(a2, s2, z2, x, rows, in, relu)
			for i, w := range words {
				if int16(a2[i]) != w {
					t.Fatalf("relu %v: code %d = %d on AVX2, %d on AVX-512", relu, i, w, a2[i])
				}
			}
		}
		for r := range rows {
			if s1[r] != s3[r] || z1[r] != z3[r] {
				t.Fatalf("relu %v, row %d: scale, zero point %v, %v; want %v, %v", relu, r, s3[r], z3[r], s1[r], z1[r])
			}
		}
		for i := range a1 {
			if d := int(a1[i]) - int(words[i]); d < -1 || d > 1 {
				t.Fatalf("relu %v: code %d = %d, want %d", relu, i, words[i], a1[i])
			}
			if v := x[i]; relu && v <= 0 && words[i] != 0 {
				t.Fatalf("relu: code %d of %v = %d, want 0", i, v, words[i])
			}
		}
	}
}

// TestBackgroundEmbedYields: background work (cpugate.Background) embeds
// in small chunks and waits before each while a request is in flight
// (PERF-2), and its vectors are the same as a foreground call's.
func TestBackgroundEmbedYields(t *testing.T) {
	g := readGolden(t)
	var texts []string
	for _, s := range g.Sentences {
		texts = append(texts, s.Text)
	}
	e := loadedEmbedder(t)
	want, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	gate := cpugate.New()
	end := gate.Begin()
	got, err := e.Embed(cpugate.Background(context.Background(), gate), texts)
	if err != nil {
		t.Fatal(err)
	}
	// 32 sentences make several chunks of backgroundChunkTokens, each
	// after a wait for the request.
	if n := gate.Waits(); n < 2 {
		t.Fatalf("background embedding beside a request waited %d times: it did not yield", n)
	}
	end()
	for i := range texts {
		if c := cosine(want[i], got[i]); c < 0.999999 {
			t.Errorf("%q: cosine foreground vs background = %v", texts[i], c)
		}
	}
}

// TestLayerNormAgree checks every path's layer norm against the portable
// one, to the bit: the assembly adds in the same order.
func TestLayerNormAgree(t *testing.T) {
	for _, dim := range []int{embedDim, modelDim} {
		const rows = 5
		src := make([]float32, rows*dim)
		scale, bias := make([]float32, dim), make([]float32, dim)
		for i := range src {
			src[i] = float32(math.Sin(float64(i)*0.7))*float32(1+i%13) + 0.3
			if i/dim == 3 {
				src[i] = 1.5 // a constant row: zero variance
			}
		}
		for i := range scale {
			scale[i] = 1 + float32(math.Cos(float64(i)))/4
			bias[i] = float32(math.Sin(float64(i))) / 8
		}
		want := make([]float32, rows*dim)
		layerNormGo(want, src, dim, scale, bias)
		for _, p := range allPaths {
			if !p.supported() {
				continue
			}
			got := make([]float32, rows*dim)
			p.vec().norm(got, src, dim, scale, bias)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%v, dim %d: element %d = %v, want %v", p, dim, i, got[i], want[i])
				}
			}
		}
	}
}

// TestQGemmExact checks the int8 kernels, dense and sparse, in assembly
// where the CPU has AVX-512 VNNI and their portable twins, against the
// sums written out, over shapes beyond the model's (down to one k-step and
// one group) and codes dense, mostly zero (as after a ReLU) and all zero:
// with unit scales and a zero bias they write the int32 sums themselves,
// which must agree exactly, whether the kernel sets c or adds to it.
func TestQGemmExact(t *testing.T) {
	// Each kernel as one signature: 4 rows of codes a, in wide.
	type qkernel func(a []uint8, sa []float32, zp []int32, q *qlinear, bias, c []float32, add bool)
	dense := func(f func([]uint8, int, []float32, []int32, *qlinear, []float32, []float32, int, bool)) qkernel {
		return func(a []uint8, sa []float32, zp []int32, q *qlinear, bias, c []float32, add bool) {
			f(a, q.in, sa, zp, q, bias, c, q.out, add)
		}
	}
	sparse := func(f func([]uint32, []int32, []float32, []int32, *qlinear, []float32, []float32, int, bool)) qkernel {
		return func(a []uint8, sa []float32, zp []int32, q *qlinear, bias, c []float32, add bool) {
			pk, ks := make([]uint32, q.in), make([]int32, q.in/4)
			nk := packBlock(pk, ks, a, q.in)
			f(pk, ks[:nk], sa, zp, q, bias, c, q.out, add)
		}
	}
	kernels := map[string]qkernel{"qgemmGo": dense(qgemmGo), "qgemmSparseGo": sparse(qgemmSparseGo)}
	if pathVNNI.supported() {
		kernels["qgemm"] = dense(qgemm)
		kernels["qgemmSparse"] = sparse(qgemmSparse)
	}
	if pathAVX2.supported() {
		kernels["qgemmWords"] = func(a []uint8, sa []float32, zp []int32, q *qlinear, bias, c []float32, add bool) {
			words := make([]int16, len(a))
			for i, v := range a {
				words[i] = int16(v)
			}
			qgemmWords(words, q.in, sa, zp, q, bias, c, q.out, add)
		}
	}
	if pathAVXVNNI.supported() {
		kernels["qgemmBytes"] = dense(qgemmBytes)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, shape := range []struct{ in, out int }{{4, 64}, {8, 128}, {60, 64}, {256, 192}, {516, 128}} {
		in, out := shape.in, shape.out
		wt := make([]float32, out*in)
		for i := range wt {
			wt[i] = float32(rnd.NormFloat64())
		}
		q := newQLinear(newLinear(wt, make([]float32, out), out, in))
		weight := func(o, i int) int32 {
			return int32(q.w[((o/qGroup*(in/4)+i/4)*4+(o%qGroup)/16)*64+(o%16)*4+i%4])
		}
		for _, zeros := range []float64{0, 0.9, 1} {
			for o := range q.sw {
				q.sw[o] = 1
			}
			a := make([]uint8, blockRows*in)
			for i := range a {
				if rnd.Float64() >= zeros {
					a[i] = uint8(1 + rnd.IntN(255))
				}
			}
			if zeros == 0 {
				a[0], a[1] = 0, 255
			}
			sa := []float32{1, 1, 1, 1}
			zp := []int32{0, 255, int32(rnd.IntN(256)), 128}
			bias := make([]float32, out)
			for _, add := range []bool{false, true} {
				want := make([]float32, blockRows*out)
				for r := range blockRows {
					for o := range out {
						sum := zp[r] * q.ncs[o]
						for i := range in {
							sum += int32(a[r*in+i]) * weight(o, i)
						}
						if add {
							sum += int32((r*out + o) % 5)
						}
						want[r*out+o] = float32(sum)
					}
				}
				for name, f := range kernels {
					got := make([]float32, blockRows*out)
					for i := range got {
						if add {
							got[i] = float32(i % 5)
						} else {
							got[i] = float32(math.NaN()) // overwritten
						}
					}
					f(a, sa, zp, q, bias, got, add)
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%s: in %d, out %d, zeros %v, add %v: c[%d][%d] = %v, want %v", name, in, out, zeros, add, i/out, i%out, got[i], want[i])
						}
					}
				}
			}

			// With scales and a bias, the assembly up to the last rounding.
			for o := range q.sw {
				q.sw[o] = float32(rnd.Float64()) / 100
				bias[o] = float32(rnd.NormFloat64())
			}
			sa = []float32{0.01, 0.5, 0, 2}
			want := make([]float32, blockRows*out)
			qgemmGo(a, in, sa, zp, q, bias, want, out, false)
			for name, f := range kernels {
				got := make([]float32, blockRows*out)
				f(a, sa, zp, q, bias, got, false)
				for i := range want {
					if d := math.Abs(float64(got[i] - want[i])); d > 1e-6*(1+math.Abs(float64(want[i]))) {
						t.Fatalf("%s: in %d, out %d, zeros %v, scaled: c[%d][%d] = %v, want %v", name, in, out, zeros, i/out, i%out, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestSoftmaxAgree checks every path's softmax against the portable one,
// with math.Exp, to 10 ulps (exp, the sum and the division), across lengths
// that are and are not whole registers and scores far enough apart that
// some weights underflow.
func TestSoftmaxAgree(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, spread := range []float64{1, 40, 2000} {
		for _, n := range []int{1, 2, 7, 8, 9, 17, 64, 127, 128} {
			x := make([]float32, n, maxTokens)
			for j := range x {
				x[j] = float32((rnd.Float64()*2 - 1) * spread)
			}
			want := slices.Clone(x)
			softmaxGo(want, 0.125)
			for _, p := range allPaths {
				if !p.supported() {
					continue
				}
				got := make([]float32, n, maxTokens) // room to pad
				copy(got, x)
				p.vec().softmax(got, 0.125)
				for j := range want {
					if d := math.Abs(float64(got[j] - want[j])); d > 6e-7*float64(want[j])+1e-37 {
						t.Fatalf("%v, n %d, spread %v: weight %d = %v, want %v", p, n, spread, j, got[j], want[j])
					}
				}
			}
		}
	}
}

// TestLayer0Helpers checks the assembly the int8 path's layer 0 uses
// (see project) against the portable twins: normStats to the bit, centre
// up to its fused multiply-adds.
func TestLayer0Helpers(t *testing.T) {
	if !pathVNNI.supported() {
		t.Skip("only the int8 path uses them")
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{32, embedDim, modelDim} {
		x := make([]float32, dim)
		for i := range x {
			x[i] = float32(rnd.NormFloat64()*3 + 0.5)
		}
		m1, i1 := normStatsGo(x)
		m2, i2 := normStats(x)
		if math.Float32bits(m1) != math.Float32bits(m2) || math.Float32bits(i1) != math.Float32bits(i2) {
			t.Errorf("dim %d: normStats = %v, %v; want %v, %v", dim, m2, i2, m1, i1)
		}
		tt, c, d := make([]float32, dim), make([]float32, dim), make([]float32, dim)
		for i := range tt {
			tt[i], c[i], d[i] = float32(rnd.NormFloat64()), float32(rnd.NormFloat64()), float32(rnd.NormFloat64())
		}
		want, got := make([]float32, dim), make([]float32, dim)
		centreGo(want, tt, c, d, m1, i1)
		centre(got, tt, c, d, m1, i1)
		for i := range want {
			if diff := math.Abs(float64(got[i] - want[i])); diff > 1e-6*(1+math.Abs(float64(want[i]))) {
				t.Fatalf("dim %d: centre[%d] = %v, want %v", dim, i, got[i], want[i])
			}
		}
	}
}

// TestAttentionOpsAgree checks every path's attention products against
// the portable ones, for key counts on either side of the assembly's
// blocks of four and both head widths.
func TestAttentionOpsAgree(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	for _, hd := range []int{64, 128} {
		for _, n := range []int{1, 3, 4, 5, 8, 9, 18, 128} {
			stride := 3*hd + 16
			k := make([]float32, n*stride)
			for i := range k {
				k[i] = float32(rnd.NormFloat64())
			}
			q := make([]float32, hd)
			for i := range q {
				q[i] = float32(rnd.NormFloat64())
			}
			w := make([]float32, n)
			for i := range w {
				w[i] = float32(rnd.Float64())
			}
			wantS, wantW := make([]float32, n), make([]float32, hd)
			vecGo.scores(q, k, stride, n, wantS)
			vecGo.wsum(k, stride, n, w, wantW)
			// Four queries (rows of k) and four rows of weights at once.
			want4S, want4W := make([]float32, 4*n), make([]float32, 4*hd)
			w4 := make([]float32, 4*n)
			for i := range w4 {
				w4[i] = float32(rnd.Float64())
			}
			if n >= 4 {
				for r := range 4 {
					vecGo.scores(k[r*stride:][:hd], k, stride, n, want4S[r*n:(r+1)*n])
					vecGo.wsum(k, stride, n, w4[r*n:(r+1)*n], want4W[r*hd:(r+1)*hd])
				}
			}
			for _, p := range allPaths {
				if !p.supported() {
					continue
				}
				gotS, gotW := make([]float32, n), make([]float32, hd)
				p.vec().scores(q, k, stride, n, gotS)
				p.vec().wsum(k, stride, n, w, gotW)
				for j := range wantS {
					if d := math.Abs(float64(gotS[j] - wantS[j])); d > 1e-5*(1+math.Abs(float64(wantS[j]))) {
						t.Fatalf("%v, hd %d, n %d: score %d = %v, want %v", p, hd, n, j, gotS[j], wantS[j])
					}
				}
				for j := range wantW {
					if d := math.Abs(float64(gotW[j] - wantW[j])); d > 1e-5*(1+math.Abs(float64(wantW[j]))) {
						t.Fatalf("%v, hd %d, n %d: weighted sum %d = %v, want %v", p, hd, n, j, gotW[j], wantW[j])
					}
				}
				if n < 4 {
					continue
				}
				got4S, got4W := make([]float32, 4*n), make([]float32, 4*hd)
				p.vec().scores4(k, k, stride, hd, n, got4S, n)
				p.vec().wsum4(k, stride, hd, n, w4, n, got4W, hd)
				for j := range want4S {
					if d := math.Abs(float64(got4S[j] - want4S[j])); d > 1e-5*(1+math.Abs(float64(want4S[j]))) {
						t.Fatalf("%v, hd %d, n %d: query %d's score %d = %v, want %v", p, hd, n, j/n, j%n, got4S[j], want4S[j])
					}
				}
				for j := range want4W {
					if d := math.Abs(float64(got4W[j] - want4W[j])); d > 1e-5*(1+math.Abs(float64(want4W[j]))) {
						t.Fatalf("%v, hd %d, n %d: query %d's weighted sum %d = %v, want %v", p, hd, n, j/hd, j%hd, got4W[j], want4W[j])
					}
				}
			}
		}
	}
}

// TestPackBlock checks the AVX-512 packBlock against the portable one: the
// same k-steps kept, the same codes and offsets.
func TestPackBlock(t *testing.T) {
	if !pathVNNI.supported() {
		t.Skip("this CPU has no AVX-512 VNNI")
	}
	rnd := rand.New(rand.NewPCG(9, 10))
	for _, in := range []int{16, 48, 512, ffnDim} {
		for _, zeros := range []float64{0, 0.5, 0.9, 0.99, 1} {
			a := make([]uint8, blockRows*in)
			for i := range a {
				if rnd.Float64() >= zeros {
					a[i] = uint8(1 + rnd.IntN(255))
				}
			}
			p1, k1 := make([]uint32, in), make([]int32, in/4)
			p2, k2 := make([]uint32, in), make([]int32, in/4)
			n1 := packBlock(p1, k1, a, in)
			n2 := packBlockVNNI(p2, k2, a, in)
			if n1 != n2 || !slices.Equal(p1[:4*n1], p2[:4*n2]) || !slices.Equal(k1[:n1], k2[:n2]) {
				t.Fatalf("in %d, zeros %v: kept %d, %v, %v; want %d, %v, %v", in, zeros, n2, p2[:4*n2], k2[:n2], n1, p1[:4*n1], k1[:n1])
			}
		}
	}
}

// TestLongTextWindows: a text longer than the model reads is read in
// windows of maxTokens and its vector pools every window's tokens, so that
// what it says past its first hundred words moves its vector; tokens past
// maxTextTokens are dropped.
func TestLongTextWindows(t *testing.T) {
	e := loadedEmbedder(t)
	m := e.model
	ctx := context.Background()
	opening := strings.Repeat("The quarterly planning meeting covered budgets, hiring and the office move. ", 12)
	fact := "Her daughter adopted a grey kitten named Pepper from the animal shelter."
	long := opening + fact
	ids := m.tok.encode(long)
	if len(ids) <= maxTokens {
		t.Fatalf("the long text has %d tokens, want more than %d", len(ids), maxTokens)
	}
	vs, err := e.Embed(ctx, []string{long, opening, fact, "Which pet did her daughter get from the shelter?"})
	if err != nil {
		t.Fatal(err)
	}
	vLong, vOpening, vQuery := vs[0], vs[1], vs[3]
	// The fact, past the first window, moves the vector toward a question
	// about it: the opening alone (what a cut at maxTokens reads) is
	// further from it.
	if got, cut := cosine(vLong, vQuery), cosine(vOpening, vQuery); got <= cut {
		t.Errorf("cosine with the question: %.4f with the fact past the first window, %.4f without it; want higher with it", got, cut)
	}

	// The vector is the pooled mean of the windows' tokens: what the
	// windows' sums give, whichever batch and chunking made it.
	windows, of := split([][]int32{ids})
	if len(windows) != (len(ids)+maxTokens-1)/maxTokens || len(of) != len(windows) {
		t.Fatalf("%d tokens in %d windows", len(ids), len(windows))
	}
	want := m.vectors([][]int32{ids}, windows, of, m.tokenSums(windows))[0]
	if c := cosine(vLong, want); c < 0.999999 {
		t.Errorf("cosine with the windows' pooled vector %.7f", c)
	}
	batch, err := e.Embed(ctx, []string{fact, long, fact})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(batch[1], vLong) {
		t.Error("the long text's vector depends on its batch")
	}

	// Past maxTextTokens nothing counts.
	huge := strings.Repeat(opening, 20)
	if n := len(m.tok.encode(huge)); n != maxTextTokens {
		t.Fatalf("a huge text encodes to %d tokens, want %d", n, maxTextTokens)
	}
	v1, err := e.Embed(ctx, []string{huge, huge + " " + fact})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v1[0], v1[1]) {
		t.Error("words past maxTextTokens tokens changed the vector")
	}
}
