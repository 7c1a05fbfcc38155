// Package entity finds the people (and other named things) a text names,
// by rules and without a model (REC-28): capitalised words that do not
// open a sentence, a capitalised word with a possessive anywhere ("Leo's
// sister"), and Chinese personal names by a common surname followed by a
// word that says something of the person (说, 的, 和, ...). A memory's
// entities are its speaker, these names and the aliases its writer gives;
// a query's are the names it asks about; and a turn that names someone
// only to speak to them ("Thanks, Deb!") is not about them (Addressed).
package entity

import (
	"regexp"
	"slices"
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
	// Capitalised words in a row: "Ana", "Ana Silva", "New York". A letter
	// of a script without case ends one: "Caroline上周二…" names Caroline.
	capitalised = regexp.MustCompile(`\p{Lu}[\p{Lu}\p{Ll}\p{Lt}\p{N}&.-]*(?:'[\p{Lu}\p{Ll}]+)?(?:\s+(?:of\s+|de\s+|da\s+|van\s+)?\p{Lu}[\p{Lu}\p{Ll}\p{Lt}\p{N}&.-]*(?:'[\p{Lu}\p{Ll}]+)?)*`)
	// A Chinese personal name (REC-28), by class: a common surname and a
	// given name of one or two characters where a person stands, before
	// what a person says, does, has or is (说, 的, 和, 昨天, 去, …, or a
	// clause's end); a surname and a title (王老师, 李先生, 张小明医生);
	// 小, 老 or 阿 and a surname (小李, 老王) anywhere. notCJK holds the
	// common words and places that look like one.
	cjkName     = regexp.MustCompile(`((?:` + surnames + `)[\p{Han}]{1,2}?|[小老阿](?:` + surnames + `))(?:` + cjkCues + `)`)
	cjkTitled   = regexp.MustCompile(`((?:` + surnames + `)[\p{Han}]{0,2}?)(?:` + cjkTitles + `)`)
	cjkFamiliar = regexp.MustCompile(`[小老阿](?:` + surnames + `)`)
)

// cjkCues are what follows a person's name in a Chinese sentence: speech
// and thought, the possessive and conjunctions, the verbs and adverbs a
// subject takes, kin, times, and a clause's end.
const cjkCues = `说|告诉|问|讲|认为|觉得|提到|写|的|和|跟|与|同|是|在|去|来|想|喜欢|爱|也|都|还|又|就|已经|刚|曾|正在|打算|要|会|能|把|给|对|被|让|带|买|做|住|回|到|从|送|请|帮|叫|看|听|笑|哭|家|妈妈|爸爸|姐姐|妹妹|哥哥|弟弟|儿子|女儿|老婆|老公|昨天|今天|明天|前天|后天|上周|下周|上个月|下个月|去年|今年|明年|最近|刚才|[，。！？、：；,.!?]`

// cjkTitles follow a surname, or a full name, to address a person.
const cjkTitles = `先生|女士|小姐|老师|医生|大夫|经理|教授|同学|阿姨|叔叔|师傅|律师|主任|老板`

// notCJK are words that start like a Chinese name and are none: colours,
// times, places, dynasties, common words (a surname character opens
// them).
var notCJK = set(`黄色 白色 金色 蓝色 红色 周末 周一 周二 周三 周四 周五 周六 周日 周年 周围 周边 夏天 夏季 白天 当天
苏州 江苏 江西 黄山 石家庄 郑州 武汉 沈阳 韩国 马来西亚 高雄 金华 龙岩 秦皇岛 宋朝 唐朝 宋代 唐代 汉朝 明朝
马上 许多 于是 万一 方便 方法 方面 方向 方式 高兴 高中 高速 高级 程序 任何 任务 余下 金钱 钱包 石头 江边 林地 叶子 史上
孔子 高手 白菜 黄瓜 黄金 马路 马车 龙虾 杜鹃 杨树 柳树 林子 雷雨 毛衣 钟头 钟表 陆地 田地 石油 段落 贾宝 万分 万事
程度 范围 姜汤 胡子 胡同 龙头 温度 安全 方才 何时 何况 许久 严重 严格 孟浪 杜绝 谢谢 常常 朱红 邱比 魏晋 丁香
小于 小钱 老毛`)

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
Today Tomorrow Yesterday Tonight Mr Mrs Ms Dr Christmas Easter English Chinese
Anything Something Nothing Everything Anyone Someone Everyone Anybody Somebody Everybody Nobody
Tell Show Give List Find Remind Remember Recall Describe Summarize Summarise Explain Catch Check Search Look`)

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
	if !hasHan(text) {
		return out
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
		if r, _ := utf8.DecodeRuneInString(text[loc[1]:]); unicode.Is(unicode.Han, r) {
			// "Caroline3月7日": the digits are the date's, not the name's.
			m = strings.TrimRightFunc(m, unicode.IsDigit)
		}
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
	for _, n := range cjkNames(text) {
		add(n)
	}
	return out
}

// cjkNames are the Chinese personal names of text, in order (REC-28).
func cjkNames(text string) []string {
	if !hasHan(text) {
		return nil // the regular expressions would scan it for nothing
	}
	type found struct {
		at   int
		name string
	}
	var fs []found
	keep := func(at int, name string) {
		if !notCJK[name] && !notCJK[firstTwo(name)] {
			fs = append(fs, found{at, name})
		}
	}
	for _, m := range cjkTitled.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		if utf8.RuneCountInString(name) == 1 { // 王老师: the surname and the title
			name = text[m[0]:m[1]]
		}
		keep(m[0], name)
	}
	for _, m := range cjkName.FindAllStringSubmatchIndex(text, -1) {
		keep(m[2], text[m[2]:m[3]])
	}
	for _, m := range cjkFamiliar.FindAllStringIndex(text, -1) {
		keep(m[0], text[m[0]:m[1]])
	}
	slices.SortStableFunc(fs, func(a, b found) int { return a.at - b.at })
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		// One place, one name: the longest reading of it ("王小明" over
		// "王小", "王老师" over "王老").
		if n := len(out); n > 0 && (strings.HasPrefix(f.name, out[n-1]) || strings.HasPrefix(out[n-1], f.name)) {
			if len(f.name) > len(out[n-1]) {
				out[n-1] = f.name
			}
			continue
		}
		out = append(out, f.name)
	}
	return out
}

// hasHan reports whether s has a Chinese character.
func hasHan(s string) bool {
	for _, r := range s {
		if r >= 0x2E80 && unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// firstTwo is s's first two characters.
func firstTwo(s string) string {
	i := 0
	for n := 0; n < 2 && i < len(s); n++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
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

// callWords are the greetings, thanks and interjections after which a
// name is the one spoken to ("Hey Mel", "Thanks Deb!", "Wow Jon, same
// here").
var callWords = set(`hey hi hello hiya yo dear thanks thank you bye goodbye congrats congratulations cheers
morning evening night welcome wow oh ah aw aww yes yeah yep yup no nope sure ok okay well haha lol sorry`)

// Addressed reports whether text names any of names, and only to speak to
// them: each time, alone between the text's start, a clause's punctuation
// or a greeting ("Hey Mel", "Thanks, Deb!", "Caroline, congrats!") and
// the end of its clause. A turn that calls its listener by name is not
// about them (REC-28). Names are looked for as written, whole: false for a
// text that does not write one out (English rules; no Chinese ones yet).
func Addressed(text string, names []string) bool {
	found := false
	for _, n := range names {
		for i := 0; n != ""; {
			j := strings.Index(text[i:], n)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(n)
			i = end
			if start > 0 && isWord(lastRune(text[:start])) || end < len(text) && isWord(firstRune(text[end:])) {
				continue // inside a longer word
			}
			if !calledBefore(text[:start]) || !clauseEnds(text[end:]) {
				return false
			}
			found = true
		}
	}
	return found
}

// calledBefore reports whether what precedes a name makes it the one
// spoken to: nothing, a clause's punctuation, or a word of callWords.
func calledBefore(before string) bool {
	before = strings.TrimRightFunc(before, unicode.IsSpace)
	if before == "" {
		return true
	}
	if r := lastRune(before); !isWord(r) {
		return strings.ContainsRune(",.!?;:(\"“—–-", r)
	}
	k := strings.LastIndexFunc(before, func(r rune) bool { return !isWord(r) })
	return callWords[strings.ToLower(before[k+1:])]
}

// clauseEnds reports whether what follows a name ends its clause: nothing,
// or punctuation other than a possessive's apostrophe or an ampersand.
func clauseEnds(after string) bool {
	after = strings.TrimLeftFunc(after, unicode.IsSpace)
	if after == "" {
		return true
	}
	r := firstRune(after)
	return (unicode.IsPunct(r) || unicode.IsSymbol(r)) && !strings.ContainsRune("'’&", r)
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
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

// MinPrefix is the shortest short form of a name read as it: "Mel" for
// "Melanie", not "Me".
const MinPrefix = 3

// hypocoristics are common English short forms that are not a prefix of
// the name they stand for, each with its full names.
var hypocoristics = map[string][]string{
	"bob": {"robert"}, "bobby": {"robert"}, "rob": {"robert"}, "robbie": {"robert"}, "bert": {"robert", "albert", "herbert"},
	"bill": {"william"}, "billy": {"william"}, "will": {"william"}, "liam": {"william"},
	"liz": {"elizabeth"}, "lizzie": {"elizabeth"}, "beth": {"elizabeth", "bethany"}, "betty": {"elizabeth"}, "eliza": {"elizabeth"},
	"kate": {"katherine", "catherine", "kathryn"}, "katie": {"katherine", "catherine", "kathryn"}, "kathy": {"katherine", "kathryn"}, "cathy": {"catherine"},
	"jim": {"james"}, "jimmy": {"james"}, "jamie": {"james"},
	"mike": {"michael"}, "mikey": {"michael"},
	"dick": {"richard"}, "rick": {"richard", "frederick", "eric"}, "ricky": {"richard"},
	"tony": {"anthony", "antonio"}, "jack": {"john", "jackson"}, "johnny": {"john", "jonathan"},
	"peggy": {"margaret"}, "maggie": {"margaret"}, "meg": {"margaret", "megan"}, "peg": {"margaret"},
	"ted": {"edward", "theodore"}, "ned": {"edward"}, "eddie": {"edward"},
	"chuck": {"charles"}, "charlie": {"charles", "charlotte"},
	"hank": {"henry"}, "harry": {"henry", "harold"},
	"jenny": {"jennifer"}, "sandy": {"sandra", "alexander"}, "sasha": {"alexander", "alexandra"},
	"becky": {"rebecca"}, "sally": {"sarah"}, "molly": {"mary"}, "polly": {"mary"},
	"nick": {"nicholas", "nicolas"}, "nicky": {"nicholas", "nicole"}, "andy": {"andrew"}, "drew": {"andrew"},
	"danny": {"daniel"}, "dave": {"david"}, "davy": {"david"}, "steve": {"steven", "stephen"},
	"larry": {"lawrence", "laurence"}, "patty": {"patricia"}, "trish": {"patricia"},
	"gabe": {"gabriel"}, "jake": {"jacob"}, "joey": {"joseph"}, "josh": {"joshua"},
	"tommy": {"thomas"}, "susie": {"susan"},
	"debbie": {"deborah", "debra"}, "vicky": {"victoria"}, "tori": {"victoria"}, "abby": {"abigail"}, "gina": {"georgina", "regina"},
}

// Aliases is asked with the names the people it asks about go by among
// known, the names of a scope (REC-28): a short form of exactly one known
// name ("Mel" for "Melanie", "Bob" for "Robert": see shortFor) and, the
// other way, a known short form that stands for no other asked or known
// name ("Mel" for a question on "Melanie"); in Chinese, 小王, 老王 or 阿王
// for the one known name of that surname, and a two-character given name
// for the one known full name it ends ("小明" for "王小明"), both ways. A
// name that could be two known people's is none's alias, and one of
// speakers, who speak in the scope as themselves (Ana beside Anabel), is
// no one else's.
func Aliases(asked, known, speakers []string) []string {
	if len(asked) == 0 || len(known) == 0 {
		return asked
	}
	out := slices.Clone(asked)
	has := func(n string) bool {
		return slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, n) })
	}
	speaks := func(n string) bool {
		return slices.ContainsFunc(speakers, func(o string) bool { return strings.EqualFold(o, n) })
	}
	for _, a := range asked {
		fa := newForms(a)
		if a == "" {
			continue
		}
		// Without a common short form either way, only names with a's
		// first letter can be its short or long forms.
		plain := !fa.han && len(fa.fulls) == 0 && len(fa.shorts) == 0
		// The one known name a stands for, if one; and the known names
		// that stand for a.
		long, longs := "", 0
		var short []string
		for _, k := range known {
			if plain && (k == "" || lowerASCII(k[0]) != lowerASCII(a[0])) {
				continue // a prefix starts as the name does
			}
			if fa.han != hasHan(k) || strings.EqualFold(k, a) {
				continue // a Chinese name has no Latin short form, nor the other way
			}
			if fa.shortFor(k) && (longs == 0 || !strings.EqualFold(k, long)) {
				long, longs = k, longs+1
			}
			if fa.longFor(k) && !slices.ContainsFunc(short, func(o string) bool { return strings.EqualFold(o, k) }) {
				short = append(short, k)
			}
		}
		if longs == 1 && !has(long) && !speaks(a) {
			out = append(out, long)
		}
		for _, s := range short {
			if speaks(s) {
				continue // a speaker of the scope is someone in their own right
			}
			// s must stand for a alone among the names known and asked.
			fs, alone := newForms(s), true
			for _, list := range [][]string{known, asked} {
				for _, k := range list {
					if fs.han == hasHan(k) && !strings.EqualFold(k, s) && !strings.EqualFold(k, a) && fs.shortFor(k) {
						alone = false
					}
				}
			}
			if alone && !has(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// forms is a name as Aliases compares it with others: once for all of
// them, the common short forms it has or is.
type forms struct {
	name, first string
	han         bool
	fulls       []string // the full names it is a common short form of
	shorts      []string // its common short forms
}

func newForms(name string) forms {
	f := forms{name: name, han: hasHan(name)}
	if f.han {
		return f
	}
	f.first, _, _ = strings.Cut(name, " ")
	low := strings.ToLower(f.first)
	f.fulls = hypocoristics[low]
	for short, fulls := range hypocoristics {
		if slices.Contains(fulls, low) {
			f.shorts = append(f.shorts, short)
		}
	}
	return f
}

// shortFor reports whether f may be a short form of the name n: a prefix
// of its first word, of at least MinPrefix letters, that leaves two or
// more out ("Leo" is another name than "Leon"), or a common English short
// form of it; in Chinese, 小, 老 or 阿 and n's surname, or n's given name
// of two characters.
// Both names are of one script.
func (f forms) shortFor(n string) bool {
	if f.han {
		return cjkShortFor(f.name, n)
	}
	if strings.Contains(f.name, " ") {
		return false
	}
	first, _, _ := strings.Cut(n, " ")
	if len(f.name) >= MinPrefix && len(f.name)+2 <= len(first) && strings.EqualFold(first[:len(f.name)], f.name) {
		return true
	}
	for _, full := range f.fulls {
		if strings.EqualFold(first, full) {
			return true
		}
	}
	return false
}

// longFor reports whether the name n may be a short form of f's: f's
// shortFor the other way round. Both names are of one script.
func (f forms) longFor(n string) bool {
	if f.han {
		return cjkShortFor(n, f.name)
	}
	if strings.Contains(n, " ") {
		return false
	}
	if len(n) >= MinPrefix && len(n)+2 <= len(f.first) && strings.EqualFold(f.first[:len(n)], n) {
		return true
	}
	for _, s := range f.shorts {
		if strings.EqualFold(n, s) {
			return true
		}
	}
	return false
}

// cjkShortFor is shortFor of Chinese names: 小王 of 王小明 (a familiar
// form of its surname), 小明 of 王小明 (its given name).
func cjkShortFor(s, n string) bool {
	rs, rn := []rune(s), []rune(n)
	if len(rn) < 2 || len(rn) > 4 || len(rs) != 2 || strings.ContainsRune("小老阿", rn[0]) && len(rn) == 2 {
		return false
	}
	if strings.ContainsRune("小老阿", rs[0]) && strings.HasPrefix(n, string(rs[1:])) {
		return true // 小王: 王小明
	}
	return len(rn) == 3 && string(rn[1:]) == s // 小明: 王小明
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
