package entity

import (
	"slices"
	"testing"
)

func TestNames(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"I met Ana Silva at the cafe.", []string{"Ana Silva"}},
		{"Yesterday I went to the park with Leo.", []string{"Leo"}},
		{"Leo's sister lives in New York.", []string{"Leo", "New York"}},
		{"Caroline went hiking. Melanie stayed home.", nil}, // each opens its sentence
		{"Thanks, Caroline! See you on Monday.", []string{"Caroline"}},
		{"The Acme Corp hired Bob.", []string{"Acme Corp", "Bob"}},
		{"王小明说他明天去上海。", []string{"王小明"}},
		{"我和小李的妈妈聊天", []string{"小李"}},
		{"no names here at all", nil},
	} {
		if got := Names(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Names(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestQuery(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"What did Ana say about the trip?", []string{"Ana"}},
		{"Leo's sister", []string{"Leo"}},
		{"When did Caroline go to the LGBTQ support group?", []string{"Caroline", "LGBTQ"}},
		{"Caroline went where?", []string{"Caroline"}},
		{"What is the capital of France?", []string{"France"}},
		{"what did we decide", nil},
		{"王小明说了什么？", []string{"王小明"}},
	} {
		if got := Query(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Query(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestSpeakers(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"What did Ana say about the trip?", []string{"Ana"}},
		{"How does Leo feel about his sister's decision?", []string{"Leo"}},
		{"What did Ana Silva tell Bob?", []string{"Ana Silva"}},
		{"What does Leo really think?", []string{"Leo"}},
		{"Leo's sister", nil},
		{"What did they say?", nil},
		{"王小明说了什么？", []string{"王小明"}},
		{"小李觉得怎么样", []string{"小李"}},
	} {
		if got := Speakers(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Speakers(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestOfAndMatch(t *testing.T) {
	got := Of("Ana", "I told Leo about it, and ana agreed.", []string{"Ana Silva", "sis"})
	if want := []string{"Ana", "Ana Silva", "sis", "Leo"}; !slices.Equal(got, want) {
		t.Fatalf("Of = %q, want %q", got, want)
	}
	for _, tt := range []struct {
		asked, has []string
		want       bool
	}{
		{[]string{"ana"}, []string{"Ana"}, true},
		{[]string{"Ana"}, []string{"Ana Silva"}, true},
		{[]string{"Ana Silva"}, []string{"Ana"}, true},
		{[]string{"Ana"}, []string{"Anabel"}, false},
		{[]string{"Leo"}, nil, false},
	} {
		if got := Match(tt.asked, tt.has); got != tt.want {
			t.Errorf("Match(%q, %q) = %v", tt.asked, tt.has, got)
		}
	}
}

// BenchmarkQuery is the per-recall cost of finding who a query names and
// who it says spoke (REC-28).
func BenchmarkQuery(b *testing.B) {
	qs := []string{"coffee roast grinder espresso", "What did Ana say about the trip to Lisbon last May?"}
	for i := 0; i < b.N; i++ {
		q := qs[i%2]
		_, _ = Query(q), Speakers(q)
	}
}
