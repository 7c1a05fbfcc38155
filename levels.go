package mnemo

import (
	"encoding/json"
)

// The levels of the records that are not memories (SEC-11) and of what is
// built from records (SEC-12): each is classified by the classifier of
// memories, and conceals its own text by the caller's clearance (SEC-8).

// CheckLevel validates a security level a writer gives; "" is none.
func CheckLevel(field, level string) error {
	switch level {
	case "", SecurityPublic, SecurityInternal, SecurityConfidential, SecurityRestricted:
		return nil
	}
	return Errorf(EINVALID, "%s must be public, internal, confidential or restricted, not %q", field, level)
}

// Field returns a field's text as c reads it when it was made from
// something at level: Text, but an empty field stays empty, so that a
// masked record keeps the shape of the one it masks.
func (c Clearance) Field(level, text string) string {
	if text == "" {
		return ""
	}
	return c.Text(level, text)
}

// JSON returns a JSON value as c reads it when it was made from something
// at level: itself, or a JSON string of its masked form (Text). An empty
// value stays empty.
func (c Clearance) JSON(level string, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || !c.Conceals(level) {
		return raw
	}
	b, _ := json.Marshal(c.Field(level, string(raw)))
	return b
}

// Conceal masks an event's data and metadata, and the inputs of its
// vectors, when c may not read its level (SEC-8, SEC-11); the vectors
// themselves are left out.
func (e *Event) Conceal(c Clearance) {
	if !c.Conceals(e.SecurityLevel) {
		return
	}
	e.Data, e.Metadata = c.JSON(e.SecurityLevel, e.Data), c.JSON(e.SecurityLevel, e.Metadata)
	vs := make([]EventVector, len(e.Vectors))
	for i, v := range e.Vectors {
		vs[i] = EventVector{Modality: v.Modality, Model: v.Model, Input: c.Field(e.SecurityLevel, v.Input)}
	}
	if e.Vectors != nil {
		e.Vectors = vs
	}
}

// Conceal masks a summary's text — trends, patterns, suggestions, its
// note — when c may not read its level (SEC-8, SEC-12); its counts stay.
func (s *Summary) Conceal(c Clearance) {
	if !c.Conceals(s.SecurityLevel) {
		return
	}
	s.Trends, s.Patterns, s.Suggestions = c.texts(s.SecurityLevel, s.Trends), c.texts(s.SecurityLevel, s.Patterns), c.texts(s.SecurityLevel, s.Suggestions)
	s.Note = c.Field(s.SecurityLevel, s.Note)
}

// Conceal masks what a capability says of its events — description,
// conditions, cases and lessons — when c may not read its level (SEC-8,
// SEC-12); its name, task type, tools and counts stay.
func (cp *Capability) Conceal(c Clearance) {
	l := cp.SecurityLevel
	if !c.Conceals(l) {
		return
	}
	cp.Description, cp.Conditions, cp.ConditionSeen = c.Field(l, cp.Description), c.texts(l, cp.Conditions), nil
	for _, cases := range []*[]TaskCase{&cp.SuccessCases, &cp.FailureLessons} {
		out := make([]TaskCase, len(*cases))
		for i, tc := range *cases {
			tc.Text = c.Field(l, tc.Text)
			out[i] = tc
		}
		if *cases != nil {
			*cases = out
		}
	}
	cp.Note = c.Field(l, cp.Note)
}

// texts returns a copy of texts as c reads them when made at level; nil
// stays nil.
func (c Clearance) texts(level string, texts []string) []string {
	if texts == nil {
		return nil
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = c.Field(level, t)
	}
	return out
}
