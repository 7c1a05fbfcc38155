package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/mcp"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// edgeTexts are analysis edge cases (issue 15): a text of only prefix
// tokens once ended the process from the remember tool.
var edgeTexts = []string{
	"the of and is", "Python*", "foo*bar*", "Deploys* Tuesdays*", "?!.,;:",
	"的了我们因为", "🎉🚀 👨‍👩‍👧", "שלום مرحبا \u200f", "e\u0301\u0301 \u0301",
	strings.Repeat("a", 2000), "",
}

// syncLog collects what the server logs.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// FuzzTools calls every tool, picked by number, with any JSON arguments,
// through a real server in process over a real SQLite store. A call may
// fail as bad input, but never as internal, never with a recovered panic,
// and the session goes on serving.
func FuzzTools(f *testing.F) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(f.TempDir(), "m.db"), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	svc := service.New(db, service.Options{Embedder: hashed.New(64)})
	if err := svc.Init(ctx); err != nil {
		f.Fatal(err)
	}
	var logs syncLog
	srv := mcp.NewServer(svc, mcp.Options{Scope: alice, Version: "fuzz", Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError}))})
	ct, st := mcpsdk.NewInMemoryTransports()
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(sctx, st) }()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "fuzz", Version: "0"}, nil).Connect(sctx, ct, nil)
	if err != nil {
		cancel()
		f.Fatal(err)
	}
	f.Cleanup(func() { cs.Close(); cancel(); <-done })
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		f.Fatal(err)
	}
	tools := list.Tools
	slices.SortFunc(tools, func(a, b *mcpsdk.Tool) int { return strings.Compare(a.Name, b.Name) })

	// Seeds: each tool with each edge text in every string argument.
	for i, tool := range tools {
		f.Add(uint8(i), []byte(`{}`))
		var schema struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		}
		b, _ := json.Marshal(tool.InputSchema)
		json.Unmarshal(b, &schema)
		for _, text := range edgeTexts {
			args := map[string]any{}
			for name, p := range schema.Properties {
				if p.Type == "string" {
					args[name] = text
				}
			}
			b, _ := json.Marshal(args)
			f.Add(uint8(i), b)
		}
		// Arguments at and past the depth limits (API-21).
		for _, n := range []int{mnemo.MaxJSONDepth, mnemo.MaxJSONDepth + 1, mnemo.MaxRequestDepth + 1} {
			deep := strings.Repeat("[", n) + strings.Repeat("]", n)
			f.Add(uint8(i), []byte(`{"key":"/deep","json_content":`+deep+`,"source":"fuzz","content":"x"}`))
		}
	}
	f.Fuzz(func(t *testing.T, n uint8, args []byte) {
		if !json.Valid(args) {
			return // the client cannot send it; the JSON-RPC layer's own fuzzing is the SDK's
		}
		tool := tools[int(n)%len(tools)].Name
		res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err == nil && res.IsError {
			text := res.Content[0].(*mcpsdk.TextContent).Text
			if strings.HasPrefix(text, mnemo.EINTERNAL+":") {
				t.Fatalf("%s %s: %s\n%s", tool, args, text, logs.String())
			}
		}
		if s := logs.String(); strings.Contains(s, "recovered from a panic") {
			t.Fatalf("%s %s: a panic:\n%s", tool, args, s)
		}
		if err != nil { // a protocol error: the session must still serve
			if _, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "status"}); err != nil {
				t.Fatalf("%s %s broke the session: %v", tool, args, err)
			}
		}
	})
}
