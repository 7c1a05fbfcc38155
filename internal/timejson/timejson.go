// Package timejson reads the time fields of a JSON request as people type
// them (TIME-2): every field whose Go type is time.Time may hold an RFC 3339
// time, a plain date ("2026-11-20", its midnight, UTC) or words ("last
// Tuesday", their start, resolved against now). Rewrite turns such values
// into RFC 3339 before the request is decoded, and refuses a value that is
// no time, or a time outside the supported range (TIME-1), with an
// EINVALID error that names the field by its path ("memories[2].valid_to"),
// what was sent and an example — never a Go layout error. The ways in
// (http, mcp) decode a body as it is first, and rewrite it only when that
// fails: a request in RFC 3339 costs nothing more.
package timejson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/temporal"
)

var (
	timeType = reflect.TypeFor[time.Time]()
	whenType = reflect.TypeFor[mnemo.When]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// Rewrite returns data with the value of every time field of t (a struct
// type, or a pointer to one) made RFC 3339, and whether it changed any.
// Data that is not a JSON object, or a type without time fields, is
// returned as it is: decoding it reports what is wrong. A field of type
// mnemo.When (occurred_at) is checked, not rewritten: the memory reads it
// against its own creation time.
func Rewrite(data []byte, t reflect.Type, now time.Time) ([]byte, bool, error) {
	if !hasTime(t) {
		return data, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return data, false, nil
	}
	w := walker{now: now}
	v, err := w.walk(v, t, "")
	if err != nil || !w.changed {
		return data, false, err
	}
	out, err := json.Marshal(v)
	if err != nil {
		return data, false, nil
	}
	return out, true, nil
}

type walker struct {
	now     time.Time
	changed bool
}

func (w *walker) walk(v any, t reflect.Type, path string) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil {
		return v, nil
	}
	switch {
	case t == timeType:
		s, ok := v.(string)
		if !ok {
			return v, mnemo.TimeFieldError(path, raw(v))
		}
		if at, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return v, mnemo.CheckTime(path, at)
		}
		at, err := temporal.ParseInstant(path, s, w.now)
		if err != nil {
			return v, err
		}
		w.changed = true
		return at.Format(time.RFC3339Nano), nil
	case t == whenType:
		s, ok := v.(string)
		if !ok {
			return v, mnemo.TimeFieldError(path, raw(v))
		}
		_, err := temporal.ParseTime(path, s, w.now)
		return v, err
	case t == rawType:
		return v, nil
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return v, nil
		}
		fs := fieldsOf(t)
		for k, x := range obj {
			f, ok := fs.find(k)
			if !ok || !hasTime(f.typ) {
				continue
			}
			nx, err := w.walk(x, f.typ, join(path, f.name))
			if err != nil {
				return v, err
			}
			obj[k] = nx
		}
	case reflect.Slice, reflect.Array:
		arr, ok := v.([]any)
		if !ok {
			return v, nil
		}
		for i, x := range arr {
			nx, err := w.walk(x, t.Elem(), path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return v, err
			}
			arr[i] = nx
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return v, nil
		}
		for k, x := range obj {
			nx, err := w.walk(x, t.Elem(), join(path, k))
			if err != nil {
				return v, err
			}
			obj[k] = nx
		}
	}
	return v, nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// field is a JSON field of a struct: its name and Go type.
type field struct {
	name string
	typ  reflect.Type
}

type fields []field

// find matches a key as encoding/json does: the exact name, else one that
// equals it without regard to case.
func (fs fields) find(k string) (field, bool) {
	for _, f := range fs {
		if f.name == k {
			return f, true
		}
	}
	for _, f := range fs {
		if strings.EqualFold(f.name, k) {
			return f, true
		}
	}
	return field{}, false
}

var (
	fieldCache sync.Map // reflect.Type -> fields
	timeCache  sync.Map // reflect.Type -> bool
)

// fieldsOf lists t's JSON fields, those of embedded structs included.
func fieldsOf(t reflect.Type) fields {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(fields)
	}
	var fs fields
	var add func(t reflect.Type, depth int)
	add = func(t reflect.Type, depth int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			ft := sf.Type
			if sf.Anonymous && name == "" {
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct && depth < 8 {
					add(ft, depth+1)
				}
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			fs = append(fs, field{name: name, typ: sf.Type})
		}
	}
	add(t, 0)
	fieldCache.Store(t, fs)
	return fs
}

// hasTime reports whether a value of t may hold a time field.
func hasTime(t reflect.Type) bool {
	if v, ok := timeCache.Load(t); ok {
		return v.(bool)
	}
	timeCache.Store(t, false) // a type that holds itself
	found := false
	switch u := deref(t); {
	case u == timeType || u == whenType:
		found = true
	case u == rawType:
	case u.Kind() == reflect.Struct:
		for _, f := range fieldsOf(u) {
			if hasTime(f.typ) {
				found = true
				break
			}
		}
	case u.Kind() == reflect.Slice || u.Kind() == reflect.Array || u.Kind() == reflect.Map:
		found = hasTime(u.Elem())
	}
	timeCache.Store(t, found)
	return found
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
