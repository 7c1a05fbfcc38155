package temporal

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// rule is one kind of time expression: a pattern and how a match of it
// resolves.
type rule struct {
	re *regexp.Regexp
	// cjk rules run only over text with non-ASCII letters.
	cjk bool
	// quick is a "|"-separated list of substrings one of which any match
	// contains; a text with none skips the rule.
	quick string
	// pre, when set, is a test besides quick that a text must pass for
	// the rule to find anything in it, given the text in lower case,
	// whether it has a digit and whether quick may read \b (see quick).
	pre func(low string, digit, words bool) bool
	// trim, when not 0, is the group that is the expression proper (the
	// rest of the match is context, such as a preposition).
	trim    int
	resolve func(sub []string, text string, loc []int, c ctx) (Window, bool)
}

// English building blocks.
const (
	mon = `(?:january|february|march|april|may|june|july|august|september|october|november|december|sept|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)`
	// a month's name, an abbreviation with its full stop ("Dec.", not
	// the sentence's after "May.")
	monDot = `(?:(?:january|february|march|april|may|june|july|august|september|october|november|december)\b|(?:sept|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)(?:\.|\b))`
	dnum   = `(?:[12][0-9]|3[01]|0?[1-9])`
	ord    = `(?:st|nd|rd|th)`
	year   = `(?:1[89][0-9]{2}|2[01][0-9]{2})`
	month  = `(?:1[0-2]|0?[1-9])`
	wd     = `(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)`
	nword  = `(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty)`
	// a count, or two bounding one ("two or three", "2-3")
	count = `(?:(?:\d{1,3}|a\s+couple(?:\s+of)?|couple(?:\s+of)?|a\s+few|few|several|an?|` + nword + `)(?:\s+(?:or|to)\s+(?:\d{1,3}|` + nword + `)|\s*[-–]\s*\d{1,3})?)`
	unit  = `(day|week|fortnight|month|year|decade)s?`
	// ordinal words of the days of a month
	ordw = `(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty[\s-]?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|thirtieth|thirty[\s-]?first)`
	// an absolute date: ISO, month day year, day month year, month year, month
	absDate = `(?:` + year + `-` + month + `-` + dnum + `|` + year + `/` + month + `/` + dnum +
		`|` + mon + `\.?\s+` + dnum + ord + `?(?:,?\s+` + year + `)?\b` +
		`|` + dnum + ord + `?\s+(?:of\s+)?` + monDot + `(?:,?\s+` + year + `)?` +
		`|` + mon + `\.?,?\s+(?:of\s+)?` + year +
		`|` + mon + `)`
	// a month (or a year) that a part of it can be taken of
	inner = `(?:` + mon + `(?:,?\s+(?:of\s+)?` + year + `)?|` + year + `|(?:last|this|next|the)\s+(?:year|month|week)|the\s+(?:` + year + `))`
	// a point that "the day before ..." can be said of: a date, a day word,
	// a weekday with or without last, next or this
	point = `(?:` + absDate + `|yesterday|today|tomorrow|(?:(?:last|next|this)\s+)?` + wd + `)`
)

// Chinese building blocks.
const (
	cnum   = `[0-9０-９〇零一二两三四五六七八九十]`
	cyear  = `(?:[0-9]{4}|[〇零一二三四五六七八九]{4})`
	cmod   = `(年初|年中|年底|年末|月初|月中|月底|月末|上半年|下半年|上旬|中旬|下旬|初|底|末)?`
	cdate  = `(?:` + cyear + `年)?` + cnum + `{1,3}月(?:` + cnum + `{1,3}[日号]?)?|` + cyear + `年`
	cright = `(?:` + cyear + `年)?` + cnum + `{1,3}月(?:` + cnum + `{1,3}[日号])?|(?:` + cyear + `年)?` + cnum + `{1,3}[日号]|` + cyear + `年`
)

var (
	rulesOnce sync.Once
	ruleList  []rule
)

// rules are compiled on first use: a process that never reads a time pays
// nothing at start-up.
func rules() []rule {
	rulesOnce.Do(func() { ruleList = buildRules() })
	return ruleList
}

func buildRules() []rule {
	en := func(quick, pattern string, trim int, f func(sub []string, text string, loc []int, c ctx) (Window, bool)) rule {
		return rule{re: regexp.MustCompile(`(?i)` + pattern), quick: quick, trim: trim, resolve: f}
	}
	// A match of absDate (after a \b) has a year or a month's name at the
	// start of a word, and a digit unless the name is alone. As plain
	// substrings, "mar", "may" or "dec" are in one text in five and a
	// digit in more: the rules of dates were most of the cost of a
	// memory's write (PERF-1, PERF-8).
	const (
		monthWords = `\bjan|\bfeb|\bmar|\bapr|\bmay|\bjun|\bjul|\baug|\bsep|\boct|\bnov|\bdec`
		monthNames = `\bjanuary|\bfebruary|\bmarch|\bapril|\bmay|\bjune|\bjuly|\baugust|\bsept|\boctober|\bnovember|\bdecember`
	)
	dated := func(low string, digit, words bool) bool {
		return hasYear(low) || quick(low, monthWords, digit, words)
	}
	withPre := func(r rule, pre func(low string, digit, words bool) bool) rule {
		r.pre = pre
		return r
	}
	const wdays = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
	zh := func(pattern, quick string, f func(sub []string, text string, loc []int, c ctx) (Window, bool)) rule {
		return rule{re: regexp.MustCompile(pattern), cjk: true, quick: quick, resolve: f}
	}
	return []rule{
		// Ranges first: of two readings of one span, the longer wins anyway.
		withPre(en("between|from", `\b(?:between|from)\s+(`+absDate+`|`+dnum+ord+`?)\s+(?:and|to|until|till|through|thru|-|–)\s+(`+absDate+`|`+dnum+ord+`?(?:,?\s+`+year+`)?)\b`, 0, enRange),
			func(low string, digit, words bool) bool { return digit || quick(low, monthWords, digit, words) }),
		withPre(en("-|–|through", `\b(`+absDate+`)\s*(?:-|–|through)\s*(`+absDate+`|`+dnum+ord+`?(?:,?\s+`+year+`)?)\b`, 0, enRange), dated),
		en("#", `\b(?:between\s+|from\s+)?(`+year+`)\s*(?:-|–|to|and|until|through)\s*(`+year+`)\b`, 0, enRange),
		// The day before a point.
		en("before|after", `\bthe\s+(day|week|weekend|month|year|`+wd+`)\s+(before|after)\s+(`+point+`)`, 0, enRelativeTo),
		// Counted units before or after a point (REC-29): "two days before
		// 9 June 2023", "a few weeks after May 1".
		en("before|after", `\b(`+count+`)\s+`+unit+`\s+(before|after)\s+(`+point+`)`, 0, enCountRelativeTo),
		en("yesterday|today|tonight|tomorrow|this|last night", `\b(the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|(?:earlier\s+|later\s+)?today|(?:later\s+)?tonight|tomorrow|(?:earlier\s+)?this\s+(?:morning|afternoon|evening)|last\s+night)\b`, 0, enDayWord),
		// Weeks of a month, parts of a month or year.
		en("week of", `\b(?:the\s+)?(first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+week\s+of\s+(`+inner+`)\b`, 0, enWeekOf),
		en(" of ", `\b(?:the\s+|at\s+the\s+|in\s+the\s+)?(very\s+beginning|beginning|start|end|middle|first\s+half|second\s+half|early\s+part|earlier\s+part|latter\s+part|later\s+part|last\s+part)\s+of\s+(`+inner+`)\b`, 0, enPartOf),
		en("early|mid|late", `\b(early|mid|late)[\s-]+(`+inner+`)\b`, 0, enPartOf),
		en("this", `\b(earlier|later|so\s+far)\s+this\s+(week|month|year)\b`, 0, enEarlierThis),
		// Counted units.
		en("ago|back|earlier", `\b(`+count+`)\s+`+unit+`(?:\s+or\s+(so|two|three))?\s+(ago|back|earlier)\b`, 0, enAgo),
		en("half", `\b(?:(an?|one|two|three|four|five|six|\d{1,2})\s+(day|week|month|year)s?\s+and\s+a\s+half|(one|two|three|four|five|six|\d{1,2})\s+and\s+a\s+half\s+(day|week|month|year)s?|half\s+an?\s+(day|week|month|year))\s+(ago|back|earlier)\b`, 0, enHalfAgo),
		en("hour|minute", `\b(`+count+`)\s+(hour|minute)s?\s+(ago|back|earlier)\b`, 0, enHoursAgo),
		// How long a state has lasted dates its start (REC-32): "we've
		// been married for five years", "I've had them for 3 years now",
		// "it's been two months since", "since three weeks"; only in a
		// memory's text, as of when it was written.
		withPre(en("have|has|'ve|’ve|been", `\b(?:(?:have|has|'ve|’ve)\s+(?:`+lastedAdv+`\s+)*([a-z]+)|(?:'s|’s)\s+(?:`+lastedAdv+`\s+)*been|been)\b[^.!?;:\n]{0,60}?\s(for\s+(?:(`+lastedApprox+`)\s+)?(`+count+`)\s+`+unit+`(?:\s+now)?)\b`, 2, enLasted),
			func(low string, digit, words bool) bool { return strings.Contains(low, "for") }),
		en("been", `\b(?:it's|it’s|it\s+has|that's|that’s|that\s+has)\s+(?:now\s+|already\s+)?been\s+(?:(`+lastedApprox+`)\s+)?(`+count+`)\s+`+unit+`\s+since\b`, 0, enBeenSince),
		en("since", `\bsince\s+(?:(`+lastedApprox+`)\s+)?(`+count+`)\s+`+unit+`\b`, 0, enSinceCount),
		en("hour|minute", `\b(?:(?:the|over\s+the|in\s+the|within\s+the|during\s+the)\s+)?(?:past|last|previous)\s+(?:(`+count+`)\s+)?(hour|minute)s?\b`, 0, enPastHours),
		// The unit two before or after this one: "the week before last",
		// "the Friday after next".
		withPre(en("before|after", `\b(?:the\s+)?(day|night|week|weekend|month|year|spring|summer|autumn|fall|winter|`+wd+`)\s+(before\s+last|after\s+next)\b`, 0, enBeforeLast),
			func(low string, digit, words bool) bool {
				return strings.Contains(low, "last") || strings.Contains(low, "next")
			}),
		withPre(en("this|ago", `\b(?:(?:around|about|at)\s+)?(?:this\s+(?:time|day)\s+(last|next)\s+(year|month|week)|(`+count+`)\s+(year|month|week)s?\s+ago\s+today)\b`, 0, enThisTimeLast),
			func(low string, digit, words bool) bool {
				return strings.Contains(low, "time") || strings.Contains(low, "day")
			}),
		// Spans to come: "the next few days", "in the coming weeks".
		en("next|coming|following", `\b(?:(?:the|over\s+the|in\s+the|within\s+the|during\s+the)\s+)?(?:next|coming|following)\s+(`+count+`)\s+`+unit+`\b`, 0, enNextCount),
		en("coming", `\b(?:in|over|during)\s+the\s+coming\s+(day|week|month|year)s\b`, 0, enComing),
		// A weekday (or weekend) of a month by its place: "the first Monday
		// of May", "the last Friday of last month".
		en(wdays+"|weekend", `\b(?:the\s+)?(first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+(`+wd+`|weekend)\s+(?:of|in)\s+(`+inner+`)\b`, 0, enNthWeekdayOf),
		// Decades: "the 1990s", "the nineties", "the '80s"; "the 90s" in a query.
		en("0s|0's|ties", `\b(?:the\s+)?(?:((?:1[89]|20)[0-9]0)'?s|'([0-9]0)s|(twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)|the\s+([0-9]0)s)\b`, 0, enDecade),
		// Quarters: "Q1 2023", "the first quarter of last year".
		en("q|quarter", `\b(?:q([1-4])\s*(`+year+`)|(?:the\s+)?(first|second|third|fourth|last|1st|2nd|3rd|4th)\s+quarter\s+of\s+(`+year+`|(?:last|this|next|the)\s+year))\b`, 0, enQuarter),
		en("other", `\bthe\s+other\s+(day|week)\b`, 0, enOtherDay),
		// Weekends and weekdays counted back: "two weekends ago", "three
		// Saturdays back".
		en("ago|back", `\b(`+count+`)\s+(weekend|`+wd+`)s?\s+(?:ago|back)\b`, 0, enWeekdaysAgo),
		en("ago|back", `\b(`+count+`)\s+(spring|summer|autumn|fall|winter)s?\s+(?:ago|back)\b`, 0, enSeasonsAgo),
		en("recent", `\b(?:in|over|during)\s+(?:the\s+)?recent\s+(day|week|month|year)s\b`, 0, enRecent),
		en("weekend", `\b(?:over|during|on|at|for)\s+the\s+(long\s+)?weekend\b`, 0, enTheWeekend),
		// Someone's weekend, as asked after it ("how was your weekend?").
		en("weekend", `\b(?:my|your|his|her|our|their|\p{Lu}\p{Ll}+(?:'s|’s))\s+(long\s+)?weekend\b`, 0, enTheWeekend),
		en("early|late|mid", `\b(early|earlier|late|later|mid)[\s-]+in\s+(`+inner+`)\b`, 0, enPartIn),
		// Days of a month by their ordinal: "the fifth of May", "the 5th
		// of last month", "May the 5th", "March first".
		withPre(en("of", `\b(?:on\s+)?the\s+(`+ordw+`|`+dnum+ord+`)\s+of\s+(`+mon+`\b(?:,?\s+`+year+`)?|(?:last|this|next|the)\s+month)\b`, 0, enDayOf),
			func(low string, digit, words bool) bool { return digit || quick(low, ordinalStems, digit, words) }),
		withPre(en("", `\b(`+mon+`)\.?\s+(?:the\s+(`+ordw+`|`+dnum+ord+`)|(`+ordw+`))\b(?:,?\s+(`+year+`))?`, 0, enMonthOrdinal),
			func(low string, digit, words bool) bool { return quick(low, monthWords, digit, words) }),
		withPre(en(holidayQuick, `\b(?:(last|this|next|the)\s+)?(`+holidayNames+`)(?:,?\s+(`+year+`)|`+yearAfter+`)?\b`, 0, enHoliday), func(low string, digit, words bool) bool {
			return !strings.Contains(low, "new") || strings.Contains(low, "year") || quick(low, strings.TrimPrefix(holidayQuick, "new|"), digit, words)
		}),
		en("in |within", `\b(?:in|within)\s+(`+count+`)\s+`+unit+`\b`, 0, enIn),
		en("from now|later|after that", `\b(`+count+`)\s+`+unit+`\s+(?:from\s+now|later|after\s+that)\b`, 0, enIn),
		en("past|last|previous", `\b(?:the\s+|over\s+the\s+|in\s+the\s+)?(?:past|last|previous)\s+(`+count+`)\s+`+unit+`\b`, 0, enPast),
		// last/this/next + unit, weekday or season.
		en(wdays, `\b(last|next|this|past|previous|coming|this\s+past|this\s+coming)\s+(`+wd+`)\b`, 0, enModWeekday),
		// Abbreviated weekdays after a modifier (REC-29): "last Fri", "next Tues".
		en("last|next|this|past|previous|coming", `\b(last|next|this|past|previous|coming|this\s+past|this\s+coming)\s+(mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)\b`, 0, enModWeekday),
		en("last|past|previous", `\b(?:over|in|during|within|throughout|for)\s+(?:most\s+of\s+|all\s+of\s+)?the\s+(?:last|past|previous)\s+(month|year)\b`, 0, enOverTheLast),
		en("just", `\b(?:this|the)\s+(week|weekend|month)\s+just\s+(?:gone|passed|past)\b`, 0, enJustGone),
		en("last|next|this|past|previous|coming|following", `\b(?:the\s+)?(last|next|this|past|previous|coming|this\s+past|this\s+coming|following)\s+(week|weekend|fortnight|month|year|decade|spring|summer|autumn|fall|winter)\b`, 0, enModUnit),
		en("'|’", `\b(?:(?:in|during|over)\s+(?:the\s+)?|the\s+)?(spring|summer|autumn|fall|winter)\s+of\s+['’]([0-9]{2})\b`, 0, enSeasonShortYear),
		en("'|’", `\b(?:in|since|from|until|till|by|around|circa|back\s+in)\s+['’]([0-9]{2})\b`, 0, enShortYear),
		en("spring|summer|autumn|fall|winter", `\b(?:(?:in|during|over)\s+(?:the\s+)?|the\s+)?(spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?(`+year+`)|`+yearAfter+`)?\b`, 0, enSeason),
		// Absolute dates.
		// A date without a digit is a month's name alone, which enAbs
		// keeps only if it is not a three-letter abbreviation other than
		// May.
		withPre(en("", `\b(`+absDate+`)`, 1, enAbs), func(low string, digit, words bool) bool {
			return quick(low, monthNames, digit, words) || digit && dated(low, digit, words)
		}),
		en("#", `\b(?:on\s+)?the\s+(`+dnum+`)`+ord+`\b`, 0, enOrdinalDay),
		en("#", `\b(?:in|during|since|of|for|around|throughout|circa|from|year)\s+(`+year+`)\b`, 1, enYear),
		en("#", `(?:^|[\s(,])(`+year+`)(?:$|[.,;!?)])`, 1, enYear),
		en(wdays, `\b(?:on\s+)?(`+wd+`)\b`, 1, enWeekday),

		// Chinese.
		zh(`从?(`+cdate+`)(?:到|至|~|～|-|—|–)(`+cright+`)`, "月|年", zhRange),
		zh(`(`+cyear+`)年(?:(`+cnum+`{1,3})月(?:(`+cnum+`{1,3})[日号])?)?`+cmod, "年", zhAbs),
		zh(`(大前年|前年|去年|今年|明年|后年|大后年)(?:(`+cnum+`{1,3})月(?:(`+cnum+`{1,3})[日号])?)?`+cmod, "年", zhYearRel),
		zh(`(`+cnum+`{1,3})月份?(?:(`+cnum+`{1,3})[日号])?`+cmod, "月", zhMonthDay),
		// With the spoken forms of the north (REC-39): 昨儿, 今儿个, 明儿.
		zh(`(大前天|前天|昨天|昨日|昨晚|昨夜|今天|今日|今晚|今夜|今早|明天|明日|明早|明晚|后天|大后天|前儿个|昨儿个|昨儿|今儿个|今儿|明儿个|明儿|后儿个)`, "天|日|晚|早|夜|儿", zhDayWord),
		// A span of weekdays: 周一到周三, 下周二至周五.
		zh(`(上上|上|这|本|下下|下)?个?(周|星期|礼拜)([一二三四五六日天1-7])(?:到|至|~|～|-|—|–)(?:周|星期|礼拜)?([一二三四五六日天1-7])`, "周|星期|礼拜", zhWeekdayRange),
		zh(`(上上|上|这|本|下下|下)?个?(周|星期|礼拜)([一二三四五六日天1-7])`, "周|星期|礼拜", zhWeekday),
		// Seasons, of a year or the nearest: 去年冬天, 2021年夏天, 春天.
		zh(`(?:(大前年|前年|去年|今年|明年|后年|大后年)|(`+cyear+`)年)?的?(春天|春季|夏天|夏季|秋天|秋季|冬天|冬季)`, "春|夏|秋|冬", zhSeason),
		// This year's halves: 上半年, 下半年 (去年下半年 is zhYearRel's).
		zh(`(上|下)半年`, "半年", zhHalfYear),
		// A few days ago, said the other way round: 前几天, 前些天.
		zh(`前(几|些|两|一两|两三)(个)?(天|周|星期|礼拜|月|年)`, "前", zhFewDaysAgo),
		// In a few days: 过几天, 过两个礼拜 (REC-32).
		zh(`过(几|两|一两|两三)(个)?(天|周|星期|礼拜|月)`, "过", zhInFewDays),
		zh(`(上上|上|这|本|下下|下)?个?(?:周末)`, "周末", zhWeekend),
		// This month's or year's start or end: 月初, 年底.
		zh(`(月初|月中|月底|月末|年初|年中|年底|年末)`, "初|中|底|末", zhPartAlone),
		// The last few days: 这几天, 这两天.
		zh(`这(几|两|些)天`, "天", zhTheseDays),
		// The school holidays: 暑假 (July and August), 寒假 (mid-January to
		// February).
		zh(`(?:(大前年|前年|去年|今年|明年|后年)|(`+cyear+`)年)?的?(暑假|寒假)`, "假", zhVacation),
		zh(`(?:(`+cyear+`)年|(去年|今年|明年))?的?第?([一二三四1-4])季度`, "季度", zhQuarter),
		zh(`((?:19|20)?[0-9]0|[二三四五六七八九]十)年代`, "年代", zhDecade),
		// A day of the month alone: 3号, 十五日.
		zh(`(`+cnum+`{1,3})[日号]`, "日|号", zhDayAlone),
		// This time a year (or month) ago: 去年这个时候, 去年的今天.
		zh(`(前年|去年|上个月|上月)的?(这个时候|这时候|这会儿|这时|此时|今天|今日|这一天|这天)`, "年|月", zhThisTimeLast),
		zh(`(?:(大前年|前年|去年|今年|明年|后年)|(`+cyear+`)年)?的?(`+zhHolidayNames+`)`, "节|元旦|夜|国庆|圣诞|五一|过年|除夕|大年|正月|清明|端午|七夕|中秋", zhHoliday),
		zh(`(上上|上|这|本|下下|下)个?(周|星期|礼拜|月)`+cmod, "周|星期|礼拜|月", zhModUnit),
		// Counted units before or after a date (REC-29): 6月9日前两天, 2023年5月之后三个月.
		zh(`(`+cright+`)(?:的|之)?(前|后)(\d{1,3}|[一二两三四五六七八九十几]{1,3})(个)?(天|日|周|星期|礼拜|月|年)`, "前|后", zhCountRelativeTo),
		zh(`(\d{1,3}|[一二两三四五六七八九十几半]{1,3})(多)?(个)?(多)?(天|日|周|星期|礼拜|月|年)(多|半)?(前|以前|之前|后|以后|之后)`, "前|后", zhAgo),
		// How long a state has lasted dates its start (REC-32): 养了三年,
		// 已经两个月了, 结婚五年了.
		zh(`(已经|已|了)有?(\d{1,3}|[一二两三四五六七八九十几半]{1,3})(多)?(个)?(多)?(天|周|星期|礼拜|月|年)(多|半)?了?`, "已|了", zhLasted),
		zh(`(\d{1,3}|[一二两三四五六七八九十几半]{1,3})(多)?(个)?(多)?(天|周|星期|礼拜|月|年)(多|半)?了`, "了", zhLastedUntilNow),
		zh(`(?:最近|过去|近)(的)?(\d{1,3}|[一二两三四五六七八九十几]{1,3})(个)?(天|周|星期|月|年)`, "最近|过去|近", zhPast),
	}
}

// hasYear reports whether s has four digits that year matches.
func hasYear(s string) bool {
	for i := 0; i+4 <= len(s); i++ {
		if (s[i] == '1' && (s[i+1] == '8' || s[i+1] == '9') || s[i] == '2' && (s[i+1] == '0' || s[i+1] == '1')) &&
			isDigit(s[i+2]) && isDigit(s[i+3]) {
			return true
		}
	}
	return false
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// hasDigit reports whether s has an ASCII digit.
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func lower(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

var (
	isoRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$`) })
	wordRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-z]+|\d+`) })
	cYearRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(` + cyear + `)年`) })
	cMonRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(` + cnum + `{1,3})月`) })
	cDayRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(` + cnum + `{1,3})[日号]?$`) })
)

// parseAbs reads an absolute English date ("January 21, 2022", "21 Jan",
// "2022-01-21", "May").
func parseAbs(s string) date {
	s = lower(s)
	if m := isoRe().FindStringSubmatch(s); m != nil {
		y, _, _ := number(m[1])
		mo, _, _ := number(m[2])
		d, _, _ := number(m[3])
		return date{y, mo, d}
	}
	var p date
	for _, w := range wordRe().FindAllString(s, -1) {
		if mo, ok := monthNames[w]; ok && p.m == 0 {
			p.m = mo
			continue
		}
		if n, _, ok := number(w); ok && w[0] >= '0' && w[0] <= '9' {
			if len(w) == 4 {
				p.y = n
			} else if p.d == 0 {
				p.d = n
			}
			continue
		}
		// Any other word, such as the "st" of "21st" that wordRe splits
		// from its digits, says nothing of the date.
	}
	return p
}

// prepositions that make a lone month name a month ("in may", not "may I").
var monthCue = map[string]bool{"in": true, "during": true, "since": true, "of": true, "from": true, "until": true,
	"till": true, "by": true, "to": true, "and": true, "between": true, "through": true, "early": true,
	"late": true, "mid": true, "last": true, "next": true, "this": true, "before": true, "after": true, "around": true}

// wordBefore is the word just before byte offset i.
func wordBefore(text string, i int) string {
	f := strings.Fields(text[:i])
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(strings.Trim(f[len(f)-1], ",.;:!?()\"'-"))
}

// wordAfter is the word just after byte offset i.
func wordAfter(text string, i int) string {
	f := strings.Fields(text[i:])
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(strings.Trim(f[0], ",.;:!?()\"'"))
}

func enAbs(sub []string, text string, loc []int, c ctx) (Window, bool) {
	p := parseAbs(sub[1])
	if p.d == 0 && p.y == 0 { // a month name alone
		name := strings.TrimSpace(sub[1])
		l := strings.ToLower(name)
		if len(l) <= 3 && l != "may" {
			return Window{}, false // an abbreviation alone is a name (Jan) or a word (mar)
		}
		cue := monthCue[wordBefore(text, loc[2])] || strings.TrimSpace(text) == name
		if !cue && (l == "may" || name[0] < 'A' || name[0] > 'Z') {
			return Window{}, false // "may I", "march on"
		}
	}
	return p.window(c)
}

func enOrdinalDay(sub []string, text string, loc []int, c ctx) (Window, bool) {
	switch wordAfter(text, loc[1]) {
	case "", "and", "or", "at", "in", "we", "i", "you", "he", "she", "they", "when", "because", "so", "but", "was", "is", "will":
	default:
		return Window{}, false // "the 3rd floor", "the 15th century"
	}
	d, _, _ := number(sub[1])
	return date{d: d}.window(c)
}

func enYear(sub []string, text string, loc []int, c ctx) (Window, bool) {
	y, _, _ := number(sub[1])
	w := yearW(y, c.ref.Location())
	if strings.HasPrefix(lower(text[loc[0]:loc[1]]), "since ") && c.ref.After(w.Start) {
		w.End = c.ref
	}
	return w, true
}

// shortYear is the year a chat writes as '19: the one in the century
// that puts it at most ten years after ref's.
func shortYear(yy string, ref time.Time) int {
	n, _ := strconv.Atoi(yy)
	y := ref.Year()/100*100 + n
	if y > ref.Year()+10 {
		y -= 100
	}
	return y
}

// enShortYear is a year written with two digits after a preposition: "in
// '22", "back in '08", "since '15".
func enShortYear(sub []string, text string, loc []int, c ctx) (Window, bool) {
	w := yearW(shortYear(sub[1], c.ref), c.ref.Location())
	if strings.HasPrefix(lower(text[loc[0]:loc[1]]), "since ") && c.ref.After(w.Start) {
		w.End = c.ref
	}
	return w, true
}

// enSeasonShortYear is "the summer of '19".
func enSeasonShortYear(sub []string, text string, loc []int, c ctx) (Window, bool) {
	s := lower(sub[1])
	if s == "fall" {
		s = "autumn"
	}
	return seasonW(s, shortYear(sub[2], c.ref), c.ref.Location()), true
}

// yearAfter is the year said after a holiday's or a season's name, as
// two groups: "last", "this" or "next" year, or a count of years ago
// ("Christmas last year", "the summer two years ago").
const yearAfter = `\s+(last|this|next)\s+year|\s+(` + count + `)\s+years?\s+ago`

// yearSaidAfter is the year yearAfter's groups rel and ago say, and
// whether they say one.
func yearSaidAfter(rel, ago string, ref time.Time) (int, bool) {
	switch lower(rel) {
	case "last":
		return ref.Year() - 1, true
	case "this":
		return ref.Year(), true
	case "next":
		return ref.Year() + 1, true
	}
	if n, hi, ok := number(ago); ok && n == hi && n > 0 && n <= 200 {
		return ref.Year() - n, true
	}
	return 0, false
}

func enRange(sub []string, text string, loc []int, c ctx) (Window, bool) {
	a, b := parseAbs(sub[1]), parseAbs(sub[2])
	if len(strings.TrimSpace(sub[1])) == 4 && len(strings.TrimSpace(sub[2])) == 4 { // 2019-2021
		a, b = date{y: a.y}, date{y: b.y}
		if b.y < a.y {
			return Window{}, false
		}
	}
	if b.m == 0 && b.d != 0 { // "August 11-15": the day inherits the month
		b.m = a.m
	}
	if a.m == 0 && a.y == 0 && a.d != 0 { // "between 11 and 15 August"
		a.m = b.m
	}
	if a.y == 0 && b.y != 0 {
		a.y = b.y
		if a.m > b.m && b.m != 0 {
			a.y--
		}
	}
	if b.y == 0 && a.y != 0 {
		b.y = a.y
		if b.m < a.m && b.m != 0 {
			b.y++
		}
	}
	wa, ok := a.window(c)
	if !ok {
		return Window{}, false
	}
	if b.y == 0 { // neither has a year: the right end follows the left
		b.y = wa.Start.Year()
		if b.m < a.m {
			b.y++
		}
	}
	wb, ok := b.window(c)
	if !ok || wb.End.Before(wa.Start) || !wb.End.After(wa.Start) {
		return Window{}, false
	}
	return Window{wa.Start, wb.End}, true
}

func enDayWord(sub []string, text string, loc []int, c ctx) (Window, bool) {
	switch w := lower(sub[1]); w {
	case "the day before yesterday":
		return dayW(c.ref.AddDate(0, 0, -2)), true
	case "the day after tomorrow":
		return dayW(c.ref.AddDate(0, 0, 2)), true
	case "yesterday", "last night":
		return dayW(c.ref.AddDate(0, 0, -1)), true
	case "tomorrow":
		return dayW(c.ref.AddDate(0, 0, 1)), true
	default: // today, tonight, this morning
		return dayW(c.ref), true
	}
}

// inner resolves what a part or a week is taken of: a month, a year, "last
// year", "this month".
func resolveInner(s string, c ctx) (Window, bool) {
	l := lower(s)
	if k, u, ok := strings.Cut(l, " "); ok && (k == "last" || k == "this" || k == "next" || k == "the") {
		if n, _, isNum := number(u); isNum && len(u) == 4 {
			return yearW(n, c.ref.Location()), true
		}
		d := map[string]int{"last": -1, "this": 0, "next": 1, "the": 0}[k]
		return unitW(u, shift(u, c.ref, d)), true
	}
	p := parseAbs(l)
	if p.d != 0 {
		return Window{}, false
	}
	return p.window(c)
}

func enWeekOf(sub []string, text string, loc []int, c ctx) (Window, bool) {
	w, ok := resolveInner(sub[2], c)
	if !ok || w.Duration() > 32*24*time.Hour {
		return Window{}, false
	}
	n := map[string]int{"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5}[lower(sub[1])]
	if n == 0 { // last
		return Window{w.End.AddDate(0, 0, -7), w.End}, true
	}
	s := w.Start.AddDate(0, 0, 7*(n-1))
	if !s.Before(w.End) {
		return Window{}, false
	}
	e := s.AddDate(0, 0, 7)
	if e.After(w.End) {
		e = w.End
	}
	return Window{s, e}, true
}

func enPartOf(sub []string, text string, loc []int, c ctx) (Window, bool) {
	w, ok := resolveInner(sub[2], c)
	if !ok {
		return Window{}, false
	}
	switch lower(sub[1]) {
	case "beginning", "very beginning", "start", "early", "early part", "earlier part":
		return part(w, 0, 1, 3), true
	case "middle", "mid":
		return part(w, 1, 2, 3), true
	case "first half":
		return part(w, 0, 1, 2), true
	case "second half":
		return part(w, 1, 2, 2), true
	default: // end, late, latter part
		return part(w, 2, 3, 3), true
	}
}

func enEarlierThis(sub []string, text string, loc []int, c ctx) (Window, bool) {
	w := unitW(lower(sub[2]), c.ref)
	if p := lower(sub[1]); p == "earlier" || p == "so far" {
		return Window{w.Start, dayW(c.ref).End}, true
	}
	return Window{dayStart(c.ref), w.End}, true
}

// perUnit is a count of unit u in a unit the calendar functions know: a
// fortnight is two weeks.
func perUnit(u string, lo, hi int) (string, int, int) {
	if u = lower(u); u == "fortnight" {
		return "week", 2 * lo, 2 * hi
	}
	return u, lo, hi
}

func enAgo(sub []string, text string, loc []int, c ctx) (Window, bool) {
	lo, hi, ok := number(sub[1])
	if !ok || hi > 200 {
		return Window{}, false
	}
	switch lower(sub[3]) {
	case "so": // "a week or so ago": a little more, perhaps
		hi++
	case "":
	default: // "a month or two ago"
		_, n, _ := number(sub[3])
		if n <= hi {
			return Window{}, false
		}
		hi = n
	}
	u, lo, hi := perUnit(sub[2], lo, hi)
	return span(u, c.ref, lo, hi), true
}

// lastedAdv are the adverbs between "have" and what has lasted ("I've
// only had it", "we've now been"); lastedApprox the words that make a
// duration approximate ("for over two years").
const (
	lastedAdv    = `(?:not|never|already|just|now|both|all|each|only|really|finally|officially|actually|always|basically|pretty\s+much|kind\s+of|sort\s+of)`
	lastedApprox = `over|about|around|almost|nearly|roughly|more\s+than|close\s+to|just\s+over|just\s+under|at\s+least|well\s+over`
)

// enLasted is how long a state has lasted, said in the present perfect
// ("I've had them for 3 years", "we've been married for five years",
// "been doing this for two months"): when it began, so many units before
// the text was written (REC-32). A query's duration asks how long, not
// when: it names no time; nor does a past that is not the writer's
// present ("had been", "would have been").
func enLasted(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if c.query {
		return Window{}, false
	}
	lead := lower(text[loc[0]:loc[1]])
	if strings.HasPrefix(lead, "have") || strings.HasPrefix(lead, "has") || strings.HasPrefix(lead, "'") || strings.HasPrefix(lead, "’") {
		if v := lower(sub[1]); v != "" && !participle(v) {
			return Window{}, false // "I have a trip for two weeks": not a perfect
		} else if arranged[v] {
			return Window{}, false // "we've booked a cabin for three days": how long it will be
		}
	}
	switch wordBefore(text, loc[0]) {
	case "had", "would", "could", "should", "might", "must", "will", "may", "i'd", "we'd", "you'd", "he'd", "she'd", "they'd", "to":
		return Window{}, false
	}
	if w := wordBefore(text, loc[0]); strings.HasSuffix(w, "'ll") || strings.HasSuffix(w, "’ll") ||
		strings.HasPrefix(lead, "been") && (strings.HasSuffix(w, "'d") || strings.HasSuffix(w, "’d")) {
		return Window{}, false // "I'll have been", "I'd been"
	}
	return lastedStart(sub[3], sub[4], sub[5], c)
}

// enBeenSince is "it's been two months since…": it began then (REC-32).
func enBeenSince(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if c.query {
		return Window{}, false
	}
	return lastedStart(sub[1], sub[2], sub[3], c)
}

// enSinceCount is "since three weeks" (what has held for three weeks):
// it began then (REC-32). "since three weeks ago" is enAgo's time, opened
// by "since".
func enSinceCount(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if c.query {
		return Window{}, false
	}
	switch wordAfter(text, loc[1]) {
	case "ago", "back", "earlier", "before", "after", "later", "from":
		return Window{}, false
	}
	return lastedStart(sub[1], sub[2], sub[3], c)
}

// lastedStart is when what has lasted n units (approximately, when approx
// says so) up to c.ref began: the unit so many before, as "n units ago".
func lastedStart(approx, n, u string, c ctx) (Window, bool) {
	lo, hi, ok := number(n)
	if !ok || hi == 0 || hi > 200 {
		return Window{}, false
	}
	switch lower(approx) {
	case "over", "more than", "just over", "well over", "at least":
		hi++
	case "almost", "nearly", "close to", "just under":
		lo = max(lo-1, 1)
	case "about", "around", "roughly":
		lo, hi = max(lo-1, 1), hi+1
	}
	u, lo, hi = perUnit(u, lo, hi)
	return span(u, c.ref, lo, hi), true
}

// arranged are the participles of arranging what is to come: the
// duration after them is the arrangement's, not how long a state has
// lasted ("I've booked a room for two nights").
var arranged = map[string]bool{"booked": true, "planned": true, "scheduled": true, "reserved": true, "invited": true,
	"arranged": true, "ordered": true, "paid": true, "signed": true, "registered": true, "asked": true, "applied": true,
	"requested": true, "hired": true, "rented": true, "leased": true, "bought": true, "got": true}

// participle reports whether w may be a past participle after "have":
// one of the common irregular ones, or a word in -ed or -en.
func participle(w string) bool {
	switch w {
	case "been", "had", "got", "gotten", "known", "kept", "done", "gone", "run", "taught", "met", "held", "felt",
		"built", "sat", "stood", "spent", "won", "led", "worn", "lent", "dealt", "slept", "meant", "left", "grown", "sung":
		return true
	}
	return len(w) > 3 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "en"))
}

func enIn(sub []string, text string, loc []int, c ctx) (Window, bool) {
	lo, hi, ok := number(sub[1])
	if !ok || hi > 200 {
		return Window{}, false
	}
	if m := lower(text[loc[0]:loc[1]]); (strings.HasSuffix(m, "later") || strings.HasSuffix(m, "after that")) && !c.query && c.biasOf() == past {
		// "Two days later we got the results": later than a time the
		// story told, not than now.
		return Window{}, false
	}
	u, lo, hi := perUnit(sub[2], lo, hi)
	return span(u, c.ref, -hi, -lo), true
}

func enPast(sub []string, text string, loc []int, c ctx) (Window, bool) {
	_, hi, ok := number(sub[1])
	if !ok || hi > 200 || hi == 0 {
		return Window{}, false
	}
	end := dayW(c.ref).End
	u, _, hi := perUnit(sub[2], hi, hi)
	return Window{dayStart(back(u, c.ref, hi)), end}, true
}

func modOffset(m string) int {
	switch lower(m) {
	case "last", "past", "previous", "this past":
		return -1
	case "next", "coming", "this coming", "following":
		return 1
	}
	return 0
}

func enModWeekday(sub []string, text string, loc []int, c ctx) (Window, bool) {
	day := weekdays[lower(sub[2])]
	switch modOffset(sub[1]) {
	case -1:
		return lastWeekday(c.ref, day), true
	case 1:
		return nextWeekday(c.ref, day), true
	}
	return weekdayW(c.ref, day, 0), true
}

func enModUnit(sub []string, text string, loc []int, c ctx) (Window, bool) {
	u, mod := lower(sub[2]), lower(sub[1])
	off := modOffset(mod)
	switch u {
	case "spring", "summer", "autumn", "fall", "winter":
		return seasonNear(u, c, off), true
	}
	if u == "fortnight" { // the fourteen days before, or after, the day said
		switch {
		case off > 0:
			return Window{dayW(c.ref).End, dayW(c.ref).End.AddDate(0, 0, 14)}, true
		case off < 0:
			return Window{dayStart(c.ref.AddDate(0, 0, -14)), dayW(c.ref).End}, true
		}
		return Window{}, false
	}
	if mod == "past" && u != "weekend" { // "the past week": the last seven days
		return Window{dayStart(back(u, c.ref, 1)), dayW(c.ref).End}, true
	}
	if u == "week" && (mod == "last" || mod == "next") {
		// "Last week" said on a Friday may be the calendar week before or
		// the seven days before: the window holds both, up to the day it
		// was said (and "next week" from the day after), REC-29.
		w := unitW(u, shift(u, c.ref, off))
		if off < 0 {
			return Window{w.Start, dayStart(c.ref)}, true
		}
		return Window{dayW(c.ref).End, w.End}, true
	}
	return unitW(u, shift(u, c.ref, off)), true
}

// seasonNear is season s: off −1 the last one over before ref, 1 the next
// one to start after it, 0 the one of ref's year (the one ref is in).
func seasonNear(s string, c ctx, off int) Window {
	loc := c.ref.Location()
	var cands []Window
	for y := c.ref.Year() - 2; y <= c.ref.Year()+1; y++ {
		cands = append(cands, seasonW(s, y, loc))
	}
	switch off {
	case -1:
		for i := len(cands) - 1; i >= 0; i-- {
			if !cands[i].End.After(c.ref) {
				return cands[i]
			}
		}
	case 1:
		for _, w := range cands {
			if w.Start.After(c.ref) {
				return w
			}
		}
	}
	for _, w := range cands {
		if w.Contains(Window{c.ref, c.ref.Add(time.Nanosecond)}) {
			return w
		}
	}
	if s == "winter" && c.ref.Month() <= 2 {
		return seasonW(s, c.ref.Year()-1, loc)
	}
	return seasonW(s, c.ref.Year(), loc)
}

func enSeason(sub []string, text string, loc []int, c ctx) (Window, bool) {
	s := lower(sub[1])
	if s == "fall" {
		s = "autumn"
		pre := lower(text[loc[0]:loc[2]])
		if pre == "" && sub[2] == "" { // "fall" alone is a verb
			return Window{}, false
		}
	}
	if sub[2] != "" {
		y, _, _ := number(sub[2])
		return seasonW(s, y, c.ref.Location()), true
	}
	if y, ok := yearSaidAfter(sub[3], sub[4], c.ref); ok {
		return seasonW(s, y, c.ref.Location()), true
	}
	var cands []Window
	for y := c.ref.Year() - 1; y <= c.ref.Year()+1; y++ {
		cands = append(cands, seasonW(s, y, c.ref.Location()))
	}
	return choose(cands, c)
}

func enWeekday(sub []string, text string, loc []int, c ctx) (Window, bool) {
	day := weekdays[lower(sub[1])]
	if day == c.ref.Weekday() && !c.query && !rangeEnd(text, loc) {
		// On the day itself people say "today": its weekday names the
		// one a week before or after (REC-23). A range's end ("from
		// Monday to Wednesday") and a question's weekday keep the
		// nearest reading.
		if c.biasOf() == past {
			return lastWeekday(c.ref, day), true
		}
		return nextWeekday(c.ref, day), true
	}
	return choose([]Window{weekdayW(c.ref, day, -1), weekdayW(c.ref, day, 0), weekdayW(c.ref, day, 1)}, c)
}

// rangeEnd reports whether the time at loc in text is an end of a range:
// a word that joins one ("to", "until", "from", "between") is next to it.
func rangeEnd(text string, loc []int) bool {
	before := strings.Fields(strings.ToLower(text[:loc[0]]))
	after := strings.Fields(strings.ToLower(text[loc[1]:]))
	if n := len(before); n > 0 && (rangeJoins[before[n-1]] || before[n-1] == "from" || before[n-1] == "between") {
		return true
	}
	// "and" joins only after "between": "on Monday and we talked" is no range.
	return len(after) > 0 && rangeJoins[after[0]] && (after[0] != "and" || slices.Contains(before, "between"))
}

// zhRangeEnd is rangeEnd for Chinese: 从, 自 or a range's mark (到, 至, a
// dash) next to the time.
func zhRangeEnd(text string, loc []int) bool {
	before, after := strings.TrimSpace(text[:loc[0]]), strings.TrimSpace(text[loc[1]:])
	for _, m := range []string{"到", "至", "~", "～", "-", "—", "–"} {
		if strings.HasSuffix(before, m) || strings.HasPrefix(after, m) {
			return true
		}
	}
	return strings.HasSuffix(before, "从") || strings.HasSuffix(before, "自")
}

func enRelativeTo(sub []string, text string, loc []int, c ctx) (Window, bool) {
	var p Window
	var ok bool
	for _, e := range find(sub[3], c) {
		if e.Pos == 0 && e.EndPos == len(sub[3]) {
			p, ok = e.Window, true
		}
	}
	if !ok {
		return Window{}, false
	}
	return relativeTo(lower(sub[1]), lower(sub[2]) == "before", p), true
}

// relativeTo is the unit u (a day, a week, a weekday…) just before or
// after p.
func relativeTo(u string, before bool, p Window) Window {
	if u == "night" {
		u = "day"
	}
	if day, isDay := weekdays[u]; isDay {
		if before {
			return lastWeekday(p.Start, day)
		}
		return nextWeekday(p.End.AddDate(0, 0, -1), day)
	}
	switch u {
	case "day":
		if before {
			return dayW(p.Start.AddDate(0, 0, -1))
		}
		return dayW(p.End)
	case "week":
		if before {
			return Window{p.Start.AddDate(0, 0, -7), p.Start}
		}
		return Window{p.End, p.End.AddDate(0, 0, 7)}
	case "weekend":
		if before {
			w := weekendW(p.Start)
			if w.End.After(p.Start) {
				w = weekendW(p.Start.AddDate(0, 0, -7))
			}
			return w
		}
		w := weekendW(p.End)
		if w.Start.Before(p.End) {
			w = weekendW(p.End.AddDate(0, 0, 7))
		}
		return w
	}
	if before {
		return unitW(u, shift(u, p.Start, -1))
	}
	return unitW(u, shift(u, p.Start, 1))
}

// Chinese.

func cn(s string) int {
	n, _, _ := cnNumber(s)
	return n
}

// zhMod applies a suffix such as 初 (beginning), 底 (end), 上半年.
func zhMod(w Window, m string) Window {
	switch m {
	case "":
		return w
	case "年初", "月初", "初", "上旬":
		return part(w, 0, 1, 3)
	case "年中", "月中", "中旬":
		return part(w, 1, 2, 3)
	case "上半年":
		return part(w, 0, 1, 2)
	case "下半年":
		return part(w, 1, 2, 2)
	}
	return part(w, 2, 3, 3) // 底, 末, 下旬
}

// zhParse reads a Chinese absolute date: 2022年, 1月, 21日, or a bare day.
func zhParse(s string) date {
	var p date
	if m := cYearRe().FindStringSubmatch(s); m != nil {
		p.y = cn(m[1])
		s = s[len(m[0]):]
	}
	if m := cMonRe().FindStringSubmatch(s); m != nil {
		p.m = cn(m[1])
		s = s[strings.Index(s, m[0])+len(m[0]):]
	}
	if m := cDayRe().FindStringSubmatch(s); m != nil && s != "" {
		p.d = cn(m[1])
	}
	return p
}

func zhAbs(sub []string, text string, loc []int, c ctx) (Window, bool) {
	p := date{y: cn(sub[1]), m: cn(sub[2]), d: cn(sub[3])}
	if sub[2] == "" && sub[3] == "" && strings.HasPrefix(sub[4], "月") || sub[2] != "" && strings.HasPrefix(sub[4], "年") {
		return Window{}, false // 2022年月初: no such thing
	}
	w, ok := p.window(c)
	if !ok || (sub[4] != "" && p.d != 0) {
		return w, ok && sub[4] == ""
	}
	return zhMod(w, sub[4]), true
}

func zhYearRel(sub []string, text string, loc []int, c ctx) (Window, bool) {
	p := date{y: c.ref.Year() + zhYearOff[sub[1]], m: cn(sub[2]), d: cn(sub[3])}
	w, ok := p.window(c)
	if !ok || (sub[4] != "" && p.d != 0) {
		return w, ok && sub[4] == ""
	}
	return zhMod(w, sub[4]), true
}

func zhMonthDay(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if loc[0] > 0 {
		prev := text[:loc[0]]
		if strings.HasSuffix(prev, "个") || strings.HasSuffix(prev, "年") || strings.HasSuffix(prev, "第") {
			return Window{}, false
		}
	}
	p := date{m: cn(sub[1]), d: cn(sub[2])}
	if p.m < 1 || p.m > 12 {
		return Window{}, false
	}
	w, ok := p.window(c)
	if !ok || (sub[3] != "" && p.d != 0) {
		return w, ok && sub[3] == ""
	}
	return zhMod(w, sub[3]), true
}

func zhRange(sub []string, text string, loc []int, c ctx) (Window, bool) {
	a, b := zhParse(sub[1]), zhParse(sub[2])
	if !strings.ContainsAny(sub[2], "年月日号") && a.d == 0 {
		return Window{}, false // "3月-5": no unit on the right
	}
	if b.y == 0 && b.m == 0 && a.m != 0 {
		b.m = a.m
	}
	if a.y == 0 && b.y != 0 {
		a.y = b.y
	}
	if b.y == 0 && a.y != 0 {
		b.y = a.y
		if b.m < a.m {
			b.y++
		}
	}
	if a.d == 0 && a.m != 0 && b.d != 0 && !strings.ContainsAny(sub[2], "月") {
		return Window{}, false
	}
	wa, ok := a.window(c)
	if !ok {
		return Window{}, false
	}
	if b.y == 0 {
		b.y = wa.Start.Year()
		if b.m < a.m {
			b.y++
		}
	}
	wb, ok := b.window(c)
	if !ok || !wb.End.After(wa.Start) {
		return Window{}, false
	}
	return Window{wa.Start, wb.End}, true
}

func zhDayWord(sub []string, text string, loc []int, c ctx) (Window, bool) {
	off := map[string]int{"大前天": -3, "前天": -2, "前儿个": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "昨夜": -1, "昨儿": -1, "昨儿个": -1,
		"今天": 0, "今日": 0, "今晚": 0, "今夜": 0, "今早": 0, "今儿": 0, "今儿个": 0,
		"明天": 1, "明日": 1, "明早": 1, "明晚": 1, "明儿": 1, "明儿个": 1, "后天": 2, "后儿个": 2, "大后天": 3}[sub[1]]
	return dayW(c.ref.AddDate(0, 0, off)), true
}

func zhOffset(m string) (int, bool) {
	switch m {
	case "上上":
		return -2, true
	case "上":
		return -1, true
	case "这", "本":
		return 0, true
	case "下":
		return 1, true
	case "下下":
		return 2, true
	}
	return 0, false
}

func zhWeekday(sub []string, text string, loc []int, c ctx) (Window, bool) {
	day := weekdays[sub[3]]
	off, ok := zhOffset(sub[1])
	if !ok && countedBefore(text, loc[0]) {
		return Window{}, false // 一周三次, 每周五: how often, not when
	}
	if !ok && day == c.ref.Weekday() && !c.query && !zhRangeEnd(text, loc) {
		// 周五 alone, written on a Friday: another week's, as enWeekday.
		if c.biasOf() == past {
			return lastWeekday(c.ref, day), true
		}
		return nextWeekday(c.ref, day), true
	}
	if !ok { // 周五 alone
		return choose([]Window{weekdayW(c.ref, day, -1), weekdayW(c.ref, day, 0), weekdayW(c.ref, day, 1)}, c)
	}
	return weekdayW(c.ref, day, off), true
}

// countedBefore reports whether the text before i ends in a number or
// 每 (every): 一周, 两个星期, 每周.
func countedBefore(text string, i int) bool {
	prev := strings.TrimSuffix(text[:i], "个")
	r, _ := utf8.DecodeLastRuneInString(prev)
	return r != utf8.RuneError && (strings.ContainsRune("0123456789〇零一二两三四五六七八九十几半每", r))
}

// zhWeekdayRange is a span of weekdays of one week, the first resolved as
// zhWeekday does: 周一到周三, 下周二至周五.
func zhWeekdayRange(sub []string, text string, loc []int, c ctx) (Window, bool) {
	from, ok := zhWeekday(sub[:4], text, loc, c)
	if !ok {
		return Window{}, false
	}
	a, b := weekdays[sub[3]], weekdays[sub[4]]
	da, db := (int(a)+6)%7, (int(b)+6)%7 // Monday first
	if db <= da {
		return Window{}, false
	}
	return Window{from.Start, from.Start.AddDate(0, 0, db-da+1)}, true
}

// zhSeason is a season of the year named, or the nearest (as enSeason).
func zhSeason(sub []string, text string, loc []int, c ctx) (Window, bool) {
	s := map[string]string{"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}[sub[3][:3]]
	switch {
	case sub[1] != "":
		return seasonW(s, c.ref.Year()+zhYearOff[sub[1]], c.ref.Location()), true
	case sub[2] != "":
		return seasonW(s, cn(sub[2]), c.ref.Location()), true
	}
	var cands []Window
	for y := c.ref.Year() - 1; y <= c.ref.Year()+1; y++ {
		cands = append(cands, seasonW(s, y, c.ref.Location()))
	}
	return choose(cands, c)
}

// zhHalfYear is a half of the reference's year.
func zhHalfYear(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if strings.HasSuffix(text[:loc[0]], "年") {
		return Window{}, false // a year's, zhAbs' or zhYearRel's
	}
	return zhMod(yearW(c.ref.Year(), c.ref.Location()), sub[1]+"半年"), true
}

// zhFewDaysAgo is 前几天, 前两周, 前几个月 as 几天前 reads.
func zhFewDaysAgo(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if loc[0] > 0 {
		r, _ := utf8.DecodeLastRuneInString(text[:loc[0]])
		if strings.ContainsRune("日号月年天周", r) {
			return Window{}, false // 6月9日前几天: zhCountRelativeTo's
		}
	}
	n := sub[1]
	if n == "些" {
		n = "几"
	}
	return zhAgo([]string{"", n, "", "个", "", sub[3], "", "前"}, text, loc, c)
}

// zhInFewDays is 过几天, 过两周 as 几天后 reads; not 超过两天, 经过几天,
// 度过几天 (more than, after, spent: how long, not when) nor 不过 (but).
func zhInFewDays(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if r, _ := utf8.DecodeLastRuneInString(text[:loc[0]]); loc[0] > 0 && strings.ContainsRune("不经超度越通路跨错熬挺撑", r) {
		return Window{}, false
	}
	return zhAgo([]string{"", sub[1], "", "个", "", sub[3], "", "后"}, text, loc, c)
}

func zhWeekend(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if strings.HasSuffix(text[:loc[0]], "哪") {
		return Window{}, false // 哪个周末: which one, asked
	}
	off, ok := zhOffset(sub[1])
	if !ok {
		return choose([]Window{weekendW(c.ref.AddDate(0, 0, -7)), weekendW(c.ref), weekendW(c.ref.AddDate(0, 0, 7))}, c)
	}
	return weekendW(c.ref.AddDate(0, 0, 7*off)), true
}

func zhModUnit(sub []string, text string, loc []int, c ctx) (Window, bool) {
	off, _ := zhOffset(sub[1])
	u := "week"
	if sub[2] == "月" {
		u = "month"
	}
	w := unitW(u, shift(u, c.ref, off))
	if sub[3] != "" {
		if u == "week" || strings.HasPrefix(sub[3], "年") || strings.HasSuffix(sub[3], "半年") {
			return Window{}, false
		}
		w = zhMod(w, sub[3])
	}
	return w, true
}

// pointIn is the window of s when one expression covers all of it.
func pointIn(s string, c ctx) (Window, bool) {
	for _, e := range find(s, c) {
		if e.Pos == 0 && e.EndPos == len(s) {
			return e.Window, true
		}
	}
	return Window{}, false
}

// countFrom is p moved lo to hi units back (before) or on (after), as
// precise as p: two days before 9 June is 7 June, a year after July 2022
// July 2023, a few days before 20 May 16 to 18 May (REC-29).
func countFrom(p Window, unit string, lo, hi int, before bool) Window {
	if before {
		return Window{addUnits(unit, p.Start, -hi), addUnits(unit, p.End, -lo)}
	}
	return Window{addUnits(unit, p.Start, lo), addUnits(unit, p.End, hi)}
}

// addUnits is t moved n units (negative: back), calendar units kept whole.
func addUnits(unit string, t time.Time, n int) time.Time {
	switch unit {
	case "week", "weekend":
		return t.AddDate(0, 0, 7*n)
	case "month":
		return t.AddDate(0, n, 0)
	case "year":
		return t.AddDate(n, 0, 0)
	case "decade":
		return t.AddDate(10*n, 0, 0)
	}
	return t.AddDate(0, 0, n)
}

func enCountRelativeTo(sub []string, text string, loc []int, c ctx) (Window, bool) {
	lo, hi, ok := number(sub[1])
	if !ok || hi > 200 || hi == 0 {
		return Window{}, false
	}
	p, ok := pointIn(sub[4], c)
	if !ok {
		return Window{}, false
	}
	u, lo, hi := perUnit(sub[2], lo, hi)
	return countFrom(p, u, lo, hi, lower(sub[3]) == "before"), true
}

func zhCountRelativeTo(sub []string, text string, loc []int, c ctx) (Window, bool) {
	lo, hi, ok := cnNumber(sub[3])
	if !ok || hi > 200 || hi == 0 {
		return Window{}, false
	}
	p, ok := pointIn(sub[1], c)
	if !ok {
		return Window{}, false
	}
	return countFrom(p, zhUnits[sub[5]], lo, hi, sub[2] == "前"), true
}

var zhUnits = map[string]string{"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}

// zhAgo is a count of units before or after the reference: 三天前,
// 两个多月前 (two months and more), 十多天前 (ten-odd days), 一年半前.
func zhAgo(sub []string, text string, loc []int, c ctx) (Window, bool) {
	count, moreA, ge, moreB, unit, after, dir := sub[1], sub[2], sub[3], sub[4], sub[5], sub[6], sub[7]
	u := zhUnits[unit]
	if u == "month" && ge == "" && count != "半" && moreA == "" && moreB == "" && after == "" {
		return Window{}, false // 三月前: before March, not three months ago
	}
	if unit == "日" && strings.HasSuffix(text[:loc[0]], "月") {
		return Window{}, false // 3月5日之后: after the 5th of March, not in five days
	}
	if r, _ := utf8.DecodeLastRuneInString(text[:loc[0]]); loc[0] > 0 && strings.ContainsRune("0123456789０１２３４５６７８９〇零一二两三四五六七八九十", r) {
		return Window{}, false // 2019年以后: a year's, not nineteen years on
	}
	lo, hi := 0, 0
	if count == "半" {
		if u != "year" && u != "month" || after == "半" {
			return Window{}, false
		}
		if u == "year" {
			u, lo, hi = "month", 6, 6
		} else {
			u, lo, hi = "day", 15, 15
		}
	} else {
		var ok bool
		if lo, hi, ok = cnNumber(count); !ok || hi > 200 {
			return Window{}, false
		}
	}
	switch {
	case after == "半": // a unit and a half more: so many days, a tenth either side
		if lo != hi {
			return Window{}, false
		}
		days := (float64(lo) + 0.5) * map[string]float64{"day": 1, "week": 7, "month": 30.44, "year": 365.25}[u]
		u, lo, hi = "day", int(days*0.9+0.5), int(days*1.1+0.5)
	case moreA != "" && lo == hi && lo%10 == 0: // 十多天: eleven to nineteen
		lo, hi = lo+1, lo+9
	case moreA != "" || moreB != "" || after == "多": // 两个多月: two and some
		hi++
	}
	if strings.HasSuffix(dir, "后") {
		return span(u, c.ref, -hi, -lo), true
	}
	return span(u, c.ref, lo, hi), true
}

// zhLasted is how long a state has lasted: 养了三年 (kept them three
// years), 已经两个月了 (two months already): when it began (REC-32), as
// 三年前 would say. A query's duration asks how long, not when.
func zhLasted(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if c.query {
		return Window{}, false
	}
	if sub[1] == "了" {
		if r, _ := utf8.DecodeLastRuneInString(text[:loc[0]]); !unicode.Is(unicode.Han, r) {
			return Window{}, false // 了 after a verb: 养了, 学了
		}
	}
	return zhAgo([]string{sub[0], sub[2], sub[3], sub[4], sub[5], sub[6], sub[7], "前"}, text, loc, c)
}

// zhLastedUntilNow is a duration a clause ends on with 了: 结婚五年了 (five
// years married), 来这里两个多月了: it began then (REC-32).
func zhLastedUntilNow(sub []string, text string, loc []int, c ctx) (Window, bool) {
	if c.query {
		return Window{}, false
	}
	if strings.HasPrefix(text[loc[1]:], "解") {
		return Window{}, false // 三年了解: 了解 (to know), not 了
	}
	return zhAgo([]string{sub[0], sub[1], sub[2], sub[3], sub[4], sub[5], sub[6], "前"}, text, loc, c)
}

func zhPast(sub []string, text string, loc []int, c ctx) (Window, bool) {
	u := zhUnits[sub[4]]
	_, hi, ok := cnNumber(sub[2])
	if !ok || hi > 200 || hi == 0 {
		return Window{}, false
	}
	return Window{dayStart(back(u, c.ref, hi)), dayW(c.ref).End}, true
}

// tense guesses whether a text speaks of the future, the past or neither,
// to read its incomplete dates ("in May", "on Friday").
func tense(text string) bias {
	r := tenseRes()
	fut, pst := r[0].MatchString(text), false
	for _, w := range r[1].FindAllString(text, -1) {
		// "I'm so excited for Saturday": a feeling now, not a past.
		if !feelings[strings.ToLower(w)] {
			pst = true
			break
		}
	}
	switch {
	case fut && !pst:
		return future
	case pst && !fut:
		return past
	}
	return nearest
}

// feelings are the words in -ed that say how one feels, as often now
// as then: alone they tell no past.
var feelings = map[string]bool{
	"excited": true, "tired": true, "interested": true, "worried": true, "scared": true,
	"bored": true, "stressed": true, "thrilled": true, "pleased": true, "overwhelmed": true,
	"exhausted": true, "relieved": true, "pumped": true, "stoked": true, "psyched": true,
}

var tenseRes = sync.OnceValue(func() [2]*regexp.Regexp {
	return [2]*regexp.Regexp{
		// Plans are also proposed and asked about with no future tense:
		// "Let's…", "How about…", "Are you free…", "See you…".
		regexp.MustCompile(`(?i)\b(will|won't|shall|gonna|going\s+to|plan(?:s|ning)?\s+to|hope\s+to|want\s+to|wanna|upcoming|next|tomorrow|soon|let's|let\s+us|how\s+about|what\s+about|are\s+you\s+(?:free|around|busy|available|coming|up\s+for)|sound\s+good|see\s+you|can't\s+wait|cannot\s+wait|looking\s+forward|would\s+you\s+like|should\s+we|about\s+to|(?:excited|nervous|ready)\s+for|plans?\s+for|getting\s+married|(?:am|are|is|'m|'re|'s)\s+(?:going|coming|meeting|visiting|flying|driving|leaving|heading|hosting)\b)\b|'ll\b|明天|明儿|明晚|明年|下周|下个月|将|打算|准备|计划`),
		// Regular pasts and the irregular verbs people write most.
		regexp.MustCompile(`(?i)\b(was|were|did|had|went|ago|yesterday|last|been|[a-z]{3,}ed|met|saw|got|took|made|came|told|said|felt|found|gave|bought|brought|thought|ran|left|ate|wrote|began|won|lost|spent|sent|kept|heard|paid|sold|held|became|caught|drove|flew|fell|forgot|knew|wore|sang|swam|sat|stood|slept|threw|woke|rode|broke|chose|drank|spoke|taught|fought|built|grew|hung|meant|led|shook|stole|tore)\b|昨天|昨儿|昨晚|去年|上周|上个月|以前|之前|了|过`),
	}
})

// asksWhen reports whether a query asks for a time, or for how long ago
// or how long between two events ("how many days ago…", "how many weeks
// passed between…", "多少天前…"), which dated memories answer; not how
// long something has lasted ("how long has she been painting?"), which
// a memory says without a date ("for seven years").
func asksWhen(text string) bool { return whenRe().MatchString(text) }

var whenRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bbefore\s+or\s+after\b|\bafter\s+or\s+before\b|^\W*(?:and\s+|so\s+|but\s+)?(?:when\b|whens\b|(?:by|until|till|since)\s+when\b|at\s+what\s+point\b|how\s+recently\b|since\s+what\s+(?:date|day|year|month|time)\b|what(?:'s|’s|\s+is|\s+was|\s+were)\s+the\s+(?:date|day|time|year|month)\b|what\s+(?:date|day|time|year|month|week|weekend|season)\b|which\s+(?:date|day|year|month|week|weekend|season)\b|how\s+long\s+ago\b|how\s+(?:many|much)\s+(?:days|weeks|months|years|hours|nights|time)\s+(?:ago|passed|elapsed|went\s+by|between|since|before|after|later|earlier|(?:has|had|have)\s+(?:passed|elapsed|gone\s+by)|(?:has|had|is|was)\s+it\s+been)\b|how\s+long\s+(?:since|(?:is|was|has|had)\s+it\s+been\s+since|after|before)\b|since\s+when\b|at\s+what\s+time\b|(?:in|during)\s+(?:what|which)\s+(?:year|month|week|season)\b|(?:on|over)\s+(?:what|which)\s+(?:date|day|weekend)\b)|(?:什么时候|什么时间|啥时候|啥时|何时|哪天|哪一天|哪年|哪一年|几号|几月|几时|几点|哪个星期|哪一周|哪周|哪个周末|多久以前|多久之前|多久前|多长时间以前|多长时间之前|多少(?:天|年|个?月|周|个?星期|个?礼拜)(?:前|以前|之前)|哪个月|什么日子)`)
})

// Beside is the unit u (day, night, week, weekend, month) just before or
// after w: "the day after" an event's time.
func Beside(u string, before bool, w Window) Window { return relativeTo(u, before, w) }
