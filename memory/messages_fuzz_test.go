package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// FuzzAddMessages: whatever messages a client sends, a session at once or
// a few a call (each reading the session's earlier lines as context,
// REC-33), each is stored as one memory as sent, said by the name sent or,
// with none, by none or the name its text opens with (REC-35), or the call
// is refused with a coded error: never EINTERNAL, never a panic. spec is a
// message a line, "role|name|content".
func FuzzAddMessages(f *testing.F) {
	for _, s := range []struct {
		spec string
		per  uint8
	}{
		{"user|Ann|Hi there. I adopted a dog!\nuser|Bo|What breed?\nuser|Bo|Tell me.\nuser|Ann|A beagle.", 0},
		{"user|Ann|one\nuser|Ann|two\nuser|Ann|three\nassistant||four", 1},
		{"user||a\nuser||b\nassistant||c\nuser||d", 2},
		{"|x|y", 1},
		{"user|" + strings.Repeat("n", 200) + "|z", 0},
		{"user|Ann|\nuser|Bo|  ", 3},
		{"user|Ann|" + strings.Repeat("word ", 300), 1},
		{"user||Ann: hi\nuser||Bo: hello\nuser||Note: x\nassistant|Cy|Ann: no", 1},
		{"user||小明：你好\nuser||小红：嗨", 0},
	} {
		f.Add(s.spec, s.per)
	}
	ctx := context.Background()
	svc := newFuzzService(f)
	sessions := 0
	f.Fuzz(func(t *testing.T, spec string, per uint8) {
		msgs := specMessages(spec, 64)
		sessions++
		session := fmt.Sprintf("s%d", sessions)
		n := int(per % 4)
		if n == 0 {
			n = len(msgs)
		}
		for part := range slices.Chunk(msgs, n) {
			ms, err := svc.AddMessages(ctx, alice, session, part)
			if err != nil {
				if code := mnemo.ErrorCode(err); code == mnemo.EINTERNAL {
					t.Fatalf("AddMessages(%+v) = %v (%s)", part, err, code)
				}
				return
			}
			if len(ms) != len(part) {
				t.Fatalf("AddMessages(%+v) stored %d memories", part, len(ms))
			}
			for i, m := range ms {
				if m.Content != strings.TrimSpace(part[i].Content) || m.SessionID != session {
					t.Fatalf("message %d stored as %+v", i, m)
				}
				var data struct{ Name string }
				if err := json.Unmarshal(m.Data, &data); err != nil {
					t.Fatalf("message %d: data %q: %v", i, m.Data, err)
				}
				sent := strings.TrimSpace(part[i].Name)
				fromText := sent == "" && (strings.HasPrefix(m.Content, data.Name+": ") || strings.HasPrefix(m.Content, data.Name+"："))
				if data.Name != sent && !fromText {
					t.Fatalf("message %d: %q sent with the name %q stored said by %q", i, m.Content, sent, data.Name)
				}
			}
		}
	})
}

// FuzzEditMessages: whatever a session holds and however it was sent, a
// message of it corrected or forgotten for good leaves none of its words
// in the index (REC-37): a word only it said finds nothing afterwards,
// and the edit fails, if it does, with a coded error, never EINTERNAL,
// never a panic. spec is as FuzzAddMessages's; k picks the message, and
// an empty edit forgets it, any other corrects it to edit.
func FuzzEditMessages(f *testing.F) {
	for _, s := range []struct {
		spec, edit string
		per, k     uint8
	}{
		{"user|Ann|Hi there. I adopted a dog!\nuser|Bo|What breed?\nuser|Bo|Tell me.\nuser|Ann|A beagle.", "", 0, 1},
		{"user|Ann|one\nuser|Ann|two\nuser|Ann|three\nassistant||four", "deux", 1, 2},
		{"user||a\nuser||b\nassistant||c\nuser||d", "", 2, 0},
		{"user|Ann|" + strings.Repeat("word ", 300) + "\nuser|Bo|short", "long gone", 1, 0},
		{"user||Ann: hi\nuser||Bo: hello\nuser||Ann: secret\nassistant|Cy|Ann: no", "", 3, 2},
		{"user||小明：你好\nuser||小红：嗨", "你好", 0, 1},
	} {
		f.Add(s.spec, s.per, s.k, s.edit)
	}
	ctx := context.Background()
	svc := newFuzzService(f)
	sessions := 0
	f.Fuzz(func(t *testing.T, spec string, per, k uint8, edit string) {
		msgs := specMessages(spec, 32)
		sessions++
		session := fmt.Sprintf("s%d", sessions)
		// A word no other message of the store says.
		secret := "zqx" + strings.Map(func(r rune) rune { return 'a' + (r-'0')%10 }, fmt.Sprint(sessions))
		target := &msgs[int(k)%len(msgs)]
		target.Content += " " + secret
		n := int(per % 4)
		if n == 0 {
			n = len(msgs)
		}
		for part := range slices.Chunk(msgs, n) {
			if _, err := svc.AddMessages(ctx, alice, session, part); err != nil {
				if code := mnemo.ErrorCode(err); code == mnemo.EINTERNAL {
					t.Fatalf("AddMessages(%+v) = %v (%s)", part, err, code)
				}
				return
			}
		}
		stored, _, err := svc.List(ctx, alice, mnemo.ListQuery{Filter: mnemo.Filter{SessionID: session}, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(stored, func(m mnemo.Memory) bool { return strings.Contains(m.Content, secret) })
		if i < 0 {
			t.Fatalf("no message of %d holds %s", len(stored), secret)
		}
		if edit == "" {
			if n, err := svc.Forget(ctx, alice, []string{stored[i].ID}, nil); err != nil || n != 1 {
				t.Fatalf("Forget = %d, %v", n, err)
			}
		} else {
			for strings.Contains(edit, "zqx") {
				edit = strings.ReplaceAll(edit, "zqx", "")
			}
			if _, err := svc.Update(ctx, alice, stored[i].ID, memory.Patch{Content: &edit}, "fuzz"); err != nil {
				if code := mnemo.ErrorCode(err); code == mnemo.EINTERNAL {
					t.Fatalf("Update(%q) = %v (%s)", edit, err, code)
				}
				return
			}
		}
		res, err := svc.Surface(ctx, alice, memory.Query{Text: secret, Profile: "lexical", Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) > 0 {
			t.Fatalf("%s, said by a message edited out, finds %d: %q", secret, len(res.Results), res.Results[0].Content)
		}
	})
}

// specMessages reads up to n messages of a fuzzer's spec, a message a
// line, "role|name|content".
func specMessages(spec string, n int) []memory.Message {
	var msgs []memory.Message
	for i, line := range strings.Split(spec, "\n") {
		if i == n {
			break
		}
		parts := strings.SplitN(line, "|", 3)
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		msgs = append(msgs, memory.Message{Role: parts[0], Name: parts[1], Content: parts[2]})
	}
	return msgs
}
