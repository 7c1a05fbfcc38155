package events_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

// FuzzEventLayerParsers feeds arbitrary data and metadata to the readers
// L3, L2-from-text and the profile apply to every event: none panics, a
// media list is valid or refused with invalid_input, and what the rules
// find is non-empty text of the input.
func FuzzEventLayerParsers(f *testing.F) {
	f.Add([]byte(`{"text":"Meet Ada in Berlin?"}`), []byte(`{"media":[{"uri":"file:///a.png","mime":"image/png"}]}`))
	f.Add([]byte(`"我喜欢《三体》，我需要去上海市"`), []byte(`{"media":"x"}`))
	f.Add([]byte(`[{"note":"a b"},{"x":["c d"]}]`), []byte(`{"media":[{"uri":"","mime":"audio/wav"}]}`))
	f.Fuzz(func(t *testing.T, data, metadata []byte) {
		e := mnemo.Event{Type: "x", Data: data, Metadata: metadata}
		text := events.Text(e)
		if !json.Valid(data) && text != "" {
			t.Fatalf("text %q from invalid JSON", text)
		}
		refs, err := events.Media(e)
		if err != nil && mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Fatalf("Media: %v", err)
		}
		for _, r := range refs {
			if r.URI == "" || r.Modality() == "" {
				t.Fatalf("accepted %+v", r)
			}
		}
		for _, s := range []string{text, string(data)} {
			an := events.AnalyzeTextRules(s)
			for _, ent := range an.Entities {
				if strings.TrimSpace(ent) == "" || (utf8.ValidString(s) && !utf8.ValidString(ent)) {
					t.Fatalf("entity %q of %q", ent, s)
				}
			}
			if an.Intent == "" {
				t.Fatalf("no intent for %q", s)
			}
			p := events.ProfileRules([]string{s})
			for _, i := range append(p.Interests, p.Needs...) {
				if strings.TrimSpace(i) == "" {
					t.Fatalf("empty finding of %q", s)
				}
			}
		}
	})
}
