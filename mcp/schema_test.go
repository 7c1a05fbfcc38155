package mcp_test

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestSchemasPortable is the cheap guard behind the Inspector's --strict
// check (mcp/inspector_test.sh): no tool schema, in or out, has a type array
// (["null","array"] is what jsonschema.For spells a Go slice) or a schema
// without a validation keyword.
func TestSchemasPortable(t *testing.T) {
	cs := connectMemory(t, newService(t), alice)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		for kind, s := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			for _, bad := range unportable(v, tool.Name+"."+kind, "") {
				t.Error(bad)
			}
		}
	}
}

// unportable lists the paths in schema v that a strict client rejects.
func unportable(v any, path, keyword string) []string {
	s, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var bad []string
	if types, ok := s["type"].([]any); ok {
		bad = append(bad, fmt.Sprintf("%s: type is an array %v", path, types))
	}
	constrains := false
	for _, k := range []string{"type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref", "properties", "items"} {
		if _, ok := s[k]; ok {
			constrains = true
		}
	}
	if !constrains && keyword != "not" {
		bad = append(bad, path+": no validation keyword")
	}
	for _, k := range []string{"properties", "$defs"} {
		m, _ := s[k].(map[string]any)
		for name, sub := range m {
			bad = append(bad, unportable(sub, path+"."+k+"."+name, k)...)
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		bad = append(bad, unportable(s[k], path+"."+k, k)...)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		l, _ := s[k].([]any)
		for i, sub := range l {
			bad = append(bad, unportable(sub, fmt.Sprintf("%s.%s[%d]", path, k, i), k)...)
		}
	}
	return bad
}
