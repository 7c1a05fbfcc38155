package mnemo

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// MaxJSONDepth is how deeply a JSON value mnemo keeps as it was given may
// nest arrays and objects (API-21): a memory's data and source, an
// event's data and metadata, a run's trigger payload and a call's input
// and output. Deep enough for any document people write; beyond it, every
// reader, index and printer of the value would pay for the depth again.
const MaxJSONDepth = 64

// MaxRequestDepth is how deeply a whole JSON document a way in reads may
// nest (API-21): an HTTP body, an MCP call's arguments, an import line. It
// holds a value of MaxJSONDepth inside the few levels of the request around
// it (memories[2].data is three).
const MaxRequestDepth = MaxJSONDepth + 8

// JSONDepth returns how deeply the JSON text raw nests arrays and objects:
// 0 for a scalar, 1 for [1,2] or {"a":1}, 2 for [[1]]. It looks only at
// brackets outside strings, in one pass, without checking the rest of the
// syntax: a decoder does that.
func JSONDepth(raw []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			// Skip the string: to its closing quote, past escapes.
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			depth--
		}
	}
	return deepest
}

// CheckJSONDepth returns an EINVALID error naming field when the JSON value
// raw nests deeper than MaxJSONDepth (API-21).
func CheckJSONDepth(field string, raw []byte) error {
	if d := JSONDepth(raw); d > MaxJSONDepth {
		return Errorf(EINVALID, "%s nests %d levels of arrays and objects; at most %d", field, d, MaxJSONDepth)
	}
	return nil
}

// CheckRequestDepth returns an EINVALID error when the JSON document doc,
// which what names ("request body", "line 3", "the arguments"), nests
// deeper than MaxRequestDepth (API-21). The error names the field where it
// goes too deep, by its path ("memories[0].data"), so that a client knows
// what to flatten. A way in calls it before it decodes doc.
func CheckRequestDepth(what string, doc []byte) error {
	if JSONDepth(doc) <= MaxRequestDepth {
		return nil
	}
	return Errorf(EINVALID, "%s nests deeper than %d levels of arrays and objects at %s; a JSON value such as data may nest at most %d",
		what, MaxRequestDepth, deepPath(doc, MaxRequestDepth), MaxJSONDepth)
}

// pathSegments is how much of a path deepPath shows: the fields of a
// request come first, then the value's own levels, which it cuts.
const pathSegments = 6

// deepPath returns the path, as "memories[0].data[0][0]…", of the first
// value of doc that opens a level deeper than limit, cut after its first
// pathSegments segments. An error only reads it, so it decodes tokens.
func deepPath(doc []byte, limit int) string {
	type level struct {
		object bool
		index  int    // the array's next element
		key    string // the object's current key
		isKey  bool   // the next string is a key
	}
	var stack []level
	segs := make([]string, 0, pathSegments+1)
	dec := json.NewDecoder(bytes.NewReader(doc))
	path := func() string {
		var b strings.Builder
		for i, s := range segs {
			if i > 0 && !strings.HasPrefix(s, "[") {
				b.WriteByte('.')
			}
			b.WriteString(s)
		}
		if len(stack)-1 > len(segs) {
			b.WriteString("…")
		}
		if b.Len() == 0 {
			return "the top"
		}
		return b.String()
	}
	// enter notes the value about to start in the current level.
	enter := func() {
		if len(stack) == 0 || len(stack) > pathSegments {
			return
		}
		top := &stack[len(stack)-1]
		if top.object {
			segs = append(segs, top.key)
			top.isKey = true
		} else {
			segs = append(segs, "["+strconv.Itoa(top.index)+"]")
			top.index++
		}
	}
	// leave drops the segment of a value that ended.
	leave := func() {
		if len(stack) > 0 && len(stack) <= pathSegments && len(segs) > 0 {
			segs = segs[:len(segs)-1]
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return path() // not JSON past here: where it got to
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '[', '{':
				enter()
				stack = append(stack, level{object: t == '{', isKey: t == '{'})
				if len(stack) > limit {
					return path()
				}
			default:
				stack = stack[:len(stack)-1]
				leave()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].isKey {
				stack[n-1].key, stack[n-1].isKey = t, false
				continue
			}
			enter()
			leave()
		default:
			enter()
			leave()
		}
	}
}
