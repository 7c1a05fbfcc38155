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
		if rts[i].contentType == "" && rts[i].resp != nil && mnemo.HoldsMemories(reflect.TypeOf(rts[i].resp)) {
			rts[i].params = append(slices.Clip(rts[i].params), includeParam)
		}
	}
	return rts
}

// wantsEmbedding reports whether r asked for vectors (include=embedding).
func wantsEmbedding(r *http.Request) bool {
	return r != nil && slices.Contains(r.URL.Query()["include"], "embedding")
}
