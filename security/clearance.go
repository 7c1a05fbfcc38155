package security

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
)

// Clearance is what a caller may read whole (SEC-8): memories, and what is
// built from them, up to Level; above it only their masked form (SEC-3).
// It travels on the call's context (WithClearance), set by the way in the
// call came through — an API key's mask, the MCP channel, the CLI's mask
// profile — and the service conceals every answer by it, so that no way
// in decides masking for itself.
type Clearance struct {
	// Level is the highest security level read whole; "" reads every
	// level whole.
	Level string
}

// Masked is the clearance of an API key with mask, of the MCP channel and
// of the CLI's mask profile: public and internal memories whole,
// confidential and restricted ones masked.
var Masked = Clearance{Level: mnemo.SecurityInternal}

type clearanceKey struct{}

// WithClearance returns ctx carrying c, the clearance of every call made
// with it.
func WithClearance(ctx context.Context, c Clearance) context.Context {
	return context.WithValue(ctx, clearanceKey{}, c)
}

// ClearanceFrom returns the clearance ctx carries; the zero Clearance,
// which reads everything, when it carries none: a Go program embedding
// mnemo, a background job.
func ClearanceFrom(ctx context.Context) Clearance {
	c, _ := ctx.Value(clearanceKey{}).(Clearance)
	return c
}

// Masks reports whether c reads some level masked.
func (c Clearance) Masks() bool { return c.Level != "" }

// Stricter returns the clearance of the two that reads less whole.
func (c Clearance) Stricter(o Clearance) Clearance {
	switch {
	case !c.Masks():
		return o
	case !o.Masks():
		return c
	case rankOf(o.Level) < rankOf(c.Level):
		return o
	}
	return c
}

// Conceals reports whether c reads what is at level masked. A memory
// without a level is internal (SEC-2); a level mnemo does not know is
// concealed, so that a typo never opens a memory.
func (c Clearance) Conceals(level string) bool {
	if !c.Masks() {
		return false
	}
	r := rankOf(level)
	return r < 0 || r > rankOf(c.Level)
}

// Text returns text as c reads it when it was made from something at
// level: itself, or its masked form (SEC-7: package security's one masker).
func (c Clearance) Text(level, text string) string {
	if !c.Conceals(level) {
		return text
	}
	return Mask(maskLabel(level), text)
}

// maskLabel is the marker of masked text of level.
func maskLabel(level string) string {
	if l := Label(level); l != "" {
		return l
	}
	if rankOf(level) >= 0 {
		return "[" + strings.ToUpper(cmp.Or(level, mnemo.SecurityInternal)) + "]"
	}
	return "[MASKED]"
}

// Conceal masks what m says when c may not read its level (SEC-3, SEC-8):
// its content and summary become their marker and length, and what is
// read from them or stands beside them — data, entities, when it
// happened, its vector — is left out. A memory c may read is left as it is.
func (c Clearance) Memory(m *mnemo.Memory) { c.MemoryAs(m, m.SecurityLevel) }

// ConcealAs is Conceal for a memory read at level, or at its own if that
// is higher: a key's old revision is read at the highest level the key
// ever had, so that reclassifying a key hides what it said before.
func (c Clearance) MemoryAs(m *mnemo.Memory, level string) {
	level = mnemo.Highest(level, m.SecurityLevel)
	if !c.Conceals(level) {
		return
	}
	label := maskLabel(level)
	m.Content = Mask(label, m.Content)
	if m.Summary != "" {
		m.Summary = Mask(label, m.Summary)
	}
	m.Data, m.Entities, m.Occurred, m.Embedding = nil, nil, nil, nil
}

// A concealer is an answer that holds classified text: Conceal masks, in
// place, what c may not read of it (SEC-8). Memory is one; a record that
// carries a level of its own (a session's fact, an event) is another.
type concealer interface {
	Conceal(c Clearance)
}

var memoryType = reflect.TypeFor[mnemo.Memory]()

// maxConcealDepth bounds how deep Conceal looks into an answer; what lies
// deeper is left out rather than shown unread.
const maxConcealDepth = 32

// Conceal returns v as c reads it: every Concealer v leads to — memories
// in results, pages, revisions, links — concealed (SEC-8). What v shares
// (pointers, slices, maps) is copied before it is changed, so that nothing
// the caller keeps elsewhere, such as a store's cache, changes. With a
// clearance that reads everything, v is returned as it is.
func Conceal[T any](c Clearance, v T) T {
	if !c.Masks() {
		return v
	}
	rv := reflect.ValueOf(&v).Elem()
	conceal(c, rv, 0)
	return v
}

// conceal conceals, in the settable v, what c may not read.
func conceal(c Clearance, v reflect.Value, depth int) {
	if depth > maxConcealDepth {
		v.SetZero()
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(v.Elem())
		conceal(c, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := reflect.New(v.Elem().Type()).Elem()
		e.Set(v.Elem())
		conceal(c, e, depth+1)
		v.Set(e)
	case reflect.Slice:
		if v.IsNil() || plain(v.Type().Elem()) {
			return
		}
		n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(n, v)
		for i := range n.Len() {
			conceal(c, n.Index(i), depth+1)
		}
		v.Set(n)
	case reflect.Array:
		for i := range v.Len() {
			conceal(c, v.Index(i), depth+1)
		}
	case reflect.Map:
		if v.IsNil() || plain(v.Type().Elem()) {
			return
		}
		n := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			conceal(c, e, depth+1)
			n.SetMapIndex(it.Key(), e)
		}
		v.Set(n)
	case reflect.Struct:
		switch p := v.Addr().Interface().(type) {
		case *mnemo.Memory:
			c.Memory(p)
		case *mnemo.Event:
			c.Event(p)
		case *mnemo.Summary:
			c.Summary(p)
		case *mnemo.Capability:
			c.Capability(p)
		case concealer:
			p.Conceal(c)
		}
		if v.Type() == memoryType {
			return
		}
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				conceal(c, f, depth+1)
			}
		}
	}
}

// plain reports whether values of t hold nothing to conceal: numbers,
// booleans and strings, which only a Concealer around them can judge.
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}

// LevelLabel is the marker of a level whose text is masked, "" when it is shown.
func Label(level string) string {
	switch level {
	case mnemo.SecurityConfidential:
		return "[CONFIDENTIAL]"
	case mnemo.SecurityRestricted:
		return "[RESTRICTED]"
	}
	return ""
}

// MaskText replaces s by its marker and its length: enough to know that
// something is there and how much, none of what it says. A text that is
// already label's mask (SEC-7: the one masker every channel uses) is returned as it is, so that masking twice says
// the first length.
func Mask(label, s string) string {
	if rest, ok := strings.CutPrefix(s, label+" ****** ("); ok && strings.HasSuffix(rest, " characters)") {
		if _, err := strconv.Atoi(strings.TrimSuffix(rest, " characters)")); err == nil {
			return s
		}
	}
	return fmt.Sprintf("%s ****** (%d characters)", label, utf8.RuneCountInString(s))
}

// The levels of the records that are not memories (SEC-11) and of what is
// built from records (SEC-12): each is classified by the classifier of
// memories, and conceals its own text by the caller's clearance (SEC-8).

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
func (c Clearance) Event(e *mnemo.Event) {
	if !c.Conceals(e.SecurityLevel) {
		return
	}
	e.Data, e.Metadata = c.JSON(e.SecurityLevel, e.Data), c.JSON(e.SecurityLevel, e.Metadata)
	vs := make([]mnemo.EventVector, len(e.Vectors))
	for i, v := range e.Vectors {
		vs[i] = mnemo.EventVector{Modality: v.Modality, Model: v.Model, Input: c.Field(e.SecurityLevel, v.Input)}
	}
	if e.Vectors != nil {
		e.Vectors = vs
	}
}

// Conceal masks a summary's text — trends, patterns, suggestions, its
// note — when c may not read its level (SEC-8, SEC-12); its counts stay.
func (c Clearance) Summary(s *mnemo.Summary) {
	if !c.Conceals(s.SecurityLevel) {
		return
	}
	s.Trends, s.Patterns, s.Suggestions = c.texts(s.SecurityLevel, s.Trends), c.texts(s.SecurityLevel, s.Patterns), c.texts(s.SecurityLevel, s.Suggestions)
	s.Note = c.Field(s.SecurityLevel, s.Note)
}

// Conceal masks what a capability says of its events — description,
// conditions, cases and lessons — when c may not read its level (SEC-8,
// SEC-12); its name, task type, tools and counts stay.
func (c Clearance) Capability(cp *mnemo.Capability) {
	l := cp.SecurityLevel
	if !c.Conceals(l) {
		return
	}
	cp.Description, cp.Conditions, cp.ConditionSeen = c.Field(l, cp.Description), c.texts(l, cp.Conditions), nil
	for _, cases := range []*[]mnemo.TaskCase{&cp.SuccessCases, &cp.FailureLessons} {
		out := make([]mnemo.TaskCase, len(*cases))
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

// rankOf is LevelRank with no level read as internal, the default.
func rankOf(level string) int {
	if level == "" {
		level = mnemo.SecurityInternal
	}
	return mnemo.LevelRank(level)
}

// noLevel is a security level no record has: a filter of it matches nothing.
const noLevel = "-"

// Readable returns the levels of given (every level when given is empty)
// that c reads whole, for a filter that matches only what c may read: a
// caller that reads masked may not select memories by what it may not read
// of them, such as when they happened (SEC-14). With a clearance that reads
// everything, given is returned as it is; when c reads none of given, a
// level no memory has.
func (c Clearance) Readable(given []string) []string {
	if !c.Masks() {
		return given
	}
	if len(given) == 0 {
		given = []string{mnemo.SecurityPublic, mnemo.SecurityInternal, mnemo.SecurityConfidential, mnemo.SecurityRestricted}
	}
	var out []string
	for _, l := range given {
		if !c.Conceals(l) {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return []string{noLevel}
	}
	return out
}

// TimeFilter returns f as c may select by it: a filter on when things
// happened (occurred bounds, dated) matches only the memories c reads
// whole, whose occurred c reads; others are hidden from it, as they would
// be if it could bisect their dates (SEC-14).
func (c Clearance) TimeFilter(f mnemo.Filter) mnemo.Filter {
	if c.Masks() && (f.OccurredAfter != nil || f.OccurredBefore != nil || f.Dated) {
		f.SecurityLevels = c.Readable(f.SecurityLevels)
	}
	return f
}
