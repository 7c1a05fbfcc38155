package locomo

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// typed is what people type for words in a chat, as InShorthand writes
// them: the commonest shorthand, not every form there is.
var typed = map[string]string{
	"tomorrow": "tmrw", "yesterday": "yday", "tonight": "tonite", "weekend": "wknd", "weekends": "wknds",
	"birthday": "bday", "birthdays": "bdays", "pictures": "pics", "picture": "pic", "photos": "pics", "photo": "pic",
	"people": "ppl", "please": "pls", "thanks": "thx", "because": "bc", "you": "u", "your": "ur",
	"boyfriend": "bf", "girlfriend": "gf", "favorite": "fav", "favourite": "fave", "going to": "gonna",
	"want to": "wanna", "congratulations": "congrats", "conversation": "convo", "video": "vid", "videos": "vids",
	"vacation": "vacay", "next": "nxt", "week": "wk", "weeks": "wks", "years": "yrs", "year": "yr", "hours": "hrs",
	"before": "b4", "later": "l8r", "something": "smth", "about": "abt", "probably": "prolly", "message": "msg",
	"by the way": "btw", "to be honest": "tbh", "oh my god": "omg", "right now": "rn", "i don't know": "idk",
	"kind of": "kinda", "husband": "hubby", "university": "uni", "appointment": "appt", "tickets": "tix",
	"though": "tho",
}

// typedWords matches the words of typed, the longest first.
var typedWords = sync.OnceValue(func() *regexp.Regexp {
	keys := slices.Collect(func(yield func(string) bool) {
		for k := range typed {
			if !yield(k) {
				return
			}
		}
	})
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	for i, k := range keys {
		keys[i] = regexp.QuoteMeta(k)
	}
	return regexp.MustCompile(`(?i)\b(?:` + strings.Join(keys, "|") + `)\b`)
})

// InShorthand returns convs with each turn's words typed as people type
// them in a chat ("tomorrow" is "tmrw", "you" "u", "going to" "gonna"):
// what a search meets in real chats, asked by questions written out in
// full. A shared photo's caption, which a model wrote, is left as it is.
func InShorthand(convs []Conversation) []Conversation {
	re := typedWords()
	out := make([]Conversation, len(convs))
	for i, c := range convs {
		c.Sessions = slices.Clone(c.Sessions)
		for j, s := range c.Sessions {
			turns := slices.Clone(s.Turns)
			for k := range turns {
				turns[k].Text = re.ReplaceAllStringFunc(turns[k].Text, func(w string) string { return typed[strings.ToLower(w)] })
			}
			c.Sessions[j].Turns = turns
		}
		out[i] = c
	}
	return out
}
