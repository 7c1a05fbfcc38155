package builtin

import (
	"context"
	"testing"
)

// BenchmarkQuery embeds one query at a time, as recall does: an English
// one and a Chinese one, whose words the lexicon looks up (EMB-7).
func BenchmarkQuery(b *testing.B) {
	e := New()
	for _, q := range []struct{ name, text string }{
		{"en", "How does the user take her coffee in the morning?"},
		{"zh", "用户早上的咖啡怎么喝？"},
	} {
		b.Run(q.name, func(b *testing.B) {
			ctx := context.Background()
			if _, err := e.Embed(ctx, []string{q.text}); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := e.Embed(ctx, []string{q.text}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
