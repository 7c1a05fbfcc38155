package glove

import (
	"context"
	"math"
	"testing"
)

// FuzzEmbed checks that any input, valid UTF-8 or not, gives a vector of
// Dimension finite components that is of unit length or all zeros.
func FuzzEmbed(f *testing.F) {
	for _, s := range []string{
		"", "The cat sat on the mat.", "don't o'brien rock'n'roll ' '' n't",
		"急跌后反弹信号2小时内有效", "私はコーヒー", "파이썬", "nai\u0308ve \u0301x",
		"ab\xffcd\xc3", "ＧＰＴ－４", "👍🏽❤️", "1,000,000 3.14 0x1F", "'s't'll",
	} {
		f.Add(s)
	}
	e := New()
	f.Fuzz(func(t *testing.T, text string) {
		vs, err := e.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		v := vs[0]
		if len(v) != Dimension {
			t.Fatalf("%d components, want %d", len(v), Dimension)
		}
		var n float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("component %v", x)
			}
			n += float64(x) * float64(x)
		}
		if n != 0 && math.Abs(n-1) > 1e-5 {
			t.Fatalf("squared length %g, want 1 or 0", n)
		}
	})
}
