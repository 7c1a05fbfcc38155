package mnemo

import "reflect"

var memoryType = reflect.TypeFor[Memory]()

// HoldsMemories reports whether a value of type t can hold a Memory: an
// answer that may carry vectors.
func HoldsMemories(t reflect.Type) bool { return carriesMemory(t, map[reflect.Type]bool{}) }

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

// DropEmbeddings clears the Embedding of every memory v holds, in place
// (v is an answer about to be written, by a way in): a vector is hundreds
// of floats that a reader seldom wants. A v that is not a pointer is
// copied first; what it shares (slices) is cleared all the same.
func DropEmbeddings(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return v
	}
	if rv.Kind() != reflect.Pointer {
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		rv = p
		v = p.Interface()
	}
	eachMemory(rv, 0, func(m *Memory) { m.Embedding = nil })
	return v
}

// MaskMemories masks, in place, every record v holds whose security level
// asks for it (SEC-3): the content, summary and data of memories, and each
// other Masker's text (events, summaries, capabilities, runs, sessions:
// SEC-11, SEC-12), for a reader whose key reads such records masked. Like
// DropEmbeddings, a v that is not a pointer is copied first.
func MaskMemories(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return v
	}
	if rv.Kind() != reflect.Pointer {
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		rv = p
		v = p.Interface()
	}
	eachMasker(rv, 0)
	return v
}

var maskerType = reflect.TypeFor[Masker]()

// masks reports whether t declares its own Mask: its pointer is a Masker
// and no embedded field lends it one (a struct embedding a Memory beside
// other records is walked, each record masked on its own).
func masks(t reflect.Type) bool {
	if !reflect.PointerTo(t).Implements(maskerType) {
		return false
	}
	for i := range t.NumField() {
		if f := t.Field(i); f.Anonymous && (f.Type.Implements(maskerType) || reflect.PointerTo(f.Type).Implements(maskerType)) {
			return false
		}
	}
	return true
}

// eachMasker calls Mask on every addressable Masker that v leads to, once
// each: a Masker's own fields are its own to mask.
func eachMasker(v reflect.Value, depth int) {
	if depth > 16 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			eachMasker(v.Elem(), depth+1)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Float32 {
			return
		}
		for i := range v.Len() {
			eachMasker(v.Index(i), depth+1)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			eachMasker(it.Value(), depth+1)
		}
	case reflect.Struct:
		if masks(v.Type()) {
			if v.CanAddr() {
				v.Addr().Interface().(Masker).Mask()
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				eachMasker(v.Field(i), depth+1)
			}
		}
	}
}

// eachMemory calls fn with every addressable memory that v leads to.
func eachMemory(v reflect.Value, depth int, fn func(*Memory)) {
	if depth > 16 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			eachMemory(v.Elem(), depth+1, fn)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Float32 {
			return
		}
		for i := range v.Len() {
			eachMemory(v.Index(i), depth+1, fn)
		}
	case reflect.Map:
		// A map's values are not addressable, but the slices and pointers
		// they hold lead to memories that are.
		for it := v.MapRange(); it.Next(); {
			eachMemory(it.Value(), depth+1, fn)
		}
	case reflect.Struct:
		if v.Type() == memoryType {
			if v.CanSet() {
				fn(v.Addr().Interface().(*Memory))
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				eachMemory(v.Field(i), depth+1, fn)
			}
		}
	}
}
