// Package locomo evaluates recall on the LoCoMo benchmark (Maharana et al.,
// ACL 2024): every dialogue turn is a memory, every question of categories
// 1–4 is a query, and a hit is an evidence turn among the top k results.
//
// The dataset is CC BY-NC 4.0 and is not shipped with mnemo: pass its path.
package locomo

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-dev/mnemo/internal/textutil"
)

// Turn is one line of dialogue.
type Turn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption,omitempty"`
}

// Session is one dated conversation session.
type Session struct {
	N     int
	Time  time.Time
	Turns []Turn
}

// QA is one question with the turns that hold its answer.
type QA struct {
	Question string          `json:"question"`
	Answer   json.RawMessage `json:"answer"`
	Evidence []string        `json:"evidence"`
	Category int             `json:"category"`
}

// Conversation is one LoCoMo sample.
type Conversation struct {
	SampleID string
	SpeakerA string
	SpeakerB string
	Sessions []Session
	QA       []QA
}

// LastTime is the time of the conversation's last session: questions are
// asked "now".
func (c *Conversation) LastTime() time.Time {
	var t time.Time
	for _, s := range c.Sessions {
		if s.Time.After(t) {
			t = s.Time
		}
	}
	return t
}

// sessionTimeLayout parses LoCoMo's "1:56 pm on 8 May, 2023".
const sessionTimeLayout = "3:04 pm on 2 January, 2006"

// Load reads a LoCoMo JSON file: a list of samples.
func Load(r io.Reader) ([]Conversation, error) {
	var raw []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []QA                       `json:"qa"`
	}
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("locomo: %w", err)
	}
	sessionKey := regexp.MustCompile(`^session_(\d+)$`)
	out := make([]Conversation, 0, len(raw))
	for _, s := range raw {
		c := Conversation{SampleID: s.SampleID, QA: s.QA}
		json.Unmarshal(s.Conversation["speaker_a"], &c.SpeakerA)
		json.Unmarshal(s.Conversation["speaker_b"], &c.SpeakerB)
		for k, v := range s.Conversation {
			m := sessionKey.FindStringSubmatch(k)
			if m == nil {
				continue
			}
			n, _ := strconv.Atoi(m[1])
			sess := Session{N: n}
			if err := json.Unmarshal(v, &sess.Turns); err != nil {
				return nil, fmt.Errorf("locomo: %s %s: %w", s.SampleID, k, err)
			}
			var when string
			json.Unmarshal(s.Conversation[k+"_date_time"], &when)
			t, err := time.Parse(sessionTimeLayout, strings.ToLower(strings.TrimSpace(when)))
			if err != nil {
				return nil, fmt.Errorf("locomo: %s %s_date_time %q: %w", s.SampleID, k, when, err)
			}
			sess.Time = t
			c.Sessions = append(c.Sessions, sess)
		}
		sort.Slice(c.Sessions, func(i, j int) bool { return c.Sessions[i].N < c.Sessions[j].N })
		for i := range c.QA {
			c.QA[i].Evidence = splitEvidence(c.QA[i].Evidence)
		}
		out = append(out, c)
	}
	return out, nil
}

// splitEvidence repairs malformed entries such as "D8:6; D9:17".
func splitEvidence(ev []string) []string {
	var out []string
	for _, e := range ev {
		for _, p := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// Content is what a turn is stored as: its text and, for a shared photo,
// the photo's caption.
func (t Turn) Content() string {
	if t.BlipCaption != "" {
		return t.Text + " [shares a photo: " + t.BlipCaption + "]"
	}
	return t.Text
}

// DevSplit is the project's development split of locomo10.json: five of
// its ten conversations (2,807 turns, 697 questions of categories 1–4 with
// evidence), the floors of TestLocomoQuality and the figures of
// docs/BENCHMARKS.md. The other five are left for checks of what a change
// does on conversations nobody tuned on.
var DevSplit = []string{"conv-26", "conv-30", "conv-41", "conv-44", "conv-48"}

// Select picks conversations by a comma-separated list of sample ids
// ("conv-26") and zero-based positions or ranges of positions in the file
// ("0-2"), in the file's order. An empty spec selects them all.
func Select(convs []Conversation, spec string) ([]Conversation, error) {
	if strings.TrimSpace(spec) == "" {
		return convs, nil
	}
	want := make(map[int]bool)
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if i := slices.IndexFunc(convs, func(c Conversation) bool { return c.SampleID == part }); i >= 0 {
			want[i] = true
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, errA := strconv.Atoi(lo)
		b, errB := a, error(nil)
		if isRange {
			b, errB = strconv.Atoi(hi)
		}
		if errA != nil || errB != nil || a < 0 || b < a {
			return nil, fmt.Errorf("locomo: conversation %q: want a sample id, a position or a range such as 0-2", part)
		}
		if b >= len(convs) {
			return nil, fmt.Errorf("locomo: conversation %q: the file has %d conversations (positions 0-%d)", part, len(convs), len(convs)-1)
		}
		for i := a; i <= b; i++ {
			want[i] = true
		}
	}
	var out []Conversation
	for i, c := range convs {
		if want[i] {
			out = append(out, c)
		}
	}
	return out, nil
}

// AsChat returns convs as people type in a chat app: each turn becomes
// one message per sentence (textutil.Sentences), and a shared photo's caption a message of its
// own, keyed by the turn's dia_id and the message's number ("D1:3/2").
// A result counts for the turn its message came from (TurnOf), so the
// figures stay comparable with the turns' own while every evidence turn
// is now several short messages, most of which say little alone: what a
// search finds in chat histories rather than in LoCoMo's composed turns.
func AsChat(convs []Conversation) []Conversation {
	out := make([]Conversation, len(convs))
	for i, c := range convs {
		c.Sessions = slices.Clone(c.Sessions)
		for j, s := range c.Sessions {
			var turns []Turn
			for _, t := range s.Turns {
				var parts []string
				textutil.Sentences(t.Text, func(s string, _ bool) {
					if s = strings.TrimSpace(s); s != "" {
						parts = append(parts, s)
					}
				})
				if t.BlipCaption != "" {
					parts = append(parts, "[shares a photo: "+t.BlipCaption+"]")
				}
				for k, p := range parts {
					turns = append(turns, Turn{Speaker: t.Speaker, DiaID: fmt.Sprintf("%s/%d", t.DiaID, k+1), Text: p})
				}
			}
			c.Sessions[j].Turns = turns
		}
		out[i] = c
	}
	return out
}

// TurnOf is the dia_id of the turn a result's key stands for: the key
// less "/turn/" and, for a message of AsChat, its number.
func TurnOf(key string) string {
	id := strings.TrimPrefix(key, "/turn/")
	id, _, _ = strings.Cut(id, "/")
	return id
}

// SessionOf is the session part of a dia_id: "D8" of "D8:6".
func SessionOf(diaID string) string {
	s, _, _ := strings.Cut(diaID, ":")
	return s
}

// messagesByTurn returns the messages of c fed as chats (AsChat), by the
// dia_id of the turn each came from; nil for turns fed whole.
func (c Conversation) messagesByTurn() map[string][]Turn {
	var m map[string][]Turn
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			if turn := TurnOf(t.DiaID); turn != t.DiaID {
				if m == nil {
					m = map[string][]Turn{}
				}
				m[turn] = append(m[turn], t)
			}
		}
	}
	return m
}

// answerMessages are the dia_ids of the messages of qa's evidence turns
// that hold a word of its gold answer (three letters or more, not a
// function word): the message that says "I applied to adoption agencies",
// not "Guess what!" before it. None when no message has one, or the turns
// were fed whole.
func answerMessages(qa QA, byTurn map[string][]Turn) []string {
	if byTurn == nil {
		return nil
	}
	var answer string
	if json.Unmarshal(qa.Answer, &answer) != nil {
		answer = string(qa.Answer)
	}
	words := contentWords(answer)
	var ids []string
	for _, e := range qa.Evidence {
		for _, t := range byTurn[e] {
			for w := range contentWords(t.Text) {
				if words[w] && !slices.Contains(ids, t.DiaID) {
					ids = append(ids, t.DiaID)
					break
				}
			}
		}
	}
	return ids
}

// contentWords are the lower-case words of s of three letters or more,
// function words left out.
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) >= 3 && !functionWords[w] {
			out[w] = true
		}
	}
	return out
}

var functionWords = map[string]bool{
	"the": true, "and": true, "for": true, "was": true, "were": true, "been": true, "you": true, "she": true,
	"her": true, "his": true, "him": true, "they": true, "their": true, "them": true, "our": true, "this": true,
	"that": true, "with": true, "from": true, "about": true, "did": true, "does": true, "what": true, "when": true,
	"where": true, "who": true, "why": true, "how": true, "which": true, "have": true, "has": true, "had": true,
	"not": true, "yes": true, "are": true, "but": true, "its": true, "it's": true, "also": true, "some": true,
}
