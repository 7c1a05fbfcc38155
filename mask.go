package mnemo

import (
	"encoding/json"

	"github.com/mnemo-dev/mnemo/security"
)

// Masker is a record that can hide, in place, what its security level
// keeps from a reader whose key reads masked (SEC-3): memories, events,
// summaries, capabilities, runs and sessions. Each masks with the one
// masker of package security (SEC-7).
type Masker interface {
	Mask()
}

// MaxLevel returns the highest of levels (SEC-12: what is built from
// records is at least as secret as the most secret of them); "" when none
// is a level.
func MaxLevel(levels ...string) string {
	best := ""
	for _, l := range levels {
		if security.Rank(l) > security.Rank(best) {
			best = l
		}
	}
	return best
}

// ClassifyText returns the level text calls for by the classifier of
// memories (SEC-6), at least def: every record that holds text is
// classified by it (SEC-11).
func ClassifyText(text, def string) string {
	l, _ := security.Classify(text, def)
	return l
}

// CheckLevel validates a security level a writer gives; "" is none.
func CheckLevel(field, level string) error {
	switch level {
	case "", SecurityPublic, SecurityInternal, SecurityConfidential, SecurityRestricted:
		return nil
	}
	return Errorf(EINVALID, "%s must be public, internal, confidential or restricted, not %q", field, level)
}

// MaskedLevel reports whether a record of level is masked for a reader
// whose key reads masked: confidential and restricted ones are (SEC-3).
func MaskedLevel(level string) bool { return security.Label(level) != "" }

// MaskText returns text masked when level asks for it (confidential,
// restricted), else text; an empty text stays empty.
func MaskText(level, text string) string {
	if label := security.Label(level); label != "" && text != "" {
		return security.Mask(label, text)
	}
	return text
}

// MaskJSON returns a JSON value masked as MaskText masks text: a JSON
// string saying what it was, or raw itself when level shows it.
func MaskJSON(level string, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || security.Label(level) == "" {
		return raw
	}
	b, _ := json.Marshal(MaskText(level, string(raw)))
	return b
}

// MaskedText returns the text a prompt shows of a memory's text: itself, or
// masked (package security) when redact is set and the memory's level asks
// for it.
func (m *Memory) MaskedText(text string, redact bool) string {
	if !redact {
		return text
	}
	if label := security.Label(m.SecurityLevel); label != "" {
		return security.Mask(label, text)
	}
	return text
}

// Mask replaces what a confidential or restricted memory says (content,
// summary, data) by its masked form (SEC-3, SEC-7), and leaves a memory of
// any other level as it is.
func (m *Memory) Mask() {
	label := security.Label(m.SecurityLevel)
	if label == "" {
		return
	}
	m.Content = security.Mask(label, m.Content)
	if m.Summary != "" {
		m.Summary = security.Mask(label, m.Summary)
	}
	m.Data = nil
}

// Classify sets the security level of a memory written without one from
// what its text contains (SEC-6): e-mail addresses and phone
// numbers make it confidential; IDs, cards, keys, tokens and passwords
// restricted. A level the writer gives is kept as it is.
func (m *Memory) Classify(given string) {
	if given != "" {
		return
	}
	text := m.Content + "\n" + m.Summary
	if len(m.Data) > 0 {
		text += "\n" + string(m.Data)
	}
	m.SecurityLevel, _ = security.Classify(text, m.SecurityLevel)
}

// Classify sets the level of an event stored without one (SEC-11) from
// what it holds: its type, source, data and metadata, by the classifier
// of memories; a level it has (its writer's, or stored) is kept.
func (e *Event) Classify() {
	if e.SecurityLevel != "" {
		return
	}
	text := e.Type + "\n" + e.Source + "\n" + string(e.Data) + "\n" + string(e.Metadata)
	e.SecurityLevel = ClassifyText(text, SecurityInternal)
}

// Mask hides a confidential or restricted event's data and metadata, and
// the inputs of its vectors (SEC-3, SEC-11).
func (e *Event) Mask() {
	if security.Label(e.SecurityLevel) == "" {
		return
	}
	e.Data, e.Metadata = MaskJSON(e.SecurityLevel, e.Data), MaskJSON(e.SecurityLevel, e.Metadata)
	for i := range e.Vectors {
		e.Vectors[i].Input = MaskText(e.SecurityLevel, e.Vectors[i].Input)
	}
}

// Mask hides the text of a confidential or restricted summary: trends,
// patterns, suggestions and its note (SEC-12); its counts stay.
func (s *Summary) Mask() {
	for _, texts := range [][]string{s.Trends, s.Patterns, s.Suggestions} {
		for i := range texts {
			texts[i] = MaskText(s.SecurityLevel, texts[i])
		}
	}
	s.Note = MaskText(s.SecurityLevel, s.Note)
}

// Mask hides the text of a confidential or restricted capability: its
// description, conditions, cases and lessons, which come from its events'
// data (SEC-12); its name, task type, tools and counts stay.
func (c *Capability) Mask() {
	if security.Label(c.SecurityLevel) == "" {
		return
	}
	c.Description = MaskText(c.SecurityLevel, c.Description)
	for i := range c.Conditions {
		c.Conditions[i] = MaskText(c.SecurityLevel, c.Conditions[i])
	}
	c.ConditionSeen = nil
	for _, cases := range [][]TaskCase{c.SuccessCases, c.FailureLessons} {
		for i := range cases {
			cases[i].Text = MaskText(c.SecurityLevel, cases[i].Text)
		}
	}
	c.Note = MaskText(c.SecurityLevel, c.Note)
}
