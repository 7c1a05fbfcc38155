package mcp_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// seedPromptMemories stores what the prompt and resource tests read: a
// keyed fact, a confidential secret, and a short conversation.
func seedPromptMemories(t *testing.T, svc *service.Mnemo) (fact, secret mnemo.Memory) {
	t.Helper()
	ctx := t.Context()
	var err error
	if fact, err = svc.Remember(ctx, alice, mnemo.Draft{Key: "/user/preference/editor", Content: new("The user edits code in Helix with vim keys"), Type: mnemo.TypePreference}); err != nil {
		t.Fatal(err)
	}
	if secret, err = svc.Remember(ctx, alice, mnemo.Draft{Key: "/project/vault", Content: new("The Helix project vault code is swordfish"),
		SecurityLevel: mnemo.SecurityConfidential}); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour).UTC()
	if _, err := svc.AddMessages(ctx, alice, "s1", []memory.Message{
		{Role: "user", Name: "Ana", Content: "Let's migrate the billing service to Go next", CreatedAt: &at},
		{Role: "assistant", Content: "Agreed: first the invoice parser, then the API"},
	}); err != nil {
		t.Fatal(err)
	}
	// A message of another conversation, older: not the one to continue.
	old := time.Now().Add(-48 * time.Hour).UTC()
	if _, err := svc.AddMessages(ctx, alice, "s0", []memory.Message{{Role: "user", Content: "Book the dentist for Tuesday", CreatedAt: &old}}); err != nil {
		t.Fatal(err)
	}
	return fact, secret
}

// The prompts a person picks in a client (API-23) are built from what the
// memory holds, in the connection's scope, masked (SEC-3).
func TestPrompts(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			svc := newService(t)
			seedPromptMemories(t, svc)
			cs := tr.connect(t, svc)
			ctx := t.Context()
			list, err := cs.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range list.Prompts {
				names = append(names, p.Name)
			}
			if slices.Sort(names); strings.Join(names, " ") != "continue remember_about" {
				t.Fatalf("prompts %v", names)
			}

			res, err := cs.GetPrompt(ctx, &mcpsdk.GetPromptParams{Name: "remember_about", Arguments: map[string]string{"topic": "Helix"}})
			if err != nil {
				t.Fatal(err)
			}
			text := promptText(t, res)
			if !strings.Contains(text, "What do you remember about Helix?") || !strings.Contains(text, "edits code in Helix") ||
				!strings.Contains(text, "[CONFIDENTIAL]") || strings.Contains(text, "swordfish") {
				t.Fatalf("remember_about:\n%s", text)
			}

			res, err = cs.GetPrompt(ctx, &mcpsdk.GetPromptParams{Name: "continue", Arguments: map[string]string{"topic": "billing"}})
			if err != nil {
				t.Fatal(err)
			}
			text = promptText(t, res)
			for _, want := range []string{"Continue where we left off", "edits code in Helix", "## Where we left off",
				"Ana: Let's migrate the billing service to Go next", "assistant: Agreed: first the invoice parser", "## Recalled for billing"} {
				if !strings.Contains(text, want) {
					t.Fatalf("continue lacks %q:\n%s", want, text)
				}
			}
			_, left, _ := strings.Cut(text, "## Where we left off")
			left, _, _ = strings.Cut(left, "## Recalled")
			if strings.Contains(text, "swordfish") || strings.Contains(left, "Book the dentist") {
				t.Fatalf("continue shows masked text or another conversation's turn:\n%s", text)
			}

			if _, err := cs.GetPrompt(ctx, &mcpsdk.GetPromptParams{Name: "remember_about", Arguments: map[string]string{"topic": " "}}); err == nil || !strings.Contains(err.Error(), "needs a topic") {
				t.Fatalf("no topic: %v", err)
			}
		})
	}
}

func promptText(t *testing.T, res *mcpsdk.GetPromptResult) string {
	t.Helper()
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("messages %+v", res.Messages)
	}
	tc, ok := res.Messages[0].Content.(*mcpsdk.TextContent)
	if !ok {
		t.Fatalf("content %T", res.Messages[0].Content)
	}
	return tc.Text
}

// The boot context, a memory by id or key, and the key tree are resources
// (API-24), read in the connection's scope and masked (SEC-3).
func TestResources(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			svc := newService(t)
			fact, secret := seedPromptMemories(t, svc)
			cs := tr.connect(t, svc)
			ctx := t.Context()
			rs, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var uris []string
			for _, r := range rs.Resources {
				uris = append(uris, r.URI)
			}
			ts, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range ts.ResourceTemplates {
				uris = append(uris, r.URITemplate)
			}
			slices.Sort(uris)
			if got := strings.Join(uris, " "); got != "mnemo://boot mnemo://key/{+key} mnemo://keys mnemo://keys{+prefix} mnemo://memory/{id}" {
				t.Fatalf("resources %s", got)
			}

			read := func(uri string) (string, string) {
				t.Helper()
				res, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri})
				if err != nil {
					t.Fatalf("%s: %v", uri, err)
				}
				if len(res.Contents) != 1 || res.Contents[0].URI != uri {
					t.Fatalf("%s: %+v", uri, res.Contents)
				}
				return res.Contents[0].MIMEType, res.Contents[0].Text
			}
			if mime, text := read("mnemo://boot"); mime != "text/markdown" || !strings.Contains(text, "edits code in Helix") || strings.Contains(text, "swordfish") {
				t.Fatalf("boot %s:\n%s", mime, text)
			}
			var m struct {
				ID, Key, Content string
				Masked           bool
			}
			for _, uri := range []string{"mnemo://memory/" + fact.ID, "mnemo://key/user/preference/editor"} {
				_, text := read(uri)
				if err := json.Unmarshal([]byte(text), &m); err != nil || m.ID != fact.ID || m.Content != "The user edits code in Helix with vim keys" {
					t.Fatalf("%s: %s", uri, text)
				}
			}
			for _, uri := range []string{"mnemo://memory/" + secret.ID, "mnemo://key/project/vault"} {
				_, text := read(uri)
				if json.Unmarshal([]byte(text), &m); !m.Masked || strings.Contains(text, "swordfish") {
					t.Fatalf("%s is not masked: %s", uri, text)
				}
			}
			var tree struct {
				Prefix   string
				Children []mnemo.KeyChild
			}
			_, text := read("mnemo://keys")
			if json.Unmarshal([]byte(text), &tree); tree.Prefix != "" || len(tree.Children) != 2 || tree.Children[0].Name != "/project/" || tree.Children[1].Name != "/user/" {
				t.Fatalf("key tree: %s", text)
			}
			_, text = read("mnemo://keys/user/preference")
			if json.Unmarshal([]byte(text), &tree); tree.Prefix != "/user/preference/" || len(tree.Children) != 1 || tree.Children[0].Name != "editor" {
				t.Fatalf("key tree under /user/preference: %s", text)
			}

			for _, uri := range []string{"mnemo://memory/nope", "mnemo://key/user/nothing", "mnemo://memory/a/b"} {
				_, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri})
				// Not found is invalid params (-32602) in MCP (SEP-2164).
				var we *jsonrpc.Error
				if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
					t.Fatalf("%s: %v, want resource not found", uri, err)
				}
			}
		})
	}
}

// Over HTTP a resource is read in the scope of its request: another agent
// finds none of alice's memories.
func TestResourceScope(t *testing.T) {
	svc := newService(t)
	fact, _ := seedPromptMemories(t, svc)
	cs := connectHTTP(t, serveHTTP(t, svc), "bob")
	_, err := cs.ReadResource(t.Context(), &mcpsdk.ReadResourceParams{URI: "mnemo://memory/" + fact.ID})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("bob read alice's memory: %v", err)
	}
}
