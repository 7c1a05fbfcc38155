package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Object is a JSON object that keeps its members' order, so that a
// client's config file is written back with only mnemo's entry changed
// (AGT-6). A value inside is *Object, []any, json.Number, string, bool or
// nil.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{vals: make(map[string]any)} }

// Get returns a member's value.
func (o *Object) Get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// Set sets a member, appended when new, in place when not.
func (o *Object) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Len is the number of members.
func (o *Object) Len() int { return len(o.keys) }

// SyntaxError is a config file that is not JSON, with where.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// DecodeObject decodes a JSON document whose top level is an object,
// keeping the order of every object's members. Empty input is an empty
// object. Comments and trailing commas (JSONC) are errors.
func DecodeObject(b []byte) (*Object, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return NewObject(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("more after the top-level value")
		}
	}
	if err != nil {
		off := int(dec.InputOffset())
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = int(se.Offset)
		}
		line, col := position(b, off)
		msg := err.Error()
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			msg = "unexpected end of the file"
		}
		return nil, &SyntaxError{Line: line, Column: col, Msg: msg}
	}
	o, ok := v.(*Object)
	if !ok {
		return nil, &SyntaxError{Line: 1, Column: 1, Msg: "the top level is not a JSON object"}
	}
	return o, nil
}

// maxDepth bounds nesting: no client's config is deep, and a hostile file
// must not exhaust the stack.
const maxDepth = 200

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested more than %d deep", maxDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("an object key is not a string")
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %q", t)
	default:
		return t, nil // string, json.Number, bool, nil
	}
}

// position is the 1-based line and column of byte offset off.
func position(b []byte, off int) (line, col int) {
	off = min(max(off, 0), len(b))
	before := b[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - bytes.LastIndexByte(before, '\n')
	return line, col
}

// Encode writes v as JSON indented by two spaces, as the clients write
// their own files, with a final newline.
func Encode(v any) []byte {
	var b strings.Builder
	encodeValue(&b, v, "")
	b.WriteByte('\n')
	return []byte(b.String())
}

func encodeValue(b *strings.Builder, v any, indent string) {
	switch t := v.(type) {
	case *Object:
		if t.Len() == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range t.keys {
			b.WriteString(indent + "  ")
			encodeString(b, k)
			b.WriteString(": ")
			encodeValue(b, t.vals[k], indent+"  ")
			if i < len(t.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range t {
			b.WriteString(indent + "  ")
			encodeValue(b, e, indent+"  ")
			if i < len(t)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case []string:
		a := make([]any, len(t))
		for i, s := range t {
			a[i] = s
		}
		encodeValue(b, a, indent)
	case string:
		encodeString(b, t)
	case json.Number:
		b.WriteString(t.String())
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int:
		fmt.Fprint(b, t)
	case nil:
		b.WriteString("null")
	default:
		panic(fmt.Sprintf("setup: cannot encode %T", v))
	}
}

func encodeString(b *strings.Builder, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<" and "&" stay readable in commands
	enc.Encode(s)
	b.Write(bytes.TrimRight(buf.Bytes(), "\n"))
}
