package eventseg

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func TestParseInt(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "42": 42, "-7": -7, "9223372036854775807": 1<<63 - 1, "-9223372036854775808": -1 << 63} {
		if got, ok := parseInt([]byte(in)); !ok || got != want {
			t.Errorf("parseInt(%q) = %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "-", "1x", "9223372036854775808", "-9223372036854775809", "12345678901234567890", " 1"} {
		if _, ok := parseInt([]byte(in)); ok {
			t.Errorf("parseInt(%q) accepted", in)
		}
	}
}

// TestLevelField checks that a line keeps an event's security level as
// its eighth field, and that a line of seven, written before levels were
// kept, reads as none (SEC-11).
func TestLevelField(t *testing.T) {
	sc := mnemo.Scope{TenantID: "t", AgentID: "a"}
	in := []mnemo.Event{
		{ID: "e1", Seq: 1, TS: time.Unix(1, 0).UTC(), Type: "note", Data: json.RawMessage(`{"x":1}`), SecurityLevel: mnemo.SecurityRestricted},
		{ID: "e2", Seq: 2, TS: time.Unix(2, 0).UTC(), Type: "note", Metadata: json.RawMessage(`{"m":2}`)},
	}
	body, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	var d Decoder
	var got []mnemo.Event
	if err := d.Decode(Codec, body, sc, nil, func(e mnemo.Event) bool { got = append(got, e); return true }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].SecurityLevel != mnemo.SecurityRestricted || got[1].SecurityLevel != "" || string(got[1].Metadata) != `{"m":2}` {
		t.Fatalf("decoded %+v", got)
	}
	for line, want := range map[string]string{
		"3\te3\t3000000000\tnote\ts\t{\"a\":1}\t{\"b\":2}":               "",
		"3\te3\t3000000000\tnote\ts\t{\"a\":1}\t{\"b\":2}\tconfidential": mnemo.SecurityConfidential,
		"3\te3\t3000000000\tnote\ts\t\t\t":                               "",
	} {
		e, ok, err := ParseLine([]byte(line), sc, nil)
		if err != nil || !ok || e.SecurityLevel != want || e.ID != "e3" {
			t.Errorf("ParseLine(%q) = %+v, %v, %v; want level %q", line, e, ok, err, want)
		}
	}
}
