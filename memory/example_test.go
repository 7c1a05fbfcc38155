package memory_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embedded"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// Feed a conversation session and find a turn by what was said around it.
func ExampleService_AddMessages() {
	dir, _ := os.MkdirTemp("", "mnemo-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	svc, err := embedded.Open(ctx, dir, service.Options{})
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
	svc, err := embedded.Open(ctx, dir, service.Options{})
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
