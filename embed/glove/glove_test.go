package glove

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

func noLexicon() *Embedder { return NewWithoutLexicon() }

func embedOne(t testing.TB, e *Embedder, text string) []float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}

// features returns the words and CJK features of text as the embedding
// sees them, for comparison with the reference implementation's.
func features(text string) []string {
	var out []string
	var tk tokenizer
	tk.tokens(text, func(tok string, cjk bool) {
		if cjk {
			cjkFeatures(tok, func(f string) { out = append(out, f) })
			return
		}
		words(tok, func(w string) { out = append(out, w) })
	})
	return out
}

// TestGolden compares the vectors of the 8-bit model with those the
// reference implementation (scripts/glove/sif.js) computes in float64 from
// the original vectors.
func TestGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Words     int `json:"words"`
		Sentences []struct {
			Text   string    `json:"text"`
			Tokens []string  `json:"tokens"`
			Vector []float32 `json:"vector"`
		} `json:"sentences"`
	}
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	// The reference has no Chinese lexicon: its CJK texts are checked
	// against the hashed features alone, the lexicon's part in
	// TestChineseLexicon and embed/builtin.
	e := noLexicon()
	m, err := e.load()
	if err != nil {
		t.Fatal(err)
	}
	if golden.Words != m.n {
		t.Fatalf("golden vectors are for %d words, the model has %d", golden.Words, m.n)
	}
	if len(golden.Sentences) < 30 {
		t.Fatalf("%d golden sentences, want at least 30", len(golden.Sentences))
	}
	worst := 1.0
	for _, g := range golden.Sentences {
		if got := features(g.Text); !slices.Equal(got, g.Tokens) && len(got)+len(g.Tokens) > 0 {
			t.Errorf("features(%q) = %q, reference %q", g.Text, got, g.Tokens)
		}
		v := embedOne(t, e, g.Text)
		if isZero(g.Vector) {
			if !isZero(v) {
				t.Errorf("Embed(%q) is not zero, reference is", g.Text)
			}
			continue
		}
		c := cosine(v, g.Vector)
		if c < 0.999 {
			t.Errorf("Embed(%q): cosine %.5f with reference, want >= 0.999", g.Text, c)
		}
		worst = min(worst, c)
	}
	t.Logf("lowest cosine with the reference: %.6f", worst)
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// TestModelFile checks the embedded model against the manifest the
// converter wrote beside it.
func TestModelFile(t *testing.T) {
	b, err := os.ReadFile("data/glove-100d.json")
	if err != nil {
		t.Fatal(err)
	}
	var man struct {
		Version    int    `json:"version"`
		Dim        int    `json:"dim"`
		Words      int    `json:"words"`
		Vocabulary int    `json:"vocabulary"`
		Size       int    `json:"size"`
		SHA256     string `json:"sha256"`
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if len(modelData) != man.Size {
		t.Errorf("model file is %d bytes, manifest says %d", len(modelData), man.Size)
	}
	sum := sha256.Sum256(modelData)
	if got := hex.EncodeToString(sum[:]); got != man.SHA256 {
		t.Errorf("model file SHA-256 %s, manifest says %s", got, man.SHA256)
	}
	m, err := parseModel(modelData)
	if err != nil {
		t.Fatal(err)
	}
	if man.Version != modelVersion || m.dim != man.Dim || m.n != man.Words || m.full != man.Vocabulary {
		t.Errorf("header: dim %d, words %d, vocabulary %d; manifest: version %d, dim %d, words %d, vocabulary %d",
			m.dim, m.n, m.full, man.Version, man.Dim, man.Words, man.Vocabulary)
	}
	var n float64
	for _, x := range m.pc {
		n += x * x
	}
	if math.Abs(n-1) > 1e-5 {
		t.Errorf("common component has squared length %g, want 1", n)
	}
	// Words are in frequency order and every one can be found.
	for _, tt := range []struct {
		word string
		rank int
	}{{"the", 0}, {",", 1}, {".", 2}, {"of", 3}} {
		if r, ok := m.lookup(tt.word); !ok || r != tt.rank {
			t.Errorf("lookup(%q) = %d, %v; want %d", tt.word, r, ok, tt.rank)
		}
	}
	for r := 0; r < m.n; r += 997 {
		if got, ok := m.lookup(m.word(r)); !ok || got != r {
			t.Errorf("lookup(word(%d) = %q) = %d, %v", r, m.word(r), got, ok)
		}
	}
}

func TestParseModelErrors(t *testing.T) {
	bad := func(f func(b []byte) []byte) []byte {
		return f(slices.Clone(modelData))
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"short", modelData[:10]},
		{"magic", bad(func(b []byte) []byte { b[0] = 'X'; return b })},
		{"version", bad(func(b []byte) []byte { b[8] = 99; return b })},
		{"zero dim", bad(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], 0); return b })},
		{"too many words", bad(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[16:], 1<<30); return b })},
		{"truncated", modelData[:len(modelData)/2]},
		{"trailing garbage", append(slices.Clone(modelData), 'x')},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseModel(tt.data); err == nil {
				t.Error("parseModel succeeded, want an error")
			}
			e := &Embedder{data: tt.data, opt: defaults}
			if _, err := e.Embed(context.Background(), []string{"hello"}); err == nil {
				t.Error("Embed succeeded, want an error")
			}
		})
	}
}

func TestEmbedder(t *testing.T) {
	e := New()
	if got := e.Dimension(); got != 100 {
		t.Errorf("Dimension() = %d, want 100", got)
	}
	if got := e.Model(); got != "glove-sif-100d-v1" {
		t.Errorf("Model() = %q", got)
	}
	texts := []string{"", "The cat sat on the mat.", "  ...  ", "急跌后反弹", "Zxqwv", "who is she"}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if len(vs[i]) != 100 {
			t.Fatalf("Embed(%q) has %d components", text, len(vs[i]))
		}
		// One text at a time gives the same vector as in a batch.
		if one := embedOne(t, e, text); !slices.Equal(one, vs[i]) {
			t.Errorf("Embed(%q) alone differs from Embed in a batch", text)
		}
		want := 1.0
		if strings.TrimFunc(text, func(r rune) bool { return r == ' ' || r == '.' }) == "" {
			want = 0
		}
		if n := norm(vs[i]); math.Abs(n-want) > 1e-5 {
			t.Errorf("Embed(%q) has length %g, want %g", text, n, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, texts); err == nil {
		t.Error("Embed with a cancelled context succeeded")
	}
}

func norm(v []float32) float64 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	return math.Sqrt(n)
}

// TestSimilarity checks that each anchor is more similar to its paraphrase
// than to an unrelated text, by a clear margin.
func TestSimilarity(t *testing.T) {
	tests := []struct {
		name, anchor, near, far string
	}{
		{"paraphrase", "The kitten slept on the rug.", "The cat rested on the carpet.", "The desk was in the study room."},
		{"topic", "I started pottery classes and made a bowl.", "She loves ceramics and clay sculpture.", "The stock market fell sharply today."},
		{"synonyms", "I adopted a puppy last week.", "We got a new dog recently.", "My laptop keyboard is broken."},
		{"rare name matches itself", "Zxqwv called me yesterday.", "Did Zxqwv phone you?", "Did Bob phone you?"},
		{"number matches itself", "Room 4711 is on the left.", "Go to room 4711.", "Go to room 89."},
		{"chinese shared words", "急跌后反弹信号2小时内有效", "市场暴跌后的反弹规律", "今天天气很好，我们去公园散步吧。"},
		{"chinese versus english", "急跌后反弹信号2小时内有效", "市场暴跌后的反弹规律", "The market rebounded after the crash."},
		{"japanese", "私はコーヒーが好きです", "コーヒーを飲みました", "東京の天気は晴れ"},
		{"mixed script", "我喜欢用Python写代码", "Python代码很好写", "我喜欢吃苹果"},
	}
	// CJK by its hashed features alone, as without the lexicon; with it,
	// meaning weighs beside shared characters (TestChineseLexicon).
	e := noLexicon()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, n, f := embedOne(t, e, tt.anchor), embedOne(t, e, tt.near), embedOne(t, e, tt.far)
			cn, cf := cosine(a, n), cosine(a, f)
			t.Logf("cos(anchor, near) = %.3f, cos(anchor, far) = %.3f", cn, cf)
			if cn < cf+0.1 {
				t.Errorf("cos(anchor, near) = %.3f, cos(anchor, far) = %.3f; want near ahead by 0.1", cn, cf)
			}
		})
	}
}

// TestCJKOrthogonal checks that the hashed features of unrelated CJK
// texts, and of CJK against English, are close to orthogonal rather than
// spuriously similar.
func TestCJKOrthogonal(t *testing.T) {
	e := noLexicon()
	pairs := [][2]string{
		{"急跌后反弹信号2小时内有效", "今天天气很好，我们去公园散步吧。"},
		{"急跌后反弹信号2小时内有效", "The market rebounded after the crash."},
		{"市场暴跌后的反弹规律", "私はPythonでコードを書くのが好きです"},
		{"파이썬 좋아", "机器学习"},
	}
	for _, p := range pairs {
		if c := cosine(embedOne(t, e, p[0]), embedOne(t, e, p[1])); math.Abs(c) > 0.3 {
			t.Errorf("cos(%q, %q) = %.3f, want near 0", p[0], p[1], c)
		}
	}
	if c := cosine(embedOne(t, e, "急跌后反弹信号2小时内有效"), embedOne(t, e, "市场暴跌后的反弹规律")); c < 0.3 {
		t.Errorf("texts sharing 反弹 and 跌后: cosine %.3f, want >= 0.3", c)
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Caroline's cat", []string{"caroline", "cat"}},
		{"Caroline’s cat", []string{"caroline", "cat"}},
		{"the dogs' toys", []string{"the", "dogs", "toys"}},
		{"I don't know", []string{"do", "not", "know"}},
		{"can't won't isn't", []string{"can", "not", "will", "not", "is", "not"}},
		{"I'm sure we'll go, they've gone, you're late, she'd say", []string{"am", "sure", "we", "will", "go", "they", "have", "gone", "you", "are", "late", "she", "would", "say"}},
		{"O'Brien rock'n'roll", []string{"obrien", "rocknroll"}},
		{"'hello' ''world''", []string{"hello", "world"}},
		{"a b c x-ray 3 kids", []string{"ray", "3", "kids"}},
		{"Ｐｙｔｈｏｎ ＧＰＴ－４", []string{"python", "gpt", "4"}},
		{"well-known 1,000 e-mail", []string{"well", "known", "1", "000", "mail"}},
		{"nai\u0308ve CAFÉ", []string{"nai\u0308ve", "café"}},
		{"2024年 Python代码", []string{"2024", "年", "python", "代", "代码", "码"}},
		{"机器学习", []string{"机", "机器", "器", "器学", "学", "学习", "习"}},
		{"我的猫", []string{"我", "猫"}},
		{"今天，天气。", []string{"今", "今天", "天", "天", "天气", "气"}},
		{"私はコーヒー", []string{"私", "コ", "コー", "ー", "ーヒ", "ヒ", "ヒー", "ー"}},
		{"ab\xffcd", []string{"ab", "cd"}},
	}
	for _, tt := range tests {
		if got := features(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("features(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestChineseLexicon checks the lexicon's part in GloVe's space (EMB-7): a
// Chinese text moves towards the English words of its meaning, and an
// English text does not move at all.
func TestChineseLexicon(t *testing.T) {
	with, without := New(), noLexicon()
	for _, tt := range []struct{ zh, en string }{
		{"他妻子是护士", "his wife is a nurse"},
		{"用户喝咖啡", "the user drinks coffee"},
		{"厨房的水龙头漏水", "the kitchen tap is leaking"},
		{"急跌后反弹", "the market rebounded after the crash"},
	} {
		en := embedOne(t, with, tt.en)
		if !slices.Equal(en, embedOne(t, without, tt.en)) {
			t.Errorf("%q: the lexicon changed an English vector", tt.en)
		}
		before, after := cosine(embedOne(t, without, tt.zh), en), cosine(embedOne(t, with, tt.zh), en)
		if after < before+0.3 {
			t.Errorf("%q to %q: cosine %.3f with the lexicon, %.3f without; want it 0.3 higher", tt.zh, tt.en, after, before)
		}
	}
}
