package http

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemo-dev/mnemo"
)

// openAPIDocument generates the OpenAPI 3.1 document of the route table.
// Schemas come from the Go types the handlers decode and encode, by
// reflection, so they change when the types do. OpenAPI 3.1 schemas are
// JSON Schema 2020-12, which is what jsonschema-go generates.
//
// Each schema is written out in full where it is used, rather than shared
// by $ref, so that any one of them can validate a body on its own (the
// tests do that with real answers).
func (s *Server) openAPIDocument() ([]byte, error) {
	problem, err := schemaOf(Problem{})
	if err != nil {
		return nil, err
	}
	paths := map[string]map[string]any{}
	for _, rt := range s.routes {
		op, err := operation(&rt)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", rt.pattern(), err)
		}
		if paths[rt.path] == nil {
			paths[rt.path] = map[string]any{}
		}
		paths[rt.path][strings.ToLower(rt.method)] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "mnemo",
			"version": s.version,
			"description": "Long-term memory for AI agents. Every call is scoped to one tenant, which comes from the API key, " +
				"and one agent, named by agent_id. Errors are RFC 9457 problem+json bodies whose code member is stable. " +
				"When the server has no API keys configured, no route needs one and the tenant is \"default\".",
		},
		"paths": paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer",
					"description": "An API key as a bearer token. Its scopes (read, write, admin) are listed on each operation."},
				"apiKey": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key",
					"description": "The same API key, for clients that cannot set Authorization."},
			},
			"schemas": map[string]any{"Problem": problem},
			"responses": map[string]any{
				"Problem": map[string]any{
					"description": "A problem: code is one of " + strings.Join(problemCodes(), ", ") + ".",
					"content": map[string]any{
						"application/problem+json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Problem"}},
					},
				},
			},
		},
	}
	return json.MarshalIndent(doc, "", "  ")
}

// operation describes one route.
func operation(rt *route) (map[string]any, error) {
	op := map[string]any{
		"operationId": operationID(rt),
		"summary":     rt.summary,
	}
	if rt.doc != "" {
		op["description"] = rt.doc
	}
	var params []any
	for _, name := range pathParams(rt.path) {
		params = append(params, map[string]any{"name": name, "in": "path", "required": true, "schema": stringSchema})
	}
	for _, p := range rt.params {
		q := map[string]any{"name": p.name, "in": "query", "schema": p.schema, "description": p.doc}
		if p.required {
			q["required"] = true
		}
		if p.schema["type"] == "array" {
			q["style"], q["explode"] = "form", true
		}
		params = append(params, q)
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if rt.body != nil {
		sch, err := schemaOf(rt.body)
		if err != nil {
			return nil, err
		}
		op["requestBody"] = map[string]any{
			"required": true,
			"content":  map[string]any{"application/json": map[string]any{"schema": sch}},
		}
	}
	if rt.bodyLines != nil {
		// JSON Lines: each line is one value of this schema.
		sch, err := schemaOf(rt.bodyLines)
		if err != nil {
			return nil, err
		}
		op["requestBody"] = map[string]any{
			"required":    true,
			"description": "JSON Lines: one value of the schema per line.",
			"content":     map[string]any{ndjson: map[string]any{"schema": sch}},
		}
	}
	if rt.bodyFile != "" {
		op["requestBody"] = map[string]any{
			"required":    true,
			"description": rt.bodyFile,
			"content": map[string]any{
				"application/json": map[string]any{"schema": map[string]any{}},
				ndjson:             map[string]any{"schema": map[string]any{}},
			},
		}
	}
	problem := map[string]any{"$ref": "#/components/responses/Problem"}
	responses := map[string]any{"4XX": problem, "5XX": problem}
	if rt.status != 0 {
		sch, err := schemaOf(rt.resp)
		if err != nil {
			return nil, err
		}
		ct := rt.contentType
		if ct == "" {
			ct = "application/json"
		}
		responses[strconv.Itoa(rt.status)] = map[string]any{
			"description": http.StatusText(rt.status),
			"content":     map[string]any{ct: map[string]any{"schema": sch}},
		}
	}
	op["responses"] = responses
	// Bearer schemes in OpenAPI 3.1 may list role names; these are the
	// key's scopes. Any one of the listed requirements is enough.
	security := []any{}
	for _, sc := range rt.scopes {
		roles := []string{sc}
		if sc == scopeAuthenticated {
			roles = []string{} // any valid key
		}
		security = append(security,
			map[string]any{"bearer": roles},
			map[string]any{"apiKey": roles})
	}
	op["security"] = security
	return op, nil
}

var pathParamRE = regexp.MustCompile(`\{([^}.]+)(\.\.\.)?\}`)

// pathParams returns the names of the wildcards in a ServeMux path, which
// OpenAPI spells the same way.
func pathParams(path string) []string {
	var names []string
	for _, m := range pathParamRE.FindAllStringSubmatch(path, -1) {
		names = append(names, m[1])
	}
	return names
}

// operationID names a route from its method and path:
// "GET /memory/working/{session_id}" is getMemoryWorkingBySessionId.
func operationID(rt *route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(rt.method))
	for _, seg := range strings.Split(rt.path, "/") {
		if strings.HasPrefix(seg, "{") {
			b.WriteString("By")
			seg = strings.Trim(seg, "{}.")
		}
		for _, word := range strings.FieldsFunc(seg, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String()
}

// schemaOf returns the JSON Schema of v's type. It tells reflection what
// it cannot know: raw JSON may hold any value, times are RFC 3339 (a
// request's may also be a date or words, TIME-2), and occurred_at is a
// string read as a time.
func schemaOf(v any) (*jsonschema.Schema, error) {
	return jsonschema.ForType(reflect.TypeOf(v), &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
		reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
		reflect.TypeFor[mnemo.When]():      {Type: "string", Description: "RFC 3339, a date (2026-11-20, that day), words (last Tuesday) or a recurrence (every Sunday morning)"},
	}})
}

// problemCodes lists the codes a problem may carry, sorted.
func problemCodes() []string {
	codes := make([]string, 0, len(codeStatus))
	for c := range codeStatus {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}
