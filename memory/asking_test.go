package memory_test

import (
	"context"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// TestAskingWords: a question that asks to be reminded or told ("can you
// remind me what I told you about…") is searched for what it asks about,
// not for the memories that say "remind" or "tell" (REC-31).
func TestAskingWords(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc := newTimeService(t, c)
	texts := []string{
		"Remind me to tell Sam about the quarterly report",
		"Sam told me the meeting moved to Tuesday",
		"Tell Priya I said thanks for the recipe",
		"Do you remember the name of that café? I keep forgetting",
		"My sister's wedding is in June, in Porto",
		"I talked to my manager about a raise",
		"记得提醒我明天给妈妈打电话",
		"你说过要记得提醒我跟你一起去交房租",
		"我妹妹的婚礼在六月，在波尔图",
	}
	ids := map[string]string{}
	for _, text := range texts {
		m, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str(text)})
		if err != nil {
			t.Fatal(err)
		}
		ids[text] = m.ID
	}
	for _, q := range []struct{ text, want string }{
		{"Can you remind me what I told you about my sister's wedding?", texts[4]},
		{"Do you remember what I said about the wedding?", texts[4]},
		{"What did I tell you about my raise?", texts[5]},
		{"remind me about the quarterly report", texts[0]},
		{"你还记得我跟你说过我妹妹的婚礼吗？", texts[8]},
		{"提醒我妹妹婚礼在哪里", texts[8]},
	} {
		res, err := svc.Recall(ctx, alice, memory.Query{Text: q.text, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || res.Results[0].ID != ids[q.want] {
			first := "nothing"
			if len(res.Results) > 0 {
				first = res.Results[0].Content
			}
			t.Errorf("%q: first %q, want %q", q.text, first, q.want)
		}
	}
}
