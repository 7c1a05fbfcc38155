package memory

import (
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// TestEmbedText: a memory's vector reads what was said, by whom, and at
// most the last prevWords words of the turn before it, so that a long
// message before a short reply does not outweigh the reply.
func TestEmbedText(t *testing.T) {
	long := strings.Repeat("the assistant explains the migration plan in detail ", 20) + "does that answer it?"
	tests := []struct {
		name, content, data, prev, want string
	}{
		{"no prev", "I adopted a kitten.", "", "", "I adopted a kitten."},
		{"short prev whole", "Yes, last May.", "", "Did you visit Paris?", "Yes, last May.\nDid you visit Paris?"},
		{"speaker", "Yes, last May.", `{"role":"user","name":"Mel"}`, "Ana: Did you visit Paris?", "Mel: Yes, last May.\nAna: Did you visit Paris?"},
		{"long prev cut to its end", "I adopted a kitten.", "", long,
			"I adopted a kitten.\n" + strings.Join(strings.Fields(long)[len(strings.Fields(long))-prevWords:], " ")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &mnemo.Memory{Content: tt.content, Type: mnemo.TypeEvent}
			if tt.data != "" {
				m.Data = []byte(tt.data)
			}
			got := embedText(m, tt.prev)
			if got != tt.want {
				t.Fatalf("embedText = %q, want %q", got, tt.want)
			}
			if prev := strings.SplitN(got, "\n", 2); len(prev) == 2 && len(strings.Fields(prev[1])) > prevWords {
				t.Fatalf("%d words of the turn before", len(strings.Fields(prev[1])))
			}
		})
	}
}
