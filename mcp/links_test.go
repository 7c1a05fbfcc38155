package mcp_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

type linkedOut struct {
	Memory *struct {
		ID      string `json:"id"`
		Content string `json:"content"`
		Masked  bool   `json:"masked"`
	} `json:"memory"`
	Event *struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"event"`
	Hops     int    `json:"hops"`
	From     string `json:"from"`
	Via      string `json:"via"`
	Relation string `json:"relation"`
	Reason   string `json:"reason"`
}

func (l linkedOut) id() string {
	if l.Memory != nil {
		return l.Memory.ID
	}
	return l.Event.ID
}

func linkedIDs(ls []linkedOut) []string {
	out := []string{}
	for _, l := range ls {
		out = append(out, l.id())
	}
	return out
}

// TestLinkAndTraverse links memories and an event with the link tool, and
// follows the links with recall_path's and recall's traverse_hops.
func TestLinkAndTraverse(t *testing.T) {
	svc := newService(t)
	cs := connectMemory(t, svc, alice)
	bob := connectMemory(t, svc, mnemo.Scope{TenantID: alice.TenantID, AgentID: "bob"})
	remember := func(args map[string]any) string {
		var out struct{ ID string }
		ok(t, cs, "remember", args, &out)
		return out.ID
	}
	p := remember(map[string]any{"content": "Project alpha ships in May", "key": "/proj/alpha"})
	m1 := remember(map[string]any{"content": "Alpha depends on the billing service"})
	m2 := remember(map[string]any{"content": "Carol owns the billing service"})
	secret := remember(map[string]any{"content": "The alpha launch code is swordfish", "security_level": "confidential"})
	var bobOut struct{ ID string }
	ok(t, bob, "remember", map[string]any{"content": "Bob's note"}, &bobOut)
	e, err := svc.AppendEvents(t.Context(), alice, []mnemo.Event{{Type: "deploy", TS: time.Now(), Data: json.RawMessage(`{"text":"alpha deployed"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	ev := e[0].ID

	for _, l := range []map[string]any{
		{"source": p, "target": m1, "type": "depends_on", "confidence": 0.9},
		{"source": m1, "target": m2},
		{"source": p, "target": ev, "confidence": 0.5},
		{"source": p, "target": secret, "type": "about"},
	} {
		var out struct{ Link mnemo.Relation }
		ok(t, cs, "link", l, &out)
		if out.Link.Source != l["source"] || out.Link.Target != l["target"] || out.Link.Type == "" || out.Link.Confidence == 0 {
			t.Fatalf("link %v: %+v", l, out.Link)
		}
	}

	type pathOut struct {
		Count  int
		Linked []linkedOut
	}
	for _, tc := range []struct {
		hops int
		want []string
	}{
		{0, []string{}},
		// The key reads the confidential memory masked: it does not walk
		// the link to it (SEC-13), as the graph routes do not.
		{1, []string{m1, ev}},
		{2, []string{m1, ev, m2}},
	} {
		var out pathOut
		res := ok(t, cs, "recall_path", map[string]any{"uri": "/proj", "traverse_hops": tc.hops}, &out)
		if out.Count != 1 || !slices.Equal(linkedIDs(out.Linked), tc.want) {
			t.Fatalf("hops %d: count %d, linked %v, want %v", tc.hops, out.Count, linkedIDs(out.Linked), tc.want)
		}
		if tc.hops == 0 {
			continue
		}
		if strings.Contains(text(res), "swordfish") {
			t.Fatalf("a confidential linked memory leaked:\n%s", text(res))
		}
		l := out.Linked[0]
		if l.Hops != 1 || l.From != p || l.Via != p || l.Relation != "depends_on" || !strings.Contains(l.Reason, p) {
			t.Fatalf("how m1 was reached: %+v", l)
		}
		if out.Linked[1].Event == nil || out.Linked[1].Event.Type != "deploy" || !strings.Contains(text(res), "Linked:") {
			t.Fatalf("the event: %+v\n%s", out.Linked[1], text(res))
		}
	}

	var rec struct {
		Count  int
		Linked []linkedOut
	}
	ok(t, cs, "recall", map[string]any{"query": "ships", "traverse_hops": 2, "limit": 3}, &rec)
	if rec.Count != 1 || !slices.Equal(linkedIDs(rec.Linked), []string{m1, ev}) {
		t.Fatalf("recall: %d, linked %v", rec.Count, linkedIDs(rec.Linked))
	}

	// Bob sees none of alice's links, and cannot link to her memories.
	var bobPath pathOut
	ok(t, bob, "recall_path", map[string]any{"uri": "/", "traverse_hops": 3}, &bobPath)
	if len(bobPath.Linked) != 0 {
		t.Fatalf("bob reached %v", linkedIDs(bobPath.Linked))
	}

	for _, tc := range []struct {
		name string
		args map[string]any
		code string
	}{
		{"unknown id", map[string]any{"source": p, "target": "no-such-id"}, mnemo.ENOTFOUND},
		{"another agent's memory", map[string]any{"source": p, "target": bobOut.ID}, mnemo.ENOTFOUND},
		{"self link", map[string]any{"source": p, "target": p}, mnemo.EINVALID},
		{"no target", map[string]any{"source": p}, mnemo.EINVALID},
		{"confidence over 1", map[string]any{"source": p, "target": m2, "confidence": 2}, mnemo.EINVALID},
		{"confidence 0", map[string]any{"source": p, "target": m2, "confidence": 0}, mnemo.EINVALID},
		{"bad type", map[string]any{"source": p, "target": m2, "type": strings.Repeat("t", 200)}, mnemo.EINVALID},
		{"a scope argument", map[string]any{"source": p, "target": m2, "agent_id": "bob"}, mnemo.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) { fails(t, cs, "link", tc.args, tc.code) })
	}
	fails(t, bob, "link", map[string]any{"source": bobOut.ID, "target": p}, mnemo.ENOTFOUND)
	fails(t, cs, "recall_path", map[string]any{"uri": "/proj", "traverse_hops": 4}, mnemo.EINVALID)
	fails(t, cs, "recall", map[string]any{"query": "ships", "traverse_hops": -1}, mnemo.EINVALID)
	if rels, err := svc.Neighbours(t.Context(), alice, m2, events.GraphQuery{}); err != nil || len(rels) != 1 {
		t.Fatalf("failed links changed the graph: %+v %v", rels, err)
	}

	// Forgetting a memory takes its links; reflect reports orphan links.
	ok(t, cs, "forget", map[string]any{"id": m1}, nil)
	var path pathOut
	ok(t, cs, "recall_path", map[string]any{"uri": "/proj", "traverse_hops": 3}, &path)
	if !slices.Equal(linkedIDs(path.Linked), []string{ev}) {
		t.Fatalf("after forgetting m1: %v", linkedIDs(path.Linked))
	}
	var refl struct {
		OrphanLinks *int `json:"orphan_links"`
	}
	ok(t, cs, "reflect", map[string]any{"phase": "govern"}, &refl)
	if refl.OrphanLinks == nil || *refl.OrphanLinks != 0 {
		t.Fatalf("orphan_links %v", refl.OrphanLinks)
	}
}
