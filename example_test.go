package mnemo_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/prompt"
	"github.com/mnemo-dev/mnemo/service"
)

// Embed mnemo in a Go program: open the embedded store with the built-in
// embedder, remember, recall by meaning as well as by words.
func Example() {
	dir, _ := os.MkdirTemp("", "mnemo-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	svc, err := service.Open(ctx, dir, service.Options{Embedder: builtin.New()})
	if err != nil {
		log.Fatal(err)
	}
	defer svc.Close()

	scope := mnemo.Scope{TenantID: "default", AgentID: "assistant"}
	pref := "The user prefers Python for data work"
	if _, err := svc.Remember(ctx, scope, mnemo.Draft{Key: "/user/preference/language", Content: &pref, Category: "preference"}); err != nil {
		log.Fatal(err)
	}
	deploy := "Deploys happen on Tuesdays"
	if _, err := svc.Remember(ctx, scope, mnemo.Draft{Content: &deploy}); err != nil {
		log.Fatal(err)
	}

	res, err := svc.Recall(ctx, scope, memory.Query{Text: "which programming language does the user like?", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Results {
		fmt.Println(r.Key, r.Content)
	}
	// No word in common: found by meaning.
	res, err = svc.Recall(ctx, scope, memory.Query{Text: "which weekday are releases", Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Results {
		fmt.Println(r.Content)
	}
	// Output:
	// /user/preference/language The user prefers Python for data work
	// Deploys happen on Tuesdays
}

// Feed a conversation session and find a turn by what was said around it.
func ExampleService_AddMessages() {
	dir, _ := os.MkdirTemp("", "mnemo-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	svc, err := service.Open(ctx, dir, service.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer svc.Close()

	scope := mnemo.Scope{TenantID: "default", AgentID: "assistant"}
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	_, err = svc.AddMessages(ctx, scope, "session-1", []memory.Message{
		{Key: "/turn/1", Role: "user", Name: "Ana", Content: "I moved to Lisbon last spring", CreatedAt: &at},
		{Key: "/turn/2", Role: "assistant", Name: "Bot", Content: "How do you like living there?", CreatedAt: &at},
		{Key: "/turn/3", Role: "user", Name: "Ana", Content: "I love the food and the light", CreatedAt: &at},
	})
	if err != nil {
		log.Fatal(err)
	}
	// Surface does not record access: good for looking without using.
	res, err := svc.Surface(ctx, scope, memory.Query{Text: "What does Ana love about Lisbon?", Limit: 2, Now: at})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Results {
		fmt.Println(r.Key, r.Content)
	}
	// Output:
	// /turn/3 I love the food and the light
	// /turn/1 I moved to Lisbon last spring
}

// Keys make writes upserts; a null content tombstones the key, which stays
// in history.
func ExampleService_History() {
	dir, _ := os.MkdirTemp("", "mnemo-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	svc, err := service.Open(ctx, dir, service.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer svc.Close()

	scope := mnemo.Scope{TenantID: "default", AgentID: "assistant"}
	for _, city := range []string{"Paris", "Berlin"} {
		c := "lives in " + city
		svc.Remember(ctx, scope, mnemo.Draft{Key: "/user/city", Content: &c})
	}
	m, _ := svc.GetByKey(ctx, scope, "/user/city")
	fmt.Println(m.Content)
	svc.Remember(ctx, scope, mnemo.Draft{Key: "/user/city"}) // tombstone
	_, err = svc.GetByKey(ctx, scope, "/user/city")
	fmt.Println(mnemo.ErrorCode(err))
	revs, _ := svc.History(ctx, scope, "/user/city")
	for _, r := range revs {
		fmt.Println(r.Op)
	}
	// Output:
	// lives in Berlin
	// not_found
	// put
	// put
	// tombstone
}

// Give an agent run its context: the snapshot for the system prompt at the
// start, then the run's short-term memory as it calls tools.
func ExampleService_Snapshot() {
	dir, _ := os.MkdirTemp("", "mnemo-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	svc, err := service.Open(ctx, dir, service.Options{Now: func() time.Time { return now }})
	if err != nil {
		log.Fatal(err)
	}
	defer svc.Close()
	scope := mnemo.Scope{TenantID: "default", AgentID: "ops"}
	rule, disk := "Never restart the database during business hours.", "The hourly check found /var at 91% on db-1."
	svc.Remember(ctx, scope, mnemo.Draft{Content: &rule, Pinned: true})
	svc.Remember(ctx, scope, mnemo.Draft{Content: &disk, Type: mnemo.TypeEvent})

	trigger := prompt.Trigger{Type: "cron", Payload: []byte(`"hourly_check"`)}
	snap, err := svc.Snapshot(ctx, scope, prompt.SnapshotQuery{Trigger: trigger})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(snap.Text)

	run, _ := svc.OpenRun(ctx, scope, prompt.RunOptions{Trigger: trigger, Focus: "disk usage"})
	run, _ = svc.RecordCall(ctx, scope, run.ID, prompt.ToolCall{Name: "check_disk", Input: []byte(`{"host":"db-1"}`), Output: []byte(`"93% used on /var"`)})
	fmt.Println(len(run.Rounds), "round,", run.Tokens, "of", run.TokenLimit, "tokens")
	svc.CloseRun(ctx, scope, run.ID)
	// Output:
	// ## Recent Experience
	// - [pinned] Never restart the database during business hours.
	// - [event · 2026-11-23] The hourly check found /var at 91% on db-1.
	// 1 round, 21 of 2000 tokens
}
