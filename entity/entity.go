// Package entity finds the people (and other named things) a text names,
// by rules and without a model (REC-28): capitalised words that do not
// open a sentence, a capitalised word with a possessive anywhere ("Leo's
// sister"), and Chinese personal names by a common surname followed by a
// word that says something of the person (说, 的, 和, ...). A memory's
// entities are its speaker, these names and the aliases its writer gives;
// a query's are the names it asks about.
package entity

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxEntities bounds the entities kept for one memory, and MaxLen one
// entity's length in characters.
const (
	MaxEntities = 32
	MaxLen      = 64
)

var (
	// Capitalised words in a row: "Ana", "Ana Silva", "New York".
	capitalised = regexp.MustCompile(`\p{Lu}[\p{L}\p{N}&.-]*(?:'[\p{L}]+)?(?:\s+(?:of\s+|de\s+|da\s+|van\s+)?\p{Lu}[\p{L}\p{N}&.-]*(?:'[\p{L}]+)?)*`)
	// A Chinese personal name: a common surname, one or two characters,
	// then a word about the person; or 小/老/阿 and a surname.
	cjkName = regexp.MustCompile(`((?:` + surnames + `)[\p{Han}]{1,2}?|[小老阿](?:` + surnames + `))(?:说|告诉|问|讲|的|和|跟|与|是|在|去|来|想|觉得|喜欢|也|都|已经|刚|曾|家|妈妈|爸爸|姐姐|妹妹|哥哥|弟弟)`)
)

// surnames are the commonest Chinese surnames.
const surnames = `王|李|张|刘|陈|杨|黄|赵|吴|周|徐|孙|马|朱|胡|郭|何|高|林|罗|郑|梁|谢|宋|唐|许|韩|冯|邓|曹|彭|曾|肖|田|董|袁|潘|于|蒋|蔡|余|杜|叶|程|苏|魏|吕|丁|任|沈|姚|卢|姜|崔|钟|谭|陆|汪|范|金|石|廖|贾|夏|韦|付|方|白|邹|孟|熊|秦|邱|江|尹|薛|闫|段|雷|侯|龙|史|陶|黎|贺|顾|毛|郝|龚|邵|万|钱|严|覃|武|戴|莫|孔|欧阳|司马|诸葛|上官`

// notNames are capitalised words that name no one: sentence openers,
// pronouns, question words, days and months.
var notNames = set(`I I'm I've I'll I'd Me My Mine We Our Us You Your He His Him She Her Hers It Its They Their Them
The A An This That These Those There Here What Which Who Whom Whose Why How When Where Is Are Was Were Be Been Am
Do Does Did Have Has Had Can Could Would Will Shall Should May Might Must Not No Yes OK Ok Okay Oh Wow Hey Hi Hello
Thanks Thank Please Sorry Sure Well So And But Or If Then Also Just Let Let's As At In On Of For To From With By About
Into Over After Before Since Until During Some Any All Every Each Both Many Much More Most Other Another Such
Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April June July August September
October November December Mon Tue Wed Thu Fri Sat Sun Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec
Today Tomorrow Yesterday Tonight Mr Mrs Ms Dr Christmas Easter English Chinese`)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Names returns the names text mentions, in order, without repeats: a run
// of capitalised words that does not open a sentence (nor is a word of
// notNames), or one that does but is possessive ("Leo's"), and Chinese
// personal names.
func Names(text string) []string {
	return names(text, false)
}

// speechVerbs say that their subject spoke, wrote or thought what follows.
const speechVerbs = `say|says|said|tell|tells|told|think|thinks|thought|feel|feels|felt|describe|describes|described|mention|mentions|mentioned|suggest|suggests|suggested|recommend|recommends|recommended|advise|advises|advised|ask|asks|asked|share|shares|shared|reply|replies|replied|write|writes|wrote|explain|explains|explained|believe|believes|believed`

var (
	// "What did Ana say", "How does Leo feel": a name, then a speech verb.
	speaker = regexp.MustCompile(`(\p{Lu}[\p{L}\p{N}-]*(?:\s+\p{Lu}[\p{L}\p{N}-]*)?)\s+(?:\p{L}+ly\s+)?(?:` + speechVerbs + `)\b`)
	// 王小明说, 小李觉得: a Chinese name, then a speech verb.
	cjkSpeaker = regexp.MustCompile(`((?:` + surnames + `)[\p{Han}]{1,2}?|[小老阿](?:` + surnames + `))(?:说|告诉|讲|认为|觉得|提到|问|写)`)
)

// Speakers returns the names a query gives as the speaker of what it asks
// for ("What did Ana say about the trip?", "How does Leo feel about…",
// "王小明说了什么"): what they said is by them, not only about them.
func Speakers(text string) []string {
	var out []string
	for _, m := range speaker.FindAllStringSubmatch(text, -1) {
		words := strings.Fields(m[1])
		for len(words) > 0 && notNames[words[0]] {
			words = words[1:]
		}
		if len(words) > 0 {
			out = append(out, Normal(strings.Join(words, " ")))
		}
	}
	for _, m := range cjkSpeaker.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// Query returns the names a query asks about: as Names, but a capitalised
// word may open it, unless it is a word of notNames ("What did Ana say",
// "Leo's sister", "Caroline went where?").
func Query(text string) []string {
	return names(text, true)
}

func names(text string, query bool) []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		n = Normal(n)
		if n == "" || seen[strings.ToLower(n)] || len(out) >= MaxEntities {
			return
		}
		seen[strings.ToLower(n)] = true
		out = append(out, n)
	}
	for _, loc := range capitalised.FindAllStringIndex(text, -1) {
		m := text[loc[0]:loc[1]]
		words := strings.Fields(m)
		// Leading words that name no one go: "The Acme Corp", "Did Ana".
		lead := 0
		for lead < len(words) && notNames[possessive(words[lead])] {
			lead++
		}
		if lead == len(words) {
			continue
		}
		opens := lead == 0 && opensSentence(text, loc[0])
		if opens && !query && !strings.HasSuffix(words[0], "'s") && len(words) == 1 {
			continue // a lone capitalised word opening a sentence is its first word
		}
		for i := range words {
			words[i] = possessive(words[i])
		}
		add(strings.Join(words[lead:], " "))
	}
	for _, m := range cjkName.FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
	return out
}

// possessive drops a trailing 's or ’s.
func possessive(w string) string {
	w = strings.TrimRight(w, ".,;:!?")
	for _, s := range []string{"'s", "’s", "'"} {
		if strings.HasSuffix(w, s) && len(w) > len(s) {
			return w[:len(w)-len(s)]
		}
	}
	return w
}

// opensSentence reports whether the byte at i of text opens a sentence:
// nothing but space, quotes or brackets before it since the text's start
// or a sentence's end.
func opensSentence(text string, i int) bool {
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		switch {
		case unicode.IsSpace(r) || strings.ContainsRune("\"'“‘([-*", r):
			i -= size
		case strings.ContainsRune(".!?。！？:\n", r):
			return true
		default:
			return false
		}
	}
	return true
}

// Normal is a name on one line, trimmed, at most MaxLen characters; ""
// when nothing is left.
func Normal(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Trim(s, ".,;:!?'\"-&")
	if utf8.RuneCountInString(s) > MaxLen {
		s = string([]rune(s)[:MaxLen])
	}
	return s
}

// Of is a memory's entities (REC-28): its speaker, the names its text
// mentions and the aliases its writer gave, without repeats (letter case
// aside), at most MaxEntities.
func Of(speaker, text string, given []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		n = Normal(n)
		if k := strings.ToLower(n); n != "" && !seen[k] && len(out) < MaxEntities {
			seen[k] = true
			out = append(out, n)
		}
	}
	add(speaker)
	for _, g := range given {
		add(g)
	}
	for _, n := range Names(text) {
		add(n)
	}
	return out
}

// Match reports whether a memory's entities name one the query asks about:
// the same name, letter case aside, or a word of it ("Ana" asks about "Ana
// Silva", and "Ana Silva" about "Ana").
func Match(asked, has []string) bool {
	if len(asked) == 0 || len(has) == 0 {
		return false
	}
	for _, a := range asked {
		for _, h := range has {
			if strings.EqualFold(a, h) || wordOf(a, h) || wordOf(h, a) {
				return true
			}
		}
	}
	return false
}

// wordOf reports whether w is one of the space-separated words of name.
func wordOf(w, name string) bool {
	if !strings.Contains(name, " ") || strings.Contains(w, " ") {
		return false
	}
	for _, f := range strings.Fields(name) {
		if strings.EqualFold(f, w) {
			return true
		}
	}
	return false
}
