package memory

import (
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/entity"
	"github.com/mnemo-dev/mnemo/rank"
)

// TestWhoMatch: a query naming people ranks a turn they said first, then
// another's turn about them, then the rest; a memory that is no turn is
// theirs when it is about them; and a name a turn only calls its listener
// by says nothing of them (REC-28).
func TestWhoMatch(t *testing.T) {
	turn := func(speaker, content string) mnemo.Memory {
		return mnemo.Memory{Type: mnemo.TypeEvent, Content: content, Data: []byte(`{"role":"user","name":"` + speaker + `"}`)}
	}
	note := func(content string, entities ...string) mnemo.Memory {
		return mnemo.Memory{Type: mnemo.TypeFact, Content: content, Entities: entities}
	}
	withEntities := func(m mnemo.Memory, entities ...string) mnemo.Memory {
		m.Entities = entities
		return m
	}
	tests := []struct {
		name  string
		query string
		m     mnemo.Memory
		want  float64
	}{
		{"their turn", "What has Melanie painted?", turn("Melanie", "I painted a lake sunrise last year."), 1},
		{"another's turn about them", "What has Melanie painted?", turn("Caroline", "Melanie's painting of the lake is lovely."), rank.WhoAbout},
		{"another's turn calling them", "What has Melanie painted?", turn("Caroline", "Thanks, Melanie! See you soon."), rank.WhoMiss},
		{"called and spoken of", "What has Melanie painted?", turn("Caroline", "Thanks, Melanie! I loved what Melanie painted."), rank.WhoAbout},
		{"another's turn, someone else", "What has Melanie painted?", turn("Caroline", "I went to a support group."), rank.WhoMiss},
		{"a turn its writer says is theirs", "What did Leonardo do in May?", withEntities(turn("Leo", "We went hiking in Sintra."), "Leo", "Leonardo", "Sintra"), 1},
		{"a note about them", "What has Leo painted?", note("Leo painted the shed green.", "Leo"), 1},
		{"a note by an alias", "What has Leo painted?", note("My brother painted the shed.", "Leo"), 1},
		{"a note about another", "What has Leo painted?", note("Ana painted the shed.", "Ana"), rank.WhoMiss},
		{"said: their turn", "What did Bruno say about Ana's dog?", turn("Bruno", "Your dog Rex is cute"), 1},
		{"said: a turn about them", "What did Bruno say about Ana's dog?", turn("Ana", "My dog Rex chews every shoe"), rank.WhoAbout},
		{"said: a turn calling them", "What did Bruno say about the trip?", turn("Ana", "Thanks, Bruno! The trip was fun."), rank.WhoMiss},
		{"said: a note about them", "What did Bruno say about the trip?", note("Bruno loved the trip.", "Bruno"), rank.WhoAbout},
	}
	for _, tt := range tests {
		r := &recall{who: entity.Query(tt.query), said: entity.Speakers(tt.query)}
		m := tt.m
		if m.Entities == nil {
			m.Entities = entity.Of(speakerName(&m), m.Content, nil)
		}
		if got := whoMatch(r, &m); got != tt.want {
			t.Errorf("%s: whoMatch = %v, want %v (who %q, said %q, entities %q)", tt.name, got, tt.want, r.who, r.said, m.Entities)
		}
	}
}
