package main

import (
	"testing"
	"time"
)

func TestEventsConfigValidate(t *testing.T) {
	t.Parallel()
	testSection(t, func() EventsConfig { return EventsConfig{} }, (*EventsConfig).validate, []sectionCase[EventsConfig]{
		{"strict", func(c *EventsConfig) { c.Strict, c.KnownTypes = true, []string{"AgentStarted"} }, ""},
		{"strict without types", func(c *EventsConfig) { c.Strict = true }, "events.known_types"},
		{"cold_after", func(c *EventsConfig) { c.ColdAfter = -time.Hour }, "events.cold_after"},
		{"min_successes", func(c *EventsConfig) { c.Tasks.MinSuccesses = -1 }, "events.tasks.min_successes"},
		{"queue negative", func(c *EventsConfig) { c.TextRelations.Queue = -1 }, "events.text_relations.queue"},
		{"queue too long", func(c *EventsConfig) { c.TextRelations.Queue = 1<<20 + 1 }, "events.text_relations.queue"},
		{"initial", func(c *EventsConfig) { c.Profile.Initial = -1 }, "events.profile.initial"},
		{"ladder", func(c *EventsConfig) { c.Profile.Ladder = []int{1, 0} }, "events.profile.ladder[1]"},
		{"weekly", func(c *EventsConfig) { c.Profile.Weekly = time.Second }, "events.profile.weekly"},
		{"interaction_types", func(c *EventsConfig) { c.Profile.InteractionTypes = []string{" "} }, "events.profile.interaction_types"},
		{"keep_for", func(c *EventsConfig) { c.Vectors.KeepFor = time.Minute }, "events.vectors.keep_for"},
		{"keep_accessed", func(c *EventsConfig) { c.Vectors.KeepAccessed = -1 }, "events.vectors.keep_accessed"},
		{"attempts", func(c *EventsConfig) { c.Webhook.Attempts = -1 }, "events.webhook.attempts"},
		{"max_backoff", func(c *EventsConfig) { c.Webhook.MaxBackoff = -time.Second }, "events.webhook.max_backoff"},
		{"pairs", func(c *EventsConfig) { c.Relations.Pairs = map[string][]string{"DeployDone": nil} }, "events.relations.pairs"},
		{"media modality", func(c *EventsConfig) {
			c.Vectors.Media = map[string]OpenAIEmbedderConfig{"smell": {BaseURL: "http://x/v1", Model: "m"}}
		}, "events.vectors.media.smell"},
		{"media without model", func(c *EventsConfig) {
			c.Vectors.Media = map[string]OpenAIEmbedderConfig{"audio": {BaseURL: "http://x/v1"}}
		}, "events.vectors.media.audio"},
	})
}
