package events_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

func TestProfileRules(t *testing.T) {
	f := events.ProfileRules([]string{"I love hiking and I need a new laptop.", "我喜欢爬山，我需要一台电脑。My name is Ada"})
	for _, want := range []string{"hiking", "爬山"} {
		if !slices.Contains(f.Interests, want) {
			t.Errorf("interests %q lack %q", f.Interests, want)
		}
	}
	for _, want := range []string{"new laptop", "一台电脑"} {
		if !slices.Contains(f.Needs, want) {
			t.Errorf("needs %q lack %q", f.Needs, want)
		}
	}
	if f.Traits["name"] != "Ada" {
		t.Errorf("traits %v", f.Traits)
	}
}

// TestProfileBackoff walks the schedule of EVT-13: every interaction for
// the first 100, then 1 → 5 → 10 → 50 → weekly, and a new interest updates
// at once and resets the backoff.
func TestProfileBackoff(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{Profile: events.ProfileOptions{PerStage: 2}})
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	interact := func(text string) (events.ProfileRecord, bool) {
		t.Helper()
		rec, up, err := svc.RecordInteraction(ctx, scope, text)
		if err != nil {
			t.Fatal(err)
		}
		return rec, up
	}
	// Which of the next n plain interactions update.
	updates := func(n int) []int {
		var at []int
		for i := 1; i <= n; i++ {
			if _, up := interact("just chatting"); up {
				at = append(at, i)
			}
		}
		return at
	}
	if got := updates(100); len(got) != 100 {
		t.Fatalf("%d of the first 100 interactions updated; want all", len(got))
	}
	rec, err := svc.Profile(ctx, scope)
	if err != nil || rec.Schedule.Phase != "backoff" || rec.Schedule.Every != 5 || rec.Schedule.NextIn != 5 {
		t.Fatalf("after 100: %+v, %v; want backoff every 5", rec.Schedule, err)
	}
	// PerStage 2: two updates every 5th, two every 10th, two every 50th.
	if got := updates(10); !slices.Equal(got, []int{5, 10}) {
		t.Errorf("every 5: updates at %v", got)
	}
	if got := updates(20); !slices.Equal(got, []int{10, 20}) {
		t.Errorf("every 10: updates at %v", got)
	}
	if got := updates(100); !slices.Equal(got, []int{50, 100}) {
		t.Errorf("every 50: updates at %v", got)
	}
	rec, _ = svc.Profile(ctx, scope)
	if rec.Schedule.Phase != "weekly" || rec.Schedule.NextAt != c.Now().Add(7*24*time.Hour) {
		t.Fatalf("after the ladder: %+v; want weekly from now", rec.Schedule)
	}
	if got := updates(200); len(got) != 0 {
		t.Errorf("weekly: updates at %v within the week", got)
	}
	c.Advance(7 * 24 * time.Hour)
	if got := updates(3); !slices.Equal(got, []int{1}) {
		t.Errorf("a week later: updates at %v; want the first", got)
	}
	// Something new: at once, and the backoff starts over.
	rec, up := interact("Lately I'm really into sourdough baking.")
	if !up || !slices.Contains(rec.Profile.Interests, "sourdough baking") || rec.Schedule.Reason != "significant: new interest sourdough baking" {
		t.Fatalf("new interest: updated %v, %+v", up, rec)
	}
	if rec.Schedule.Phase != "backoff" || rec.Schedule.Every != 1 {
		t.Errorf("after a significant change: %+v; want the ladder's first step", rec.Schedule)
	}
	if got := updates(1); !slices.Equal(got, []int{1}) { // the second update at every 1
		t.Errorf("after reset: %v", got)
	}
	if got := updates(5); !slices.Equal(got, []int{5}) {
		t.Errorf("after reset, every 5: %v", got)
	}
	// Said again, the interest is not news.
	if _, up := interact("I'm into sourdough baking"); up {
		t.Error("a known interest updated the profile")
	}
	if _, _, err := svc.RecordInteraction(ctx, scope, "  "); mnemo.ErrorCode(err) != mnemo.EINVALID {
		t.Errorf("empty interaction: %v", err)
	}
}

func TestProfileOptimisticLocking(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{})
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	rec, err := svc.Profile(ctx, scope)
	if err != nil || rec.Version != 0 {
		t.Fatal(rec, err)
	}
	a, err := svc.PutProfile(ctx, scope, rec.Version, events.Profile{Interests: []string{"chess"}})
	if err != nil || a.Version != 1 {
		t.Fatalf("first put = %+v, %v", a, err)
	}
	// A second writer that read version 0 too loses, clearly.
	_, err = svc.PutProfile(ctx, scope, rec.Version, events.Profile{Interests: []string{"go"}})
	if mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Fatalf("stale put: %v; want conflict", err)
	}
	got, _ := svc.Profile(ctx, scope)
	if !slices.Equal(got.Profile.Interests, []string{"chess"}) {
		t.Errorf("profile = %+v; the loser must not have written", got.Profile)
	}
	// Many concurrent interactions: every one counted, none lost.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 10 {
				if _, _, err := svc.RecordInteraction(ctx, scope, fmt.Sprintf("message %d of writer %d", j, i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, _ = svc.Profile(ctx, scope)
	if got.Schedule.Interactions != 80 || got.Schedule.Updates != 80 {
		t.Errorf("schedule = %+v; want 80 interactions, each an update", got.Schedule)
	}
}

func TestProfileFromEvents(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	svc, _ := newEventService(t, c, events.Options{Profile: events.ProfileOptions{InteractionTypes: []string{"user.message"}}})
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	mustAppend(t, svc, scope,
		ev("user.message", "chat", c.Now(), `{"text":"I love jazz"}`),
		ev("tool.output", "shell", c.Now(), `{"output":"I love nothing"}`))
	if err := svc.WaitEventRelations(ctx); err != nil {
		t.Fatal(err)
	}
	rec, err := svc.Profile(ctx, scope)
	if err != nil || rec.Schedule.Interactions != 1 || !slices.Equal(rec.Profile.Interests, []string{"jazz"}) {
		t.Errorf("profile = %+v, %v", rec, err)
	}
}

// TestProfileTwoProcesses has two services, each with its own connection
// to one store file (as two processes would), record interactions at once:
// the version check settles every race, and no interaction is lost.
func TestProfileTwoProcesses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mnemo.db")
	scope := mnemo.Scope{TenantID: "t", AgentID: "a"}
	var svcs []*service.Mnemo
	for range 2 {
		db, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		svcs = append(svcs, service.New(db, service.Options{}))
	}
	var wg sync.WaitGroup
	for i, svc := range svcs {
		for w := range 3 {
			wg.Go(func() {
				for j := range 10 {
					if _, _, err := svc.RecordInteraction(ctx, scope, fmt.Sprintf("process %d writer %d message %d", i, w, j)); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
	wg.Wait()
	rec, err := svcs[1].Profile(ctx, scope)
	if err != nil || rec.Schedule.Interactions != 60 || rec.Version != 60 {
		t.Errorf("profile = %+v (version %d), %v; want 60 interactions in 60 writes", rec.Schedule, rec.Version, err)
	}
}
