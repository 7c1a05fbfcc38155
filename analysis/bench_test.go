package analysis

import "testing"

// Texts of the size of one chat turn.
const (
	benchEnglish = "Yesterday Caroline told me she's been running with her two dogs every morning before work, " +
		"and honestly I don't think I could keep up; she said the trail by the river is beautiful in autumn " +
		"and she'd love to take us there sometime next month."
	benchChinese = "我最近在学习机器学习，每天晚上都会花两个小时看论文和写代码。" +
		"周末的时候我喜欢去公园跑步，然后和朋友一起吃饭聊天，感觉生活很充实。"
	benchQuery = `what did Caroline say about running with her dogs 跑步 pyth* "river trail"`
)

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		New()
	}
}

func BenchmarkTermsEnglish(b *testing.B) {
	a := New()
	b.SetBytes(int64(len(benchEnglish)))
	b.ReportAllocs()
	for b.Loop() {
		a.Terms(benchEnglish)
	}
}

func BenchmarkTermsChinese(b *testing.B) {
	a := New()
	b.SetBytes(int64(len(benchChinese)))
	b.ReportAllocs()
	for b.Loop() {
		a.Terms(benchChinese)
	}
}

func BenchmarkQuery(b *testing.B) {
	a := New()
	b.ReportAllocs()
	for b.Loop() {
		a.Query(benchQuery)
	}
}

func BenchmarkKeywords(b *testing.B) {
	a := New()
	text := benchEnglish + benchChinese
	b.ReportAllocs()
	for b.Loop() {
		a.Keywords(text, 10)
	}
}
