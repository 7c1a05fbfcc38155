package security_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/security"
)

// secretMemory is a memory whose every field that speaks says "Zircon".
func secretMemory(level string) mnemo.Memory {
	return mnemo.Memory{
		ID: "m1", Key: "/ops/vault", Content: "The vault code is Zircon", Summary: "Zircon",
		Data: json.RawMessage(`{"code":"Zircon"}`), SecurityLevel: level, Entities: []string{"Zircon"},
		Occurred:  &mnemo.Occurred{Start: time.Date(1987, 3, 14, 0, 0, 0, 0, time.UTC), End: time.Date(1987, 3, 15, 0, 0, 0, 0, time.UTC), Expression: "Zircon day", Source: mnemo.OccurredText},
		Embedding: []float32{1, 2},
	}
}

// concealed is a hand-made Concealer beside memories.
type concealed struct{ Text, Level string }

func (c *concealed) Conceal(cl security.Clearance) { c.Text = cl.Text(c.Level, c.Text) }

// TestConceal checks the gate's walk (SEC-8): every memory an answer leads
// to — by value, pointer, slice, map, interface, embedded — and every other
// Concealer is masked for a masked clearance, whole for one that reads
// everything; what the answer shares with its caller is copied, never
// changed; a level mnemo does not know is masked.
func TestConceal(t *testing.T) {
	type scored struct {
		mnemo.Memory
		Score float64
	}
	type answer struct {
		One    mnemo.Memory
		Ptr    *mnemo.Memory
		Many   []mnemo.Memory
		ByKey  map[string]mnemo.Memory
		Nested map[string][]*mnemo.Memory
		Any    any
		Scored []scored
		Other  *concealed
		Revs   []mnemo.Revision
	}
	shared := secretMemory(mnemo.SecurityRestricted)
	sharedSlice := []mnemo.Memory{secretMemory(mnemo.SecurityConfidential), secretMemory(mnemo.SecurityPublic)}
	a := answer{
		One: secretMemory(mnemo.SecurityRestricted), Ptr: &shared, Many: sharedSlice,
		ByKey:  map[string]mnemo.Memory{"k": secretMemory(mnemo.SecurityConfidential)},
		Nested: map[string][]*mnemo.Memory{"k": {&shared}},
		Any:    secretMemory("top-secret"),
		Scored: []scored{{Memory: secretMemory(mnemo.SecurityRestricted), Score: 1}},
		Other:  &concealed{Text: "Zircon", Level: mnemo.SecurityConfidential},
		Revs:   []mnemo.Revision{{Seq: 1, Memory: &shared}},
	}
	got := security.Conceal(security.Masked, a)
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	// The public memory of Many is whole: one Zircon in content, one in
	// the summary, data, entities and expression each.
	if n := strings.Count(string(b), "Zircon"); n != 5 {
		t.Errorf("%d Zircons in %s, want the public memory's 5", n, b)
	}
	for _, want := range []string{`"content":"[RESTRICTED] ****** (24 characters)"`, `"content":"[CONFIDENTIAL] ****** (24 characters)"`, `"content":"[MASKED] ****** (24 characters)"`, `"Text":"[CONFIDENTIAL] ****** (6 characters)"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %s in %s", want, b)
		}
	}
	if got.Many[0].Occurred != nil || got.Many[0].Data != nil || got.Many[0].Entities != nil || got.Many[0].Embedding != nil || got.Many[0].Summary != "[CONFIDENTIAL] ****** (6 characters)" {
		t.Errorf("a masked memory keeps what it says beside its content: %+v", got.Many[0])
	}
	// What the caller kept is as it was.
	for _, m := range []mnemo.Memory{shared, sharedSlice[0], a.ByKey["k"], *a.Nested["k"][0], *a.Revs[0].Memory} {
		if m.Content != "The vault code is Zircon" || len(m.Entities) != 1 || m.Occurred == nil {
			t.Errorf("the caller's memory changed: %+v", m)
		}
	}
	if a.Other.Text != "Zircon" {
		t.Errorf("the caller's concealer changed: %+v", a.Other)
	}
	// Masking twice changes nothing more.
	if again, _ := json.Marshal(security.Conceal(security.Masked, got)); string(again) != string(b) {
		t.Errorf("masked twice: %s, want %s", again, b)
	}
	// A clearance that reads everything reads it all whole.
	if whole, _ := json.Marshal(security.Conceal(security.Clearance{}, a)); strings.Contains(string(whole), "******") {
		t.Errorf("whole clearance masked: %s", whole)
	}
}

// TestConcealAs checks that a memory read at a higher level than its own
// (a key's old revision) is masked at that level, and never at a lower one.
func TestConcealAs(t *testing.T) {
	for _, tt := range []struct {
		own, as, want string
	}{
		{mnemo.SecurityInternal, mnemo.SecurityRestricted, "[RESTRICTED]"},
		{mnemo.SecurityConfidential, mnemo.SecurityPublic, "[CONFIDENTIAL]"},
		{mnemo.SecurityInternal, "", "The vault"},
		{"", mnemo.SecurityInternal, "The vault"},
	} {
		m := secretMemory(tt.own)
		security.Masked.MemoryAs(&m, tt.as)
		if !strings.HasPrefix(m.Content, tt.want) {
			t.Errorf("%s read as %s: %q, want %s…", tt.own, tt.as, m.Content, tt.want)
		}
	}
}

// TestClearance checks the order of clearances and levels.
func TestClearance(t *testing.T) {
	whole, masked, public := security.Clearance{}, security.Masked, security.Clearance{Level: mnemo.SecurityPublic}
	if whole.Stricter(masked) != masked || masked.Stricter(whole) != masked || masked.Stricter(public) != public || public.Stricter(masked) != public {
		t.Error("Stricter does not pick the clearance that reads less")
	}
	for _, tt := range []struct {
		c     security.Clearance
		level string
		want  bool
	}{
		{whole, mnemo.SecurityRestricted, false},
		{whole, "nonsense", false},
		{masked, mnemo.SecurityInternal, false},
		{masked, "", false},
		{masked, mnemo.SecurityConfidential, true},
		{masked, "nonsense", true},
		{public, mnemo.SecurityInternal, true},
		{public, mnemo.SecurityPublic, false},
	} {
		if got := tt.c.Conceals(tt.level); got != tt.want {
			t.Errorf("%+v conceals %q: %v", tt.c, tt.level, got)
		}
	}
	if got := mnemo.Highest(mnemo.SecurityPublic, mnemo.SecurityRestricted, mnemo.SecurityInternal); got != mnemo.SecurityRestricted {
		t.Errorf("Highest = %q", got)
	}
}
