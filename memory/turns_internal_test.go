package memory

import (
	"encoding/json"
	"testing"

	"github.com/mnemo-dev/mnemo"
)

// turnData are data a message may hold: as AddMessages writes them, and as
// a client may write or change them.
var turnData = []string{
	`{"role":"user","name":"Ana","turn":7}`,
	`{"role":"user","turn":1}`,
	`{"role":"assistant","name":"Bo \"the\" turn","turn":123456789}`,
	`{"role":"user","name":"Ana"}`,
	`{"role":"","turn":3}`,
	`{"turn":3}`,
	`{"role":"user","turn":0}`,
	`{"role":"user","turn":07}`,
	`{"role":"user","turn":-2}`,
	`{"role":"user","turn":2.5}`,
	`{"role":"user","turn":"4"}`,
	`{"role":"user","turn":1234567890123}`,
	`{"role":"user","x":{"turn":5}}`,
	`{"role":"user","turn":5,"turn":6}`,
	`{"role":"user", "turn": 8}`,
	`{"role":"user","name":"a,\"turn\":9}`,
	`{"turn":2,"role":"user"}`,
	`{"role":"user","turn":4} `,
	`[1,"turn"]`,
	`"turn"`,
	``,
}

func TestTurnNumber(t *testing.T) {
	for _, data := range turnData {
		for _, typ := range []string{mnemo.TypeEvent, mnemo.TypeFact} {
			m := mnemo.Memory{Type: typ, Data: json.RawMessage(data)}
			if got, want := turnNumber(&m), messageOf(&m).Turn; got != want {
				t.Errorf("%s %s: turnNumber %d, decoded %d", typ, data, got, want)
			}
		}
	}
}

// FuzzTurnNumber checks that reading a turn's number without decoding
// the data agrees with decoding it, whatever the data.
func FuzzTurnNumber(f *testing.F) {
	for _, data := range turnData {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data string) {
		m := mnemo.Memory{Type: mnemo.TypeEvent, Data: json.RawMessage(data)}
		if got, want := turnNumber(&m), messageOf(&m).Turn; got != want {
			t.Errorf("%q: turnNumber %d, decoded %d", data, got, want)
		}
	})
}
