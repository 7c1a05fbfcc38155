package mcp

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// anyJSON lists every JSON type: the schema of free JSON (json.RawMessage)
// as branches a strict client can read, where {} would say nothing.
var anyJSON = []string{"object", "array", "string", "number", "boolean", "null"}

// portable rewrites s in place into the dialect every MCP client reads (the
// MCP Inspector's --strict check): one type per schema, never a type array,
// and a validation keyword on every schema. jsonschema.For spells a Go slice
// ["null","array"]; an omitempty slice is left out when nil, so it is a plain
// array, and a required one (nil encodes as null) becomes anyOf null, array.
func portable(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for name, p := range s.Properties {
		if p == nil {
			continue
		}
		if i := slices.Index(p.Types, "null"); i >= 0 && len(p.Types) == 2 && !slices.Contains(s.Required, name) {
			p.Type, p.Types = p.Types[1-i], nil
		}
	}
	if i := slices.Index(s.Types, "null"); i >= 0 && len(s.Types) == 2 {
		// Keep the description on the outer schema, the value's shape in
		// its non-null branch.
		inner := *s
		inner.Description, inner.Types, inner.Type = "", nil, s.Types[1-i]
		*s = jsonschema.Schema{Description: s.Description, AnyOf: []*jsonschema.Schema{{Type: "null"}, &inner}}
		portable(&inner)
		return
	}
	if len(s.Types) > 1 {
		types := s.Types
		s.Types = nil
		for _, t := range types {
			s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
		}
	}
	if isEmpty(s) {
		for _, t := range anyJSON {
			s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
		}
	}
	for _, p := range s.Properties {
		portable(p)
	}
	for _, d := range s.Defs {
		portable(d)
	}
	portable(s.Items)
	portable(s.AdditionalProperties)
	for _, b := range s.AnyOf {
		portable(b)
	}
}

// isEmpty reports whether s constrains nothing: at most a description.
func isEmpty(s *jsonschema.Schema) bool {
	c := *s
	c.Description = ""
	return c.Type == "" && len(c.Types) == 0 && len(c.AnyOf) == 0 && len(c.OneOf) == 0 &&
		len(c.AllOf) == 0 && c.Not == nil && c.Ref == "" && len(c.Enum) == 0 && c.Const == nil &&
		len(c.Properties) == 0 && c.Items == nil
}
