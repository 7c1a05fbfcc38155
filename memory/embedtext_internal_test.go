package memory

import (
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// TestEmbedText: a message's vector reads what was said, by whom, and the
// last words of the turn before it that fit in the room the message leaves
// of embedWords: none beside a long message.
func TestEmbedText(t *testing.T) {
	long := strings.Repeat("the assistant explains the migration plan in detail ", 20) + "does that answer it?"
	longWords := strings.Fields(long)
	reply := "I adopted a kitten."
	longReply := strings.Repeat("We talked about the garden and the weather again. ", 12)
	tests := []struct {
		name, content, data, prev, want string
	}{
		{"no prev", reply, "", "", reply},
		{"short prev whole", "Yes, last May.", "", "Did you visit Paris?", "Yes, last May.\nDid you visit Paris?"},
		{"speaker", "Yes, last May.", `{"role":"user","name":"Mel"}`, "Ana: Did you visit Paris?", "Mel: Yes, last May.\nAna: Did you visit Paris?"},
		{"long prev: its last words", reply, "", long, reply + "\n" + strings.Join(longWords[len(longWords)-(embedWords-4):], " ")},
		{"long message: no prev", longReply, "", "Did you visit Paris?", longReply},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &mnemo.Memory{Content: tt.content, Type: mnemo.TypeEvent}
			if tt.data != "" {
				m.Data = []byte(tt.data)
			}
			if got := embedText(m, tt.prev); got != tt.want {
				t.Fatalf("embedText = %q, want %q", got, tt.want)
			}
		})
	}
}
