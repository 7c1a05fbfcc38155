package events_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

func TestAnalyzeTextRules(t *testing.T) {
	for _, tc := range []struct {
		text     string
		entities []string
		emotion  string
		intent   string
	}{
		{"Can you book a table at Luigi's in New York for Maria?", []string{"Luigi's", "New York", "Maria"}, "", events.IntentRequest},
		{"The deploy to Kubernetes failed again and I'm so frustrated.", []string{"Kubernetes"}, "frustrated", events.IntentInform},
		{"Thanks, the report from OpenAI was great!", []string{"OpenAI"}, "grateful", events.IntentGratitude},
		{"Where is the nearest station?", nil, "", events.IntentQuestion},
		{"我很担心《三体》的电影版，阿里巴巴集团会投资吗？", []string{"三体", "阿里巴巴集团"}, "anxious", events.IntentQuestion},
		{"请帮我订去上海市的机票", []string{"上海市"}, "", events.IntentRequest},
		{"this app is broken and does not work", nil, "frustrated", events.IntentComplaint},
	} {
		an := events.AnalyzeTextRules(tc.text)
		for _, e := range tc.entities {
			if !slices.Contains(an.Entities, e) {
				t.Errorf("%q: entities %q lack %q", tc.text, an.Entities, e)
			}
		}
		if tc.entities == nil && len(an.Entities) > 0 {
			t.Errorf("%q: entities %q; want none", tc.text, an.Entities)
		}
		if an.Emotion != tc.emotion || an.Intent != tc.intent {
			t.Errorf("%q: emotion %q intent %q; want %q %q", tc.text, an.Emotion, an.Intent, tc.emotion, tc.intent)
		}
	}
}

// fixedAnalyzer stands in for a model: it answers what it was given, or
// fails.
type fixedAnalyzer struct {
	an  events.TextAnalysis
	err error
}

func (f fixedAnalyzer) AnalyzeEventText(context.Context, string) (events.TextAnalysis, error) {
	return f.an, f.err
}

func TestTextRelationsAfterAppend(t *testing.T) {
	ctx := context.Background()
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	for _, tc := range []struct {
		name     string
		analyzer events.TextAnalyzer
		want     map[string]string // target → type
		conf     float64
	}{
		{"rules", nil, map[string]string{"entity:Berlin": events.RelMentions, "emotion:happy": events.RelEmotion, "intent:request": events.RelIntent}, 0.6},
		{"model", fixedAnalyzer{an: events.TextAnalysis{Entities: []string{"Berlin trip"}, Emotion: "excited", Intent: "plan", Confidence: 0.7}},
			map[string]string{"entity:Berlin trip": events.RelMentions, "emotion:excited": events.RelEmotion, "intent:plan": events.RelIntent}, 0.7},
		{"model down, rules instead", fixedAnalyzer{err: errors.New("connection refused")},
			map[string]string{"entity:Berlin": events.RelMentions, "emotion:happy": events.RelEmotion, "intent:request": events.RelIntent}, 0.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			svc, _ := newEventService(t, c, events.Options{TextRelations: events.TextRelationOptions{On: true, Analyzer: tc.analyzer}})
			es := mustAppend(t, svc, scope,
				ev("user.message", "chat", c.Now(), `{"text":"I'm so happy: please plan my trip to Berlin"}`),
				ev("AgentStarted", "worker", c.Now(), `{"task_id":"x"}`), // no prose: no text relations
				ev("user.message", "chat", c.Now().Add(time.Second), `{"text":"Please find hotels in Berlin, I'm happy with anything"}`))
			if err := svc.WaitEventRelations(ctx); err != nil {
				t.Fatal(err)
			}
			rels, err := svc.Neighbours(ctx, scope, es[0].ID, events.GraphQuery{Direction: mnemo.DirOut})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, r := range rels {
				got[r.Target] = r.Type
				if r.Type == mnemo.RelPrecedes {
					continue // the rules' temporal edge
				}
				if r.Confidence != tc.conf {
					t.Errorf("%s: confidence %g; want %g", r.Target, r.Confidence, tc.conf)
				}
			}
			for target, typ := range tc.want {
				if got[target] != typ {
					t.Errorf("relations %v; want %s → %s", got, typ, target)
				}
			}
			if tc.analyzer != nil {
				return
			}
			// The two messages meet at the entity they both mention.
			in, err := svc.Neighbours(ctx, scope, "entity:Berlin", events.GraphQuery{Direction: mnemo.DirIn})
			if err != nil || len(in) != 2 {
				t.Errorf("mentions of Berlin = %v, %v; want both messages", in, err)
			}
			if rels, err := svc.Neighbours(ctx, scope, es[1].ID, events.GraphQuery{Direction: mnemo.DirOut, Types: []string{events.RelMentions, events.RelIntent}}); err != nil || len(rels) != 0 {
				t.Errorf("structured event got text relations: %v, %v", rels, err)
			}
		})
	}
}

// slowAnalyzer blocks until released: the append must not wait for it.
type slowAnalyzer struct{ release chan struct{} }

func (s slowAnalyzer) AnalyzeEventText(ctx context.Context, _ string) (events.TextAnalysis, error) {
	select {
	case <-s.release:
	case <-ctx.Done():
	}
	return events.TextAnalysis{Intent: "later"}, nil
}

func TestTextRelationsNeverBlockAppends(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	slow := slowAnalyzer{release: make(chan struct{})}
	svc, _ := newEventService(t, c, events.Options{TextRelations: events.TextRelationOptions{On: true, Analyzer: slow, Queue: 2}})
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	// More appends than the queue holds, while the model answers nothing:
	// every append returns.
	for i := range 10 {
		mustAppend(t, svc, scope, ev("user.message", "chat", c.Now().Add(time.Duration(i)), `"a message the model reads slowly"`))
	}
	close(slow.release)
	if err := svc.WaitEventRelations(ctx); err != nil {
		t.Fatal(err)
	}
	in, err := svc.Neighbours(ctx, scope, "intent:later", events.GraphQuery{Direction: mnemo.DirIn})
	if err != nil || len(in) == 0 || len(in) > 3 {
		t.Errorf("intent relations = %d, %v; want those the queue held (1 to 3)", len(in), err)
	}
	// What the queue dropped can be extracted on demand.
	page := allEvents(t, svc, scope, mnemo.EventQuery{})
	rels, err := svc.RelateEventText(ctx, scope, page[9].ID)
	if err != nil || len(rels) != 1 || rels[0].Target != "intent:later" {
		t.Errorf("RelateEventText = %v, %v", rels, err)
	}
}
