package builtin

import (
	"context"
	"testing"

	"github.com/mnemo-dev/mnemo/embed/concat"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/embed/use"
)

func dot(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

// TestChineseNearItsMeaning checks the lexicon's part (EMB-7): a Chinese
// text is nearer an English text of its meaning than one of another, and
// nearer a Chinese text of its meaning that shares no character than an
// unrelated one, by margin (without the lexicon, none of these rows is
// ahead by more than 0.13). Shared characters still count: the rows of
// margin 0 only keep their order.
func TestChineseNearItsMeaning(t *testing.T) {
	e := New()
	for _, tt := range []struct {
		text, near, far string
		margin          float64
	}{
		{"他妻子是护士", "his wife is a nurse", "the car needs new tyres", 0.2},
		{"用户喝咖啡", "the user drinks coffee", "the meeting is on Wednesday", 0.2},
		{"厨房的水龙头漏水", "the kitchen tap is leaking", "she plays the guitar", 0.2},
		{"用户对花生过敏", "allergic to peanuts", "the rent is due monthly", 0.2},
		{"老爸的膝盖要动手术", "父亲腿部开刀", "宽带每月一百元", 0.2},
		{"孩子上学", "儿童读书", "汽车保险", 0.2},
		{"the user drinks coffee", "用户喝咖啡", "会议在周三", 0.2},
		{"急跌后反弹信号2小时内有效", "The market rebounded after the crash.", "The printer only works over USB.", 0},
		{"急跌后反弹信号2小时内有效", "市场暴跌后的反弹规律", "今天天气很好，我们去公园散步吧。", 0},
	} {
		vs, err := e.Embed(context.Background(), []string{tt.text, tt.near, tt.far})
		if err != nil {
			t.Fatal(err)
		}
		near, far := dot(vs[0], vs[1]), dot(vs[0], vs[2])
		if near <= far+tt.margin {
			t.Errorf("%q: %.3f to %q, not %.1f above %.3f to %q", tt.text, near, tt.near, tt.margin, far, tt.far)
		}
	}
}

// TestEnglishUnchanged checks that the lexicon leaves English alone
// (EMB-7): a text without Han characters, or a Japanese one, embeds
// exactly as GloVe and USE-Lite joined without it.
func TestEnglishUnchanged(t *testing.T) {
	plain, err := concat.New(concat.Part{Embedder: glove.NewWithoutLexicon(), Weight: 0.5}, concat.Part{Embedder: use.New(), Weight: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"The user drinks oat lattes without syrup.", "Caroline's 5 km run on 7 May 2023", "", "café ＧＰＴ", "私はコーヒーが好きです", "東京の天気は晴れ"}
	want, err := plain.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := New().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("%q: component %d is %g, %g without the lexicon", texts[i], j, got[i][j], want[i][j])
			}
		}
	}
}
