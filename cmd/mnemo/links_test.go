package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
)

// TestRecallAlongLinks links memories and an event from the command line
// and follows the links with recall-path and recall --traverse-hops.
func TestRecallAlongLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mnemo := runner(t, dir)
	id := func(out string) string { return strings.TrimSpace(out) }
	p := id(mnemo("remember", "--key", "/proj/alpha", "Project alpha ships in May"))
	m1 := id(mnemo("remember", "Alpha depends on the billing service"))
	m2 := id(mnemo("remember", "Carol owns the billing service"))
	ev := id(mnemo("events", "append", "--type", "Deployed", "--source", "ci", "--payload", `{"text":"alpha deployed"}`))
	mnemo("events", "graph", "link", p, m1, "--type", "depends_on", "--confidence", "0.9")
	mnemo("events", "graph", "link", m1, m2)
	mnemo("events", "graph", "link", p, ev, "--confidence", "0.5")

	for _, tc := range []struct {
		name string
		args []string
		want []string // ids of linked, in order
	}{
		{"no hops", []string{"recall-path", "/proj"}, nil},
		{"one hop", []string{"recall-path", "/proj", "--traverse-hops", "1"}, []string{m1, ev}},
		{"two hops", []string{"recall-path", "/proj", "--traverse-hops", "2"}, []string{m1, ev, m2}},
		{"within the limit", []string{"recall-path", "/proj", "--traverse-hops", "2", "-n", "2"}, []string{m1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res memory.PathResult
			if err := json.Unmarshal([]byte(mnemo(append(tc.args, "--json")...)), &res); err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := range res.Linked {
				got = append(got, res.Linked[i].ID())
			}
			if len(res.Memories) != 1 || res.Memories[0].ID != p || strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("memories %d, linked %v, want %v", len(res.Memories), got, tc.want)
			}
		})
	}
	out := mnemo("recall-path", "/proj", "--traverse-hops", "2")
	if !strings.Contains(out, "linked:") || !strings.Contains(out, "event Deployed") || !strings.Contains(out, "2 hops from "+p+" via "+m1) {
		t.Fatalf("recall-path text:\n%s", out)
	}
	out = mnemo("recall", "ships", "--traverse-hops", "1")
	if !strings.Contains(out, p) || !strings.Contains(out, "linked:") || !strings.Contains(out, "linked 1 hop from "+p) {
		t.Fatalf("recall text:\n%s", out)
	}

	for _, args := range [][]string{
		{"recall-path", "/proj", "--traverse-hops", "4"},
		{"recall", "ships", "--traverse-hops", "-1"},
		{"recall-path"},
		{"events", "graph", "link", p, p},
		{"events", "graph", "link", p, "no-such-id"},
	} {
		if code, _, _ := run(t, dir, "", args...); code == 0 {
			t.Errorf("%v succeeded", args)
		}
	}

	// Forgetting m1 takes its links; reflect's govern reports orphan links.
	mnemo("forget", m1)
	var res memory.PathResult
	if err := json.Unmarshal([]byte(mnemo("recall-path", "/proj", "--traverse-hops", "3", "--json")), &res); err != nil || len(res.Linked) != 1 || res.Linked[0].ID() != ev {
		t.Fatalf("after forget: %+v %v", res.Linked, err)
	}
	var rep lifecycle.ReflectReport
	if err := json.Unmarshal([]byte(mnemo("reflect", "--phase", "govern", "--json")), &rep); err != nil || rep.OrphanLinks == nil || len(rep.OrphanLinks) != 0 {
		t.Fatalf("reflect: %+v %v", rep.OrphanLinks, err)
	}
}
