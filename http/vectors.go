package http

import (
	"net/http"
	"reflect"
	"slices"

	"github.com/mnemo-dev/mnemo"
)

// includeParam asks for what answers leave out by default: a memory's
// vector is hundreds of floats (8–12 KB) that a client seldom wants.
var includeParam = param{name: "include", schema: map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"embedding"}}},
	doc: "embedding: include each memory's vector, left out by default."}

// withInclude adds includeParam to every JSON route whose answer carries
// memories.
func withInclude(rts []route) []route {
	for i := range rts {
		if rts[i].contentType == "" && rts[i].resp != nil && carriesMemory(reflect.TypeOf(rts[i].resp), map[reflect.Type]bool{}) {
			rts[i].params = append(slices.Clip(rts[i].params), includeParam)
		}
	}
	return rts
}

var memoryType = reflect.TypeFor[mnemo.Memory]()

// carriesMemory reports whether a value of type t can hold a mnemo.Memory.
func carriesMemory(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == memoryType {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return carriesMemory(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if carriesMemory(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// wantsEmbedding reports whether r asked for vectors (include=embedding).
func wantsEmbedding(r *http.Request) bool {
	return r != nil && slices.Contains(r.URL.Query()["include"], "embedding")
}

// dropEmbeddings clears the Embedding of every memory v holds. v is the
// answer about to be written: what it shares with the caller is the
// caller's answer too.
func dropEmbeddings(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !carriesMemory(rv.Type(), map[reflect.Type]bool{}) {
		return v
	}
	if rv.Kind() != reflect.Pointer {
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		rv = p
		v = p.Interface()
	}
	clearEmbeddings(rv, 0)
	return v
}

func clearEmbeddings(v reflect.Value, depth int) {
	if depth > 16 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			clearEmbeddings(v.Elem(), depth+1)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Float32 {
			return
		}
		for i := range v.Len() {
			clearEmbeddings(v.Index(i), depth+1)
		}
	case reflect.Map:
		// Map values are not addressable: memories in maps would need a
		// copy; no answer keeps them there.
	case reflect.Struct:
		if v.Type() == memoryType {
			if v.CanSet() {
				v.Addr().Interface().(*mnemo.Memory).Embedding = nil
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				clearEmbeddings(v.Field(i), depth+1)
			}
		}
	}
}
