// Package security classifies memory text by sensitivity and masks it
// (SEC-2 … SEC-7). Classification is rules only — keywords and regular
// expressions for e-mail addresses, phone numbers, national IDs, payment
// cards, API keys and tokens, and passwords — so it runs on every write
// without a model. Masking is the one masker every channel uses: MCP, the
// prompt sections built for a model, and logs.
package security

import (
	"context"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// Levels, least sensitive first.
const (
	Public       = mnemo.SecurityPublic
	Internal     = mnemo.SecurityInternal
	Confidential = mnemo.SecurityConfidential
	Restricted   = mnemo.SecurityRestricted
)

// Rank orders levels: public 0 … restricted 3; -1 for an unknown level.
func Rank(level string) int { return mnemo.LevelRank(level) }

// A rule finds one kind of sensitive text.
type rule struct {
	name  string
	level string
	re    *regexp.Regexp
	// valid, when set, checks a match further (a checksum), so that any
	// long number is not taken for a card.
	valid func(string) bool
	// may, when set, reports whether a text, and the text in lower case,
	// can hold a match at all: a text without a digit holds no number, one
	// without '@' no e-mail address. Most memories hold none, and the
	// rules run on every write (PERF-1).
	may func(s, lower string) bool
	// digitEnd: the span is not followed by a digit. RE2 has no
	// lookahead, and a pattern that took the character after the span
	// would take it from the next match, which may need it before its
	// own span ("13812345678,13912345678": two phones).
	digitEnd bool
}

// hasAny returns a may of texts that have a byte of chars.
func hasAny(chars string) func(s, lower string) bool {
	return func(s, _ string) bool { return strings.ContainsAny(s, chars) }
}

// digits are what a rule of numbers needs (\d is ASCII in RE2).
var digits = hasAny("0123456789")

// mayFold returns a may of texts that can hold one of words (in lower
// case) under a case-insensitive rule. Beyond ASCII, case folding pairs
// more than strings.ToLower does ('ſ' is an s to (?i)), so such a text
// may always match.
func mayFold(words ...string) func(s, lower string) bool {
	return func(_, lower string) bool {
		for i := 0; i < len(lower); i++ {
			if lower[i] >= utf8.RuneSelf {
				return true
			}
		}
		for _, w := range words {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
}

var (
	mayBearer   = mayFold("bearer")
	mayPassword = mayFold("pass", "pwd", "pin")
)

var rules = []rule{
	{name: "national_id", level: Restricted, re: regexp.MustCompile(`\b\d{3}-\d{2}-\d{4}\b`), may: digits}, // US SSN
	{name: "national_id", level: Restricted, re: regexp.MustCompile(`(?:^|[^\d])(\d{17}[\dXx])`), valid: chineseID, may: digits, digitEnd: true},
	{name: "card", level: Restricted, re: regexp.MustCompile(`\b(?:\d[ -]?){12,18}\d\b`), valid: luhn, may: digits},
	{name: "api_key", level: Restricted, re: regexp.MustCompile(`\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}\b|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}\b|\bAIza[0-9A-Za-z_-]{35}\b`), may: func(s, _ string) bool {
		return strings.ContainsAny(s, "-_") || strings.Contains(s, "AKIA") || strings.Contains(s, "AIza")
	}},
	{name: "token", level: Restricted, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}|(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*`), may: func(s, lower string) bool { return strings.Contains(s, "eyJ") || mayBearer(s, lower) }},
	{name: "private_key", level: Restricted, re: regexp.MustCompile(`-----BEGIN (?:RSA |EC |OPENSSH |DSA )?PRIVATE KEY-----`), may: hasAny("-")},
	{name: "password", level: Restricted, re: regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|passcode|pin)\b\s*(?:is|[:=：])\s*\S+|(?:密码|口令)\s*(?:是|为|[:=：])\s*\S+`), may: func(s, lower string) bool {
		return strings.Contains(s, "密码") || strings.Contains(s, "口令") || mayPassword(s, lower)
	}},
	{name: "email", level: Confidential, re: regexp.MustCompile(`(?i)\b[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}\b`), may: hasAny("@")},
	// Phones: with a country code, with an area code in parentheses, in
	// the dashed or dotted 3-3-4 form, or a mainland China mobile. Groups
	// of four digits alone are not phones (they are cards, orders, years).
	{name: "phone", level: Confidential, re: regexp.MustCompile(`\+\d{1,3}[\s.-]?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]?\d{2,4}){1,3}\b|\(\d{3}\)\s?\d{3}[\s.-]\d{4}\b|\b\d{3}[.-]\d{3}[.-]\d{4}\b`), may: digits},
	{name: "phone", level: Confidential, re: regexp.MustCompile(`(?:^|[^\d])(1[3-9]\d{9})`), may: digits, digitEnd: true}, // mainland China mobile
}

// keywords mark text as confidential or restricted by what it says of
// itself.
var keywords = []struct {
	level string
	words []string
}{
	{Restricted, []string{"top secret", "绝密", "do not share", "不得外传"}},
	{Confidential, []string{"confidential", "internal only", "proprietary", "nda", "salary", "medical", "diagnosis", "机密", "保密", "内部资料", "工资", "病历"}},
}

// Finding is one reason a text was classified as it was.
type Finding struct {
	Rule  string `json:"rule"`  // email, phone, national_id, card, api_key, token, private_key, password, keyword
	Level string `json:"level"` // the level it calls for
}

// Classify returns the level text calls for — the highest of its findings,
// or def when it has none — and the findings, one per rule.
func Classify(text, def string) (string, []Finding) {
	level := def
	var found []Finding
	add := func(name, l string) {
		if !slices.ContainsFunc(found, func(f Finding) bool { return f.Rule == name }) {
			found = append(found, Finding{Rule: name, Level: l})
		}
		if Rank(l) > Rank(level) {
			level = l
		}
	}
	lower := strings.ToLower(text)
	for _, r := range rules {
		if r.may != nil && !r.may(text, lower) {
			continue
		}
		if len(r.spans(text, 8, true)) > 0 {
			add(r.name, r.level)
		}
	}
	for _, k := range keywords {
		for _, w := range k.words {
			if containsWord(lower, w) {
				add("keyword", k.level)
				break
			}
		}
	}
	return level, found
}

// containsWord reports whether w occurs in s, on word boundaries for ASCII
// words ("nda" is not in "calendar").
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if w[0] >= 0x80 || (j == 0 || !isWordByte(s[j-1])) && (end == len(s) || !isWordByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// luhn checks a card number's check digit (spaces and dashes ignored).
func luhn(s string) bool {
	var digits []int
	for _, r := range s {
		if r >= '0' && r <= '9' {
			digits = append(digits, int(r-'0'))
		}
	}
	if len(digits) < 13 || len(digits) > 19 {
		return false
	}
	sum := 0
	for i := range digits {
		d := digits[len(digits)-1-i]
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// chineseID checks the check character of an 18-character resident ID
// (GB 11643).
func chineseID(s string) bool {
	if len(s) != 18 {
		return false
	}
	weights := []int{7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2}
	sum := 0
	for i, w := range weights {
		sum += int(s[i]-'0') * w
	}
	return "10X98765432"[sum%11] == strings.ToUpper(s[17:])[0]
}

// Redact replaces every sensitive span of s that a rule finds by its
// rule's name, for text that must keep its shape: log lines, traces.
func Redact(s string) string {
	lower := strings.ToLower(s)
	for _, r := range rules {
		if r.may != nil && !r.may(s, lower) {
			continue
		}
		s = r.redact(s)
	}
	return s
}

// redact replaces the spans of s that r finds by r's name.
func (r rule) redact(s string) string {
	spans := r.spans(s, -1, false)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString("[" + strings.ToUpper(r.name) + "]")
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// spans returns where r finds sensitive text in s, among its first n
// matches (all for n < 0), and only the first with first set. A rule with
// a group matches the characters around the number too: the span is the
// group. It is read from the match in s, never by matching the match again
// on its own, where the boundaries around it (\b, ^, the characters
// before and after) are not those it had in s.
func (r rule) spans(s string, n int, first bool) [][2]int {
	var out [][2]int
	for _, m := range r.re.FindAllStringSubmatchIndex(s, n) {
		lo, hi := m[len(m)-2], m[len(m)-1]
		if lo < 0 { // a group that took no part: the whole match
			lo, hi = m[0], m[1]
		}
		if r.digitEnd && hi < len(s) && '0' <= s[hi] && s[hi] <= '9' {
			continue
		}
		if r.valid != nil && !r.valid(s[lo:hi]) {
			continue
		}
		out = append(out, [2]int{lo, hi})
		if first {
			break
		}
	}
	return out
}

// LogHandler wraps h so that no log line carries what Redact finds: the
// message and every string attribute are redacted, groups included.
func LogHandler(h slog.Handler) slog.Handler { return redactHandler{h} }

type redactHandler struct{ h slog.Handler }

func (r redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	for i := range as {
		as[i] = redactAttr(as[i])
	}
	return redactHandler{r.h.WithAttrs(as)}
}

func (r redactHandler) WithGroup(name string) slog.Handler { return redactHandler{r.h.WithGroup(name)} }

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Redact(v.String()))
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i := range g {
			out[i] = redactAttr(g[i])
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, Redact(err.Error()))
		}
	}
	return a
}

// ClassifyText returns the level text calls for by the classifier of
// memories (SEC-6), at least def: every record that holds text is
// classified by it (SEC-11).
func ClassifyText(text, def string) string {
	l, _ := Classify(text, def)
	return l
}

// ClassifyEvent sets the level of an event stored without one (SEC-11)
// from what it holds: its type, source, data and metadata, by the
// classifier of memories; a level it has (its writer's, or stored) is kept.
func ClassifyEvent(e *mnemo.Event) {
	if e.SecurityLevel != "" {
		return
	}
	text := e.Type + "\n" + e.Source + "\n" + string(e.Data) + "\n" + string(e.Metadata)
	e.SecurityLevel = ClassifyText(text, mnemo.SecurityInternal)
}

// ClassifyMemory sets the security level of a memory written without one
// from what its text contains (SEC-6): e-mail addresses and phone numbers
// make it confidential; IDs, cards, keys, tokens and passwords restricted.
// A level the writer gives is kept as it is.
func ClassifyMemory(m *mnemo.Memory, given string) {
	if given != "" {
		return
	}
	text := m.Content + "\n" + m.Summary
	if len(m.Data) > 0 {
		text += "\n" + string(m.Data)
	}
	m.SecurityLevel, _ = Classify(text, m.SecurityLevel)
}
