package importers

import (
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// Any id a tool writes makes a valid key segment and session id (IMP-2):
// an import never fails on a name, and two ids never share a segment
// unless they are the same id.
func FuzzSegment(f *testing.F) {
	for _, s := range []string{"c-lisbon", "", ".", "..", "a/b", "a b", "\x00", "\xff", "%2F", string(make([]byte, 300))} {
		f.Add(s, "other")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, id := range []string{a, b} {
			key := Root + "/" + string(ChatGPT) + "/" + segment(id) + "/" + segment(id)
			if norm, err := mnemo.NormalizeKey(key); err != nil || norm != key {
				t.Fatalf("id %q: key %q: %v (normalised %q)", id, key, err, norm)
			}
			if _, err := mnemo.CheckID("session_id", sessionID(Codex, id), false); err != nil {
				t.Fatalf("id %q: session %q: %v", id, sessionID(Codex, id), err)
			}
		}
		if clean(a) != clean(b) && segment(a) == segment(b) {
			t.Fatalf("ids %q and %q share the segment %q", a, b, segment(a))
		}
	})
}
