package main

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/webhook"
)

// EventsConfig is the events section: the event layers (EVT-1). Unset
// fields keep the events package's defaults.
type EventsConfig struct {
	Strict     bool          `yaml:"strict"`      // refuse types not in known_types
	KnownTypes []string      `yaml:"known_types"` // the types strict mode accepts
	ColdAfter  time.Duration `yaml:"cold_after"`  // events older move to compressed cold segments (2160h)
	// Tasks say what a task, a success and an error are in events, for
	// summaries (L4) and capabilities (L5).
	Tasks EventTasksConfig `yaml:"tasks"`
	// Relations are L2's rules for structured events.
	Relations EventRelationsConfig `yaml:"relations"`
	// TextRelations extract entity, emotion and intent relations from
	// events' text in the background (by llm when set, else rules).
	TextRelations TextRelationsConfig `yaml:"text_relations"`
	// Profile is the adaptive user profile's update schedule.
	Profile EventProfileConfig `yaml:"profile"`
	// Vectors are L3's embeddings of events: text by the embedding
	// section's embedder, media by one embedder per modality.
	Vectors EventVectorsConfig `yaml:"vectors"`
	// Webhook is how replays POST to a subscriber.
	Webhook WebhookConfig `yaml:"webhook"`
}

// EventTasksConfig is events.tasks; unset fields keep
// events.DefaultTaskRules'.
type EventTasksConfig struct {
	SuccessSuffixes []string `yaml:"success_suffixes"` // Completed, Succeeded, Success, Done, Finished
	FailureSuffixes []string `yaml:"failure_suffixes"` // Failed, Failure, Errored, Aborted
	ErrorSuffixes   []string `yaml:"error_suffixes"`   // Failed, Failure, Error, Errored, Exception
	SuccessStatuses []string `yaml:"success_statuses"` // data.status values: success, ok, done, ...
	FailureStatuses []string `yaml:"failure_statuses"` // failure, failed, error, ...
	TaskField       string   `yaml:"task_field"`       // the data field naming the task type: task_type
	MinSuccesses    int      `yaml:"min_successes"`    // successes that make a capability: 3
}

// EventRelationsConfig is events.relations; unset fields keep
// events.DefaultRelationRules'.
type EventRelationsConfig struct {
	Temporal      *bool               `yaml:"temporal"`       // an edge from each event to the previous one of its source (true)
	StartSuffixes []string            `yaml:"start_suffixes"` // Started, Start
	EndSuffixes   []string            `yaml:"end_suffixes"`   // Stopped, Finished, Completed, ...
	ErrorSuffixes []string            `yaml:"error_suffixes"` // Failed, Error, Failure
	RetrySuffixes []string            `yaml:"retry_suffixes"` // Retry, Retried, Retrying
	Pairs         map[string][]string `yaml:"pairs"`          // end type: the start types it closes
}

// TextRelationsConfig is events.text_relations.
type TextRelationsConfig struct {
	Enabled bool `yaml:"enabled"`
	Queue   int  `yaml:"queue"` // events waiting for extraction; more are dropped with a warning (4096)
}

// EventProfileConfig is events.profile.
type EventProfileConfig struct {
	InteractionTypes []string      `yaml:"interaction_types"` // event types that count as an interaction; none: only the API records them
	Initial          int           `yaml:"initial"`           // interactions updating it each (100)
	Ladder           []int         `yaml:"ladder"`            // then every n interactions: 1, 5, 10, 50
	PerStage         int           `yaml:"per_stage"`         // updates at each step of the ladder (10)
	Weekly           time.Duration `yaml:"weekly"`            // then this often (168h)
}

// EventVectorsConfig is events.vectors.
type EventVectorsConfig struct {
	Disabled     bool                            `yaml:"disabled"`      // keep events without vectors
	KeepFor      time.Duration                   `yaml:"keep_for"`      // vectors older are pruned (720h) ...
	KeepAccessed int                             `yaml:"keep_accessed"` // ... unless searches found them this often (3)
	Media        map[string]OpenAIEmbedderConfig `yaml:"media"`         // image, audio, video: an OpenAI-compatible endpoint each
}

// WebhookConfig is events.webhook.
type WebhookConfig struct {
	Timeout    time.Duration `yaml:"timeout"`     // one request (10s)
	Attempts   int           `yaml:"attempts"`    // tries per event before giving up (5)
	Backoff    time.Duration `yaml:"backoff"`     // after the first failure, doubled each time (200ms) ...
	MaxBackoff time.Duration `yaml:"max_backoff"` // ... up to this (5s)
}

// validate checks the events section.
func (c *EventsConfig) validate() error {
	if c.Strict && len(c.KnownTypes) == 0 {
		return &ConfigError{"events.known_types", "strict mode needs the list of known event types"}
	}
	if c.ColdAfter < 0 {
		return &ConfigError{"events.cold_after", "must not be negative"}
	}
	if c.Tasks.MinSuccesses < 0 {
		return &ConfigError{"events.tasks.min_successes", "must not be negative (0 means 3)"}
	}
	for _, v := range []struct {
		field string
		n     int
	}{
		{"events.text_relations.queue", c.TextRelations.Queue}, {"events.profile.initial", c.Profile.Initial},
		{"events.profile.per_stage", c.Profile.PerStage}, {"events.vectors.keep_accessed", c.Vectors.KeepAccessed},
		{"events.webhook.attempts", c.Webhook.Attempts},
	} {
		if v.n < 0 {
			return &ConfigError{v.field, "must not be negative (0 means the default)"}
		}
	}
	if c.TextRelations.Queue > 1<<20 {
		return &ConfigError{"events.text_relations.queue", "must be at most 1048576"}
	}
	for i, n := range c.Profile.Ladder {
		if n < 1 {
			return &ConfigError{fmt.Sprintf("events.profile.ladder[%d]", i), "must be at least 1 (every n interactions)"}
		}
	}
	for _, d := range []struct {
		field string
		d     time.Duration
	}{
		{"events.profile.weekly", c.Profile.Weekly}, {"events.vectors.keep_for", c.Vectors.KeepFor},
		{"events.webhook.timeout", c.Webhook.Timeout}, {"events.webhook.backoff", c.Webhook.Backoff},
		{"events.webhook.max_backoff", c.Webhook.MaxBackoff},
	} {
		if d.d < 0 {
			return &ConfigError{d.field, "must not be negative (0 means the default)"}
		}
	}
	if c.Profile.Weekly > 0 && c.Profile.Weekly < time.Minute {
		return &ConfigError{"events.profile.weekly", "must be at least 1m"}
	}
	if c.Vectors.KeepFor > 0 && c.Vectors.KeepFor < time.Hour {
		return &ConfigError{"events.vectors.keep_for", "must be at least 1h"}
	}
	for _, t := range c.Profile.InteractionTypes {
		if strings.TrimSpace(t) == "" {
			return &ConfigError{"events.profile.interaction_types", "must not hold an empty type"}
		}
	}
	for end, starts := range c.Relations.Pairs {
		if strings.TrimSpace(end) == "" || len(starts) == 0 {
			return &ConfigError{"events.relations.pairs", "each end type needs a name and at least one start type"}
		}
	}
	for _, mod := range slices.Sorted(maps.Keys(c.Vectors.Media)) {
		field := "events.vectors.media." + mod
		switch mod {
		case mnemo.ModalityImage, mnemo.ModalityAudio, mnemo.ModalityVideo:
		default:
			return &ConfigError{field, "the modality must be image, audio or video"}
		}
		if _, err := c.Vectors.Media[mod].embedder(field); err != nil {
			return err
		}
	}
	return nil
}

// taskRules returns the configured task conventions.
func (c *Config) taskRules() events.TaskRules {
	t := c.Events.Tasks
	return events.TaskRules{SuccessSuffixes: t.SuccessSuffixes, FailureSuffixes: t.FailureSuffixes, ErrorSuffixes: t.ErrorSuffixes,
		SuccessStatuses: t.SuccessStatuses, FailureStatuses: t.FailureStatuses, TaskField: t.TaskField, MinSuccesses: t.MinSuccesses}
}

// relationRules returns the configured L2 rules over the defaults.
func (c *Config) relationRules() *events.RelationRules {
	r, e := events.DefaultRelationRules(), c.Events.Relations
	if e.Temporal != nil {
		r.Temporal = *e.Temporal
	}
	for _, l := range []struct{ dst, src *[]string }{
		{&r.StartSuffixes, &e.StartSuffixes}, {&r.EndSuffixes, &e.EndSuffixes},
		{&r.ErrorSuffixes, &e.ErrorSuffixes}, {&r.RetrySuffixes, &e.RetrySuffixes},
	} {
		if len(*l.src) > 0 {
			*l.dst = *l.src
		}
	}
	if len(e.Pairs) > 0 {
		r.Pairs = e.Pairs
	}
	return &r
}

// eventOptions returns the configured event layers, with the media
// embedders made; the models (Insighter, Analyzer, ...) are the caller's.
func (c *Config) eventOptions() (events.Options, error) {
	e := c.Events
	o := events.Options{
		Strict: e.Strict, KnownTypes: e.KnownTypes, ColdAfter: e.ColdAfter,
		Rules: c.relationRules(), Tasks: c.taskRules(),
		TextRelations: events.TextRelationOptions{On: e.TextRelations.Enabled, Queue: e.TextRelations.Queue},
		Profile: events.ProfileOptions{
			Initial: e.Profile.Initial, Ladder: e.Profile.Ladder, PerStage: e.Profile.PerStage,
			Weekly: e.Profile.Weekly, InteractionTypes: e.Profile.InteractionTypes,
		},
		Vectors: events.VectorOptions{Off: e.Vectors.Disabled, KeepFor: e.Vectors.KeepFor, KeepAccessed: e.Vectors.KeepAccessed},
	}
	for mod, m := range e.Vectors.Media {
		emb, err := m.embedder("events.vectors.media." + mod)
		if err != nil {
			return o, err
		}
		if o.Vectors.Media == nil {
			o.Vectors.Media = map[string]mnemo.Embedder{}
		}
		o.Vectors.Media[mod] = emb
	}
	return o, nil
}

// webhookOptions returns how replays POST to a webhook.
func (c *Config) webhookOptions() webhook.Options {
	w := c.Events.Webhook
	o := webhook.Options{Attempts: w.Attempts, Backoff: w.Backoff, MaxBackoff: w.MaxBackoff}
	if w.Timeout > 0 {
		o.Client = &http.Client{Timeout: w.Timeout}
	}
	return o
}
