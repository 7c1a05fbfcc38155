package entity

import (
	"fmt"
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
		{"Caroline上周二做了什么？", []string{"Caroline"}},
		{"你还记得Caroline3月7日做了什么吗？", []string{"Caroline"}},
		{"R2D2 and C3PO", []string{"R2D2", "C3PO"}},
		{"Anything interesting happen last week?", nil},
		{"Catch me up on what happened yesterday", nil},
		{"Do you remember what Caroline did?", []string{"Caroline"}},
	} {
		if got := Query(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Query(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestAddressed(t *testing.T) {
	for _, tt := range []struct {
		text  string
		names []string
		want  bool
	}{
		{"Thanks, Deb! Appreciate your support.", []string{"Deb"}, true},
		{"Bye, Deb! See you later!", []string{"Deb"}, true},
		{"Hey Mel! Good to see you!", []string{"Mel"}, true},
		{"Hey Deb, yeah life can get chaotic.", []string{"Deb"}, true},
		{"Caroline, congrats! So proud of you.", []string{"Caroline"}, true},
		{"Wow Jon, same here!", []string{"Jon"}, true},
		{"Sure thing, Gina! Your help means a lot.", []string{"Gina"}, true},
		{"Thank you Ana 😊", []string{"Ana"}, true},
		{"Hi Ana Silva, welcome!", []string{"Ana Silva"}, true},
		// Spoken of, not to.
		{"I told Anna the story of my life.", []string{"Anna"}, false},
		{"Me and Anna went running.", []string{"Anna"}, false},
		{"Anna got me a vegan stir-fry.", []string{"Anna"}, false},
		{"I bonded with Anna.", []string{"Anna"}, false},
		{"Deb's garden is lovely.", []string{"Deb"}, false},
		{"Thanks, Deb & Anna!", []string{"Deb"}, false},
		// Once to them and once of them: about them.
		{"Thanks, Deb! I saw Deb's photo.", []string{"Deb"}, false},
		// Not written out: nothing to tell.
		{"Thanks, Deborah!", []string{"Deb"}, false},
		{"no names here", []string{"Ana"}, false},
		{"Thanks, Caroline!", nil, false},
	} {
		if got := Addressed(tt.text, tt.names); got != tt.want {
			t.Errorf("Addressed(%q, %q) = %v, want %v", tt.text, tt.names, got, tt.want)
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

// TestChineseNames checks the class of Chinese personal names (REC-28):
// a surname and a one- or two-character given name where a person
// stands, a surname and a title, 小/老/阿 and a surname; and what looks
// like one but is a place, a time, a colour or a common word.
func TestChineseNames(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		// Speakers and subjects.
		{"王小明说他明天去上海。", []string{"王小明"}},
		{"张伟昨天去了北京", []string{"张伟"}},
		{"李娜今天很忙", []string{"李娜"}},
		{"陈静已经结婚了", []string{"陈静"}},
		{"刘洋想换工作", []string{"刘洋"}},
		{"我和赵敏去看电影", []string{"赵敏"}},
		{"这是黄磊的书", []string{"黄磊"}},
		{"我昨天见到了周杰，他很好", []string{"周杰"}},
		{"欧阳娜娜喜欢拉大提琴", []string{"欧阳娜娜"}},
		{"诸葛亮说过这句话", []string{"诸葛亮"}},
		{"孙丽的妈妈是医生", []string{"孙丽"}},
		// Titles.
		{"王老师布置了作业", []string{"王老师"}},
		{"李先生和张女士来了", []string{"李先生", "张女士"}},
		{"我们请陈医生看看", []string{"陈医生"}},
		{"王小明老师很严格", []string{"王小明"}},
		{"刘经理在开会", []string{"刘经理"}},
		// Familiar forms.
		{"我和小李的妈妈聊天", []string{"小李"}},
		{"老王最近身体不好", []string{"老王"}},
		{"阿陈也来了", []string{"阿陈"}},
		{"周末我们去找小张玩", []string{"小张"}},
		// Not people: places, times, colours, common words.
		{"我们周末去苏州玩", nil},
		{"他很高兴地说好", nil},
		{"黄色的花很好看", nil},
		{"这里交通很方便，", nil},
		{"夏天的时候去黄山", nil},
		{"我马上就来", nil},
		{"许多人都喜欢", nil},
		{"于是我们回家了", nil},
		{"程序的运行时间", nil},
		{"他在武汉工作", nil},
		{"沈阳的冬天很冷", nil},
		{"我的钱包丢了", nil},
		{"他上高中的时候", nil},
		{"小于五个", nil},
		{"老师说明天考试", nil},
		{"小时候的事", nil},
		{"今天天气很好", nil},
	} {
		if got := Names(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Names(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// BenchmarkNames is the per-write cost of finding who a memory's text
// names (REC-28), in English and in Chinese.
func BenchmarkNames(b *testing.B) {
	for _, text := range []struct{ name, text string }{
		{"en", "Hey Mel! I went to a LGBTQ support group yesterday with Caroline, and Leo's sister came too."},
		{"zh", "王小明说他明天去上海，我和小李的妈妈周末去苏州，李老师也来了。"},
	} {
		b.Run(text.name, func(b *testing.B) {
			for range b.N {
				Names(text.text)
			}
		})
	}
}

// TestAliases: a short form names the one known person it can stand for,
// and a known short form the one asked person it stands for (REC-28); a
// short form two known people share names neither.
func TestAliases(t *testing.T) {
	for _, tt := range []struct {
		asked, known, want []string
		speakers           []string
	}{
		// A prefix of one known name, either way.
		{[]string{"Mel"}, []string{"Melanie", "Caroline"}, []string{"Mel", "Melanie"}, nil},
		{[]string{"mel"}, []string{"Melanie", "Caroline"}, []string{"mel", "Melanie"}, nil},
		{[]string{"Deb"}, []string{"Debra", "Jolene", "Paris"}, []string{"Deb", "Debra"}, nil},
		{[]string{"Alex"}, []string{"Alexandra Moreau", "Tom"}, []string{"Alex", "Alexandra Moreau"}, nil},
		{[]string{"Melanie"}, []string{"Mel", "Caroline"}, []string{"Melanie", "Mel"}, nil},
		{[]string{"Theodore"}, []string{"Theo", "Ana"}, []string{"Theodore", "Theo"}, nil},
		// Already known as asked: the long form still joins.
		{[]string{"Mel"}, []string{"Mel", "Melanie"}, []string{"Mel", "Melanie"}, nil},
		// Common short forms that are no prefix.
		{[]string{"Bob"}, []string{"Robert", "Susan"}, []string{"Bob", "Robert"}, nil},
		{[]string{"Liz"}, []string{"Elizabeth", "Robert"}, []string{"Liz", "Elizabeth"}, nil},
		{[]string{"William"}, []string{"Bill", "Grace"}, []string{"William", "Bill"}, nil},
		{[]string{"Jim"}, []string{"James Baker"}, []string{"Jim", "James Baker"}, nil},
		// Two known people it could be: neither.
		{[]string{"Mel"}, []string{"Melanie", "Melissa"}, []string{"Mel"}, nil},
		{[]string{"Kate"}, []string{"Katherine", "Catherine"}, []string{"Kate"}, nil},
		{[]string{"Melanie"}, []string{"Mel", "Melissa"}, []string{"Melanie"}, nil},
		// Too short, or not a short form at all.
		{[]string{"Me"}, []string{"Melanie"}, []string{"Me"}, nil},
		{[]string{"Ana"}, []string{"Leo", "Bruno"}, []string{"Ana"}, nil},
		{[]string{"Leon"}, []string{"Leo"}, []string{"Leon"}, nil},
		{[]string{"Tom"}, nil, []string{"Tom"}, nil},
		{nil, []string{"Melanie"}, nil, nil},
		// Chinese: a familiar form of the one known surname, a given name.
		{[]string{"小王"}, []string{"王小明", "李华"}, []string{"小王", "王小明"}, nil},
		{[]string{"老李"}, []string{"王小明", "李建国"}, []string{"老李", "李建国"}, nil},
		{[]string{"小明"}, []string{"王小明", "李华"}, []string{"小明", "王小明"}, nil},
		{[]string{"王小明"}, []string{"小明", "李华"}, []string{"王小明", "小明"}, nil},
		{[]string{"小王"}, []string{"王小明", "王芳"}, []string{"小王"}, nil},
		{[]string{"小王"}, []string{"李华"}, []string{"小王"}, nil},
		// A speaker of the scope is someone in their own right.
		{[]string{"Ana"}, []string{"Ana", "Anabel"}, []string{"Ana"}, []string{"Ana", "Anabel"}},
		{[]string{"Anabel"}, []string{"Ana", "Anabel"}, []string{"Anabel"}, []string{"Ana", "Anabel"}},
		{[]string{"Mel"}, []string{"Mel", "Melanie"}, []string{"Mel", "Melanie"}, []string{"Melanie"}},
		{[]string{"Melanie"}, []string{"Mel", "Caroline"}, []string{"Melanie", "Mel"}, []string{"Caroline"}},
	} {
		if got := Aliases(tt.asked, tt.known, tt.speakers); !slices.Equal(got, tt.want) {
			t.Errorf("Aliases(%q, %q, %q) = %q, want %q", tt.asked, tt.known, tt.speakers, got, tt.want)
		}
	}
}

// BenchmarkAliases is the per-recall cost of reading a query's names
// against a few hundred names of the candidates (REC-28).
func BenchmarkAliases(b *testing.B) {
	known := []string{"Melanie", "Caroline", "Deborah", "Jolene", "Paris", "Lisbon"}
	for i := range 300 {
		known = append(known, fmt.Sprintf("Name%d", i))
	}
	asked := []string{"Mel", "Jolene"}
	for b.Loop() {
		_ = Aliases(asked, known, known[:4])
	}
}
