package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A question about what someone did at a time ("what did the user do last
// Tuesday?", "where was I on the 3rd?", "Caroline上周二做了什么？") asks by
// its time and its subject; its other words are the scaffolding of a
// question. Searched as text, the subject's words find the memories that
// say "the user" or the name most often, whenever they happened, and
// drown the time (REC-31). So the time and the subject are taken out of
// the text the indexes search, the subject judged by REC-28's who factor
// alone; a question that then has no words of its own is led by its time.

// subjectWords are the words by which a question names the user, the
// agent's default subject: they say whom it is about, not what.
var subjectWords = map[string]bool{"user": true, "users": true, "user's": true, "users'": true}

// scaffoldWords are the verbs and phrases of a question about what
// happened, which say nothing of what happened.
var scaffoldWords = map[string]bool{
	"remind": true, "tell": true, "happen": true, "happened": true, "happening": true, "happens": true,
	"get": true, "got": true, "getting": true, "go": true, "went": true, "going": true, "gone": true,
	"do": true, "did": true, "does": true, "doing": true, "done": true, "up": true, "whereabouts": true,
	"anything": true, "something": true, "stuff": true, "things": true, "thing": true, "kind": true,
	"please": true, "catch": true,
}

// askingWords ask to be reminded ("do you remember…", "any idea…") or
// are what a conversation's lines all are ("what did we talk about on
// Monday?"): alone they leave a question led by its time, but beside
// words of its own they stay searched ("the book she mentioned", "what
// idea did she have").
var askingWords = map[string]bool{
	"remember": true, "recall": true, "know": true, "idea": true, "wonder": true,
	"say": true, "said": true, "says": true, "talk": true, "talked": true, "talking": true, "discuss": true,
	"discussed": true, "chat": true, "chatted": true, "mention": true, "mentioned": true, "speak": true, "spoke": true,
	"about": true,
}

// zhScaffold are the same in Chinese, cut out of the text as strings.
var zhScaffold = []string{"用户", "你还记得", "还记得", "记不记得", "记得", "你知道", "告诉我", "提醒我", "请问",
	"聊了些什么", "聊了什么", "说了些什么", "说了什么", "讨论了什么", "干嘛了", "干嘛", "干啥", "做啥", "发生了啥",
	"发生了什么", "发生", "做了什么", "干什么了", "干了什么", "在做什么", "做什么", "干什么",
	"去哪儿了", "去哪里了", "去哪儿", "去哪里", "在哪儿", "在哪里", "什么", "做了", "干了", "我们", "我", "你", "他们", "她", "他", "了", "呢", "吗", "啥", "？", "?"}

// questionTopic is text, the question without its time, less the words
// that name the user and the question's scaffolding: the words that say
// what it asks about, and own, those less the people it names (names,
// entity.Query) and askingWords. When own has no word the index
// keeps, the question is led by its time.
func questionTopic(text string, names []string) (topic, own string) {
	for _, z := range zhScaffold {
		text = strings.ReplaceAll(text, z, " ")
	}
	text = apartFromHan(text)
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || r == ',' || r == '?' || r == '!' || r == '.' || r == ';' || r == ':' || r == '，' || r == '。'
	})
	named := map[string]bool{}
	for _, n := range names {
		for _, w := range strings.Fields(strings.ToLower(n)) {
			named[w], named[strings.TrimSuffix(w, "'s")] = true, true
		}
	}
	var kept, mine []string
	for _, f := range fields {
		w := strings.ToLower(f)
		if subjectWords[w] || scaffoldWords[w] {
			continue
		}
		kept = append(kept, f)
		if !named[w] && !named[strings.TrimSuffix(w, "'s")] && !askingWords[w] {
			mine = append(mine, f)
		}
	}
	return strings.Join(kept, " "), strings.Join(mine, " ")
}

// apartFromHan is text with a space between a Han character and a letter
// of another script beside it: Chinese writes no space around a name in
// Latin letters ("Caroline都去了哪里"), which is a word of its own.
func apartFromHan(text string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range text {
		if prev != 0 && unicode.IsLetter(prev) && unicode.IsLetter(r) && unicode.Is(unicode.Han, prev) != unicode.Is(unicode.Han, r) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// mentions reports whether text writes out one of names as it is spelt,
// whole words, not inside another word.
func mentions(text string, names []string) bool {
	for _, n := range names {
		for i := 0; n != ""; {
			j := strings.Index(text[i:], n)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(n)
			if (start == 0 || !isWordRune(lastRune(text[:start]))) && (end == len(text) || !isWordRune(firstRune(text[end:]))) {
				return true
			}
			i = start + 1
		}
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// withoutAsking is a question's text without the words that ask to be
// reminded or told (askingWords, "remind", "tell"), whatever it asks.
func withoutAsking(text string) string {
	for _, z := range zhAsking {
		text = strings.ReplaceAll(text, z, " ")
	}
	var kept []string
	for _, w := range strings.Fields(text) {
		lw := strings.ToLower(strings.TrimFunc(w, unicode.IsPunct))
		if askingWords[lw] || tellingWords[lw] {
			continue
		}
		kept = append(kept, w)
	}
	return strings.Join(kept, " ")
}

// zhAsking are the same in Chinese, cut out of the text as strings.
var zhAsking = []string{"你还记得", "还记得", "记不记得", "记得", "你知道", "告诉我", "提醒我", "请问", "我跟你说过", "我告诉过你", "我说过", "跟你说过"}

// tellingWords ask to be told: "remind me", "tell me", "what I told you".
var tellingWords = map[string]bool{"remind": true, "tell": true, "told": true, "please": true}

// isQuestion reports whether text asks: a question mark, or a question's
// or a request's first word ("what…", "remind me…").
func isQuestion(text string) bool {
	if strings.ContainsAny(text, "?？") || strings.HasSuffix(strings.TrimSpace(text), "吗") {
		return true
	}
	for _, z := range zhAsking {
		if strings.HasPrefix(text, z) {
			return true
		}
	}
	f := strings.Fields(strings.ToLower(text))
	if len(f) == 0 {
		return false
	}
	switch strings.TrimFunc(f[0], unicode.IsPunct) {
	case "what", "when", "where", "who", "whom", "which", "why", "how", "do", "does", "did", "can", "could",
		"would", "will", "is", "are", "was", "were", "have", "has", "had", "remind", "tell", "any":
		return true
	}
	return false
}
