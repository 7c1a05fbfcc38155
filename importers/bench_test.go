package importers_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-dev/mnemo/importers"
	"github.com/mnemo-dev/mnemo/internal/testkit"
)

// chatgptOf is a conversations.json of convs conversations of turns
// messages each, every message answering the one before.
func chatgptOf(tb testing.TB, convs, turns int) []byte {
	var list []any
	for c := range convs {
		mapping := map[string]any{"root": gptNode("root", "", []string{"n0"}, nil)}
		parent := "root"
		for i := range turns {
			id := fmt.Sprintf("n%d", i)
			role := []string{"user", "assistant"}[i%2]
			next := []string{fmt.Sprintf("n%d", i+1)}
			if i == turns-1 {
				next = nil
			}
			mapping[id] = gptNode(id, parent, next, gptMsg(fmt.Sprintf("m%d", i), role, 1700000000+float64(c*turns+i),
				fmt.Sprintf("message %d of conversation %d about topic %d and its details", i, c, (c*7+i)%50)))
			parent = id
		}
		list = append(list, map[string]any{"id": fmt.Sprintf("c%d", c), "title": "t", "create_time": 1700000000.0,
			"current_node": fmt.Sprintf("n%d", turns-1), "mapping": mapping})
	}
	return mustJSON(tb, list)
}

// BenchmarkReadChatGPT: reading an export of 100 conversations of 50
// messages, bytes per second.
func BenchmarkReadChatGPT(b *testing.B) {
	in := chatgptOf(b, 100, 50)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := importers.Read(importers.ChatGPT, "", bytes.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportChatGPT: storing 20 conversations of 50 messages in a
// fresh SQLite store, without an embedder; ns/op is per message.
func BenchmarkImportChatGPT(b *testing.B) {
	h0, err := importers.Read(importers.ChatGPT, "", bytes.NewReader(chatgptOf(b, 20, 50)))
	if err != nil {
		b.Fatal(err)
	}
	n := h0.Messages()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		svc := testkit.NewService(b, testkit.NewClock())
		h, _ := importers.Read(importers.ChatGPT, "", bytes.NewReader(chatgptOf(b, 20, 50)))
		b.StartTimer()
		if _, err := importers.Import(context.Background(), svc, testkit.Alice, importers.ChatGPT, h, importers.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/message")
}
