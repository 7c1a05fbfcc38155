package main

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mnemo-dev/mnemo/internal/textutil"
)

// unknownKey finds the first key of doc that no field of a value of type t
// takes, and says where it is and which valid key is nearest: the YAML
// decoder's own message names Go types ("field default_limt not found in
// type struct {…}"), not what a person should write.
func unknownKey(doc []byte, t reflect.Type) *ConfigError {
	var root yaml.Node
	if yaml.Unmarshal(doc, &root) != nil || len(root.Content) == 0 {
		return nil
	}
	return walkKeys(root.Content[0], t, "")
}

func walkKeys(n *yaml.Node, t reflect.Type, path string) *ConfigError {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[yaml.Unmarshaler]()) {
		return nil // decodes itself
	}
	switch {
	case n.Kind == yaml.AliasNode:
		return nil
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := path + k.Value
			ft, ok := fields[k.Value]
			if !ok {
				names := make([]string, 0, len(fields))
				for name := range fields {
					names = append(names, name)
				}
				msg := "unknown key"
				if near := nearest(k.Value, names); near != "" {
					msg += fmt.Sprintf(" (did you mean %s?)", path+near)
				}
				return &ConfigError{Field: fmt.Sprintf("line %d: %s", k.Line, key), Msg: msg}
			}
			if err := walkKeys(v, ft, key+"."); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := walkKeys(n.Content[i+1], t.Elem(), path+n.Content[i].Value+"."); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, e := range n.Content {
			if err := walkKeys(e, t.Elem(), fmt.Sprintf("%s[%d].", strings.TrimSuffix(path, "."), i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// yamlFields maps the YAML keys of struct type t to their types, inline
// structs included.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			for k, v := range yamlFields(ft) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

// nearest returns the candidate within a third of word's length in edits
// (at least 2), or "".
func nearest(word string, candidates []string) string {
	best, bestD := "", max(2, len(word)/3)+1
	for _, c := range candidates {
		if d := editDistance(word, c); d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int { return textutil.EditDistance(a, b) }
