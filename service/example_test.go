package service_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/embed/builtin"
	"github.com/mnemo-dev/mnemo/embedded"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// Embed mnemo in a Go program: open the embedded store with the built-in
// embedder, remember, recall by meaning as well as by words.
func Example() {
	dir, _ := os.MkdirTemp("", "mnemo-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	svc, err := embedded.Open(ctx, dir, service.Options{Embedder: builtin.New()})
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

// Give an agent run its context: the snapshot for the system prompt at the
// start, then the run's short-term memory as it calls tools.
func ExampleMnemo_Snapshot() {
	dir, _ := os.MkdirTemp("", "mnemo-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	svc, err := embedded.Open(ctx, dir, service.Options{Now: func() time.Time { return now }})
	if err != nil {
		log.Fatal(err)
	}
	defer svc.Close()
	scope := mnemo.Scope{TenantID: "default", AgentID: "ops"}
	rule, disk := "Never restart the database during business hours.", "The hourly check found /var at 91% on db-1."
	svc.Remember(ctx, scope, mnemo.Draft{Content: &rule, Pinned: true})
	svc.Remember(ctx, scope, mnemo.Draft{Content: &disk, Type: mnemo.TypeEvent})

	trigger := agentcontext.Trigger{Type: "cron", Payload: []byte(`"hourly_check"`)}
	snap, err := svc.Snapshot(ctx, scope, agentcontext.SnapshotQuery{Trigger: trigger})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(snap.Text)

	run, _ := svc.OpenRun(ctx, scope, agentcontext.RunOptions{Trigger: trigger, Focus: "disk usage"})
	run, _ = svc.RecordCall(ctx, scope, run.ID, agentcontext.ToolCall{Name: "check_disk", Input: []byte(`{"host":"db-1"}`), Output: []byte(`"93% used on /var"`)})
	fmt.Println(len(run.Rounds), "round,", run.Tokens, "of", run.TokenLimit, "tokens")
	svc.CloseRun(ctx, scope, run.ID)
	// Output:
	// ## Recent Experience
	// - [pinned] Never restart the database during business hours.
	// - [event · 2026-11-23] The hourly check found /var at 91% on db-1.
	// 1 round, 21 of 2000 tokens
}
