package mnemo

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// CheckProvenance enforces FS-6 and FS-7 on a write of key with source.
// When required (set_memory), a source must be given, as a string or an
// object; otherwise an absent source is accepted except for knowledge-base
// keys. When the key is in the
// knowledge base (/kb/…, kb://…) or the source says it came from the web, a
// tool or a file, it must be an object with kind, name, retrieved_at (RFC
// 3339) and locator: what enters long-term memory from outside must be
// traceable to where it came from, or it is refused.
func CheckProvenance(key string, source json.RawMessage, required bool) error {
	source = bytes.TrimSpace(source)
	kb := key == "/kb" || strings.HasPrefix(key, "/kb/") || strings.HasPrefix(key, "kb://")
	if len(source) == 0 || string(source) == "null" {
		if !required && !kb {
			return nil
		}
		return Errorf(EINVALID, "source is required: say where this came from, as a string or an object with kind, name, retrieved_at and locator")
	}
	if err := CheckJSONDepth("source", source); err != nil { // API-21
		return err
	}
	switch source[0] {
	case '"':
		var s string
		if err := json.Unmarshal(source, &s); err != nil {
			return Errorf(EINVALID, "source is not valid JSON: %v", err)
		}
		if strings.TrimSpace(s) == "" {
			return Errorf(EINVALID, "source is empty")
		}
		if kb {
			return Errorf(EINVALID, "source of the knowledge-base key %s must be an object with kind, name, retrieved_at and locator, not a string", key)
		}
		return nil
	case '{':
	default:
		return Errorf(EINVALID, "source must be a string or an object")
	}

	var obj map[string]json.RawMessage
	if err := json.Unmarshal(source, &obj); err != nil {
		return Errorf(EINVALID, "source is not valid JSON: %v", err)
	}
	kind, hasKind := stringField(obj, "kind")
	if _, present := obj["kind"]; present && !validKind(kind) {
		return Errorf(EINVALID, "source.kind must be user, tool, web, file, system or agent")
	}
	if !kb && kind != "web" && kind != "tool" && kind != "file" {
		return nil
	}

	var missing []string
	if !hasKind {
		missing = append(missing, "kind")
	}
	if _, ok := stringField(obj, "name"); !ok {
		missing = append(missing, "name")
	}
	at, ok := stringField(obj, "retrieved_at")
	if !ok {
		missing = append(missing, "retrieved_at")
	}
	if !present(obj["locator"]) {
		missing = append(missing, "locator")
	}
	why := "a " + kind + " source"
	if kb {
		why = "the knowledge-base key " + key
	}
	if len(missing) > 0 {
		return Errorf(EINVALID, "source is missing %s: %s needs kind, name, retrieved_at and locator", strings.Join(missing, ", "), why)
	}
	if _, err := time.Parse(time.RFC3339, at); err != nil {
		return Errorf(EINVALID, "source.retrieved_at must be an RFC 3339 time such as 2026-02-22T10:00:00Z, got %q", at)
	}
	return nil
}

func validKind(k string) bool {
	switch k {
	case "user", "tool", "web", "file", "system", "agent":
		return true
	}
	return false
}

// stringField returns obj[name] if it is a non-blank JSON string.
func stringField(obj map[string]json.RawMessage, name string) (string, bool) {
	var s string
	if json.Unmarshal(obj[name], &s) != nil || strings.TrimSpace(s) == "" {
		return "", false
	}
	return s, true
}

// present reports whether v holds something: not absent, null, blank, {}
// or [].
func present(v json.RawMessage) bool {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return false
	}
	switch x := x.(type) {
	case nil:
		return false
	case string:
		return strings.TrimSpace(x) != ""
	case map[string]any:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return true
}
