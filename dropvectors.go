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
