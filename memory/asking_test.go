package memory_test

import "testing"

// TestAskingWords: a question that asks to be reminded or told ("can you
// remind me what I told you about…") is searched for what it asks about,
// not for the memories that say "remind" or "tell" (REC-31).
func TestAskingWords(t *testing.T) {
	c := newClock()
	svc := newTimeService(t, c)
	written := []dated{
		{text: "Remind me to tell Sam about the quarterly report"},
		{text: "Sam told me the meeting moved to Tuesday"},
		{text: "Tell Priya I said thanks for the recipe"},
		{text: "Do you remember the name of that café? I keep forgetting"},
		{text: "My sister's wedding is in June, in Porto"},
		{text: "I talked to my manager about a raise"},
		{text: "记得提醒我明天给妈妈打电话"},
		{text: "你说过要记得提醒我跟你一起去交房租"},
		{text: "我妹妹的婚礼在六月，在波尔图"},
	}
	ids := rememberAt(t, svc, c, alice, written)
	firstAnswers(t, svc, alice, written, ids, []asked{
		{"Can you remind me what I told you about my sister's wedding?", 4},
		{"Do you remember what I said about the wedding?", 4},
		{"What did I tell you about my raise?", 5},
		{"remind me about the quarterly report", 0},
		{"你还记得我跟你说过我妹妹的婚礼吗？", 8},
		{"提醒我妹妹婚礼在哪里", 8},
	})
}
