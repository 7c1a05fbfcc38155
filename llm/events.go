package llm

import (
	"context"
	"strings"

	"github.com/mnemo-dev/mnemo/events"
)

// A model's readings of unstructured events: the relations of an event's
// text (L2, EVT-6) and what interactions say about the user (the profile, EVT-13). Both
// ask for strict JSON and repair once; the caller falls back to rules when
// they fail.

const eventTextPrompt = `You read one event an AI agent recorded (a user's message, a tool's output, a note) and find its relations.
Reply with a JSON object only: {"entities": [named things it mentions: people, places, organisations, products, projects; their names as written],
 "emotion": one of "neutral", "happy", "grateful", "sad", "angry", "anxious", "frustrated", "confused",
 "intent": one of "question", "request", "complaint", "gratitude", "inform",
 "confidence": 0 to 1, how sure you are}.`

var (
	_ events.TextAnalyzer    = (*Client)(nil)
	_ events.ProfileAnalyzer = (*Client)(nil)
)

// AnalyzeEventText implements events.TextAnalyzer.
func (c *Client) AnalyzeEventText(ctx context.Context, text string) (events.TextAnalysis, error) {
	msg := "event: " + text
	out, err := c.Chat(ctx, []Message{{Role: "system", Content: eventTextPrompt}, {Role: "user", Content: msg}}, 300, true)
	if err != nil {
		return events.TextAnalysis{}, err
	}
	var a events.TextAnalysis
	if err := c.decodeOrRepair(ctx, eventTextPrompt, msg, out, &a); err != nil {
		return events.TextAnalysis{}, err
	}
	a.Emotion = strings.ToLower(strings.TrimSpace(a.Emotion))
	a.Intent = strings.ToLower(strings.TrimSpace(a.Intent))
	a.Confidence = min(max(a.Confidence, 0), 1)
	return a, nil
}

const profilePrompt = `You read messages a user wrote to an assistant and note what they say about the user.
Reply with a JSON object only: {"interests": [topics the user likes or cares about, short lower-case phrases],
 "needs": [things the user needs or is looking for, short lower-case phrases],
 "traits": {name: value} for facts about the user (name, location, language, timezone, ...),
 "emotion": the user's emotion in the last message: one of "neutral", "happy", "grateful", "sad", "angry", "anxious", "frustrated", "confused"}.
Only what the user said or clearly implies; empty lists when there is nothing.`

// AnalyzeProfile implements events.ProfileAnalyzer.
func (c *Client) AnalyzeProfile(ctx context.Context, texts []string) (events.ProfileFindings, error) {
	var b strings.Builder
	for _, t := range texts {
		b.WriteString("- " + strings.Join(strings.Fields(t), " ") + "\n")
	}
	msg := b.String()
	out, err := c.Chat(ctx, []Message{{Role: "system", Content: profilePrompt}, {Role: "user", Content: msg}}, 400, true)
	if err != nil {
		return events.ProfileFindings{}, err
	}
	var f events.ProfileFindings
	if err := c.decodeOrRepair(ctx, profilePrompt, msg, out, &f); err != nil {
		return events.ProfileFindings{}, err
	}
	return f, nil
}
