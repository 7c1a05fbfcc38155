package postgres_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/service"
)

// TestServiceEvents runs the event layers (EVT-1) end to end through
// service.Mnemo on PostgreSQL 15 (no pgvector: L3 unavailable, the rest
// the same) and on PGlite with pgvector: events appended with their L2
// relations, queried page by page, archived and read again, linked to a
// memory (the link goes when the memory is forgotten), summarised (L4),
// learnt as capabilities (L5), the profile kept as a state document, and,
// with pgvector, searched by meaning (L3).
func TestServiceEvents(t *testing.T) {
	for _, server := range []string{"PG15", "Pgvector"} {
		t.Run(server, func(t *testing.T) {
			var db *postgres.DB
			if server == "PG15" {
				db = open(t, pgDSN(t), postgres.Options{})
			} else {
				dsn := pgvectorDSN(t)
				ensureVector(t, dsn)
				serialize(t)
				db = open(t, dsn, postgres.Options{MaxConns: 1})
			}
			testServiceEvents(t, db, server == "Pgvector")
		})
	}
}

func testServiceEvents(t *testing.T, db *postgres.DB, vectors bool) {
	ctx := t.Context()
	now := time.Date(2026, 3, 2, 0, 30, 0, 0, time.UTC)
	svc := service.New(db, service.Options{Embedder: hashed.New(64), Now: func() time.Time { return now }})
	defer svc.Close()

	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	ev := func(typ, source string, at time.Duration, data string) mnemo.Event {
		e := mnemo.Event{Type: typ, Source: source, TS: day.Add(at)}
		if data != "" {
			e.Data = json.RawMessage(data)
		}
		return e
	}
	in := []mnemo.Event{
		ev("AgentStarted", "w1", 0, `"the agent starts the deploy of the billing api"`),
		ev("DeployCompleted", "w1", time.Minute, `{"tools":["kubectl"],"description":"deployed the billing api to staging"}`),
		ev("DeployCompleted", "w1", 2*time.Minute, `{"tools":["kubectl","helm"],"description":"deployed the search api"}`),
		ev("ToolError", "w1", 3*time.Minute, `{"error":"timeout talking to the registry"}`),
		ev("DeployFailed", "w1", 4*time.Minute, `{"error":"image not found"}`),
		ev("DeployCompleted", "w2", 5*time.Hour, `{"tools":["kubectl"],"description":"deployed the payments api"}`),
	}
	for i := range 30 {
		in = append(in, ev("Heartbeat", "w3", 6*time.Hour+time.Duration(i)*time.Second, ""))
	}
	stored, err := svc.AppendEvents(ctx, scope, in)
	if err != nil {
		t.Fatal(err)
	}
	// L2: each event follows the previous of its source.
	rels, err := svc.Neighbours(ctx, scope, stored[1].ID, events.GraphQuery{})
	if err != nil || !slices.ContainsFunc(rels, func(r mnemo.Relation) bool {
		return r.Source == stored[0].ID && r.Target == stored[1].ID && r.Type == mnemo.RelPrecedes
	}) {
		t.Fatalf("Neighbours = %+v, %v; want %s precedes %s", rels, err, stored[0].ID, stored[1].ID)
	}
	path, err := svc.ShortestPath(ctx, scope, stored[0].ID, stored[3].ID, events.GraphQuery{Depth: 5})
	if err != nil || len(path) != 3 {
		t.Errorf("ShortestPath = %+v, %v; want 3 hops", path, err)
	}
	read := func() []string {
		var ids []string
		q := mnemo.EventQuery{Limit: 7}
		for {
			p, err := svc.QueryEvents(ctx, scope, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Events {
				ids = append(ids, e.ID)
			}
			if p.Next == "" {
				return ids
			}
			q.Cursor = p.Next
		}
	}
	before := read()
	if len(before) != len(in) || before[0] != stored[0].ID {
		t.Fatalf("read %d events, want %d", len(before), len(in))
	}

	// A memory linked to an event; forgetting the memory drops the link.
	m := remember(t, svc, "the billing api runs on staging")
	if _, err := svc.Link(ctx, scope, mnemo.Relation{Source: m.ID, Target: stored[1].ID, Type: "about", Confidence: 0.8}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Forget(ctx, scope, []string{m.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if rels, _ := svc.Neighbours(ctx, scope, m.ID, events.GraphQuery{}); len(rels) != 0 {
		t.Errorf("links of a forgotten memory: %+v", rels)
	}

	// L4 and L5.
	sum, err := svc.Summarize(ctx, scope, mnemo.PeriodDay, day)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Events != len(in) || sum.Tasks.Succeeded != 3 || sum.Tasks.Failed != 1 || sum.Errors < 1 {
		t.Errorf("summary: %d events, tasks %+v, %d errors", sum.Events, sum.Tasks, sum.Errors)
	}
	if got, err := svc.Summaries(ctx, scope, mnemo.SummaryQuery{Period: mnemo.PeriodDay}); err != nil || len(got) != 1 || got[0].Events != len(in) {
		t.Errorf("stored summaries = %+v, %v", got, err)
	}
	caps, err := svc.Events.Capabilities(ctx, scope, events.CapabilityQuery{Text: "deploy an api"})
	if err != nil || len(caps) != 1 || caps[0].TaskType != "Deploy" || caps[0].Successes != 3 || caps[0].Failures != 1 {
		t.Errorf("Capabilities = %+v, %v; want Deploy with 3 successes and 1 failure", caps, err)
	}

	// The profile is a state document.
	if _, _, err := svc.RecordInteraction(ctx, scope, "I like short answers about Kubernetes"); err != nil {
		t.Fatal(err)
	}
	prof, err := svc.Profile(ctx, scope)
	if err != nil || prof.Version == 0 {
		t.Errorf("Profile = %+v, %v", prof, err)
	}

	// Archival changes no read.
	if n, err := svc.ArchiveEvents(ctx, time.Minute); err != nil || n != len(in) {
		t.Fatalf("archived %d, %v; want %d", n, err, len(in))
	}
	if after := read(); !slices.Equal(after, before) {
		t.Errorf("after archival: %v, want %v", after, before)
	}
	if e, err := svc.GetEvent(ctx, scope, stored[1].ID); err != nil || !strings.Contains(string(e.Data), "billing") {
		t.Errorf("a cold event: %+v, %v", e, err)
	}
	if _, err := svc.AppendEvents(ctx, scope, []mnemo.Event{{ID: stored[2].ID, Type: "x", TS: day}}); mnemo.ErrorCode(err) != mnemo.ECONFLICT {
		t.Errorf("a cold id again: %v, want conflict", err)
	}

	// L3.
	hits, err := svc.SearchEvents(ctx, scope, events.Search{Query: "billing api deploy"})
	if !vectors {
		if mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
			t.Errorf("SearchEvents without pgvector: %v, want unavailable", err)
		}
		return
	}
	if err != nil || len(hits) == 0 {
		t.Fatalf("SearchEvents = %+v, %v", hits, err)
	}
	top := string(hits[0].Event.Data)
	if hits[0].Event.ID != stored[0].ID && hits[0].Event.ID != stored[1].ID {
		t.Errorf("SearchEvents' best hit %s (%s), want a billing event", hits[0].Event.ID, top)
	}
}

// TestEventsAppendOnly: the schema refuses to change or delete an event,
// or to shrink or delete a cold segment, whoever asks (EVT-2); archival's
// change is the one let through. Every key and index of the event tables
// leads with tenant_id (SEC-1; Citus distributes by it).
func TestEventsAppendOnly(t *testing.T) {
	dsn := pgDSN(t)
	schema := newSchema(t, dsn)
	db := open(t, dsn, postgres.Options{Schema: schema})
	ctx := t.Context()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := db.AppendEvents(ctx, scope, []mnemo.Event{{ID: "e1", Type: "x", TS: t0}, {ID: "e2", Type: "x", TS: t0.AddDate(0, 1, 0)}}, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ArchiveEvents(ctx, t0.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("ArchiveEvents = %d, %v", n, err)
	}
	conn := connect(t, dsn)
	for _, stmt := range []string{
		`UPDATE events SET type = 'y' WHERE id = 'e2'`,
		`UPDATE events SET cold = true, data = NULL WHERE id = 'e2'`, // no segment holds it
		`UPDATE events SET type = 'y' WHERE id = 'e1'`,
		`DELETE FROM events WHERE id = 'e1'`,
		`DELETE FROM events WHERE id = 'e2'`,
		`TRUNCATE events`,
		`UPDATE event_segments SET count = count - 1`,
		`DELETE FROM event_segments`,
		`TRUNCATE event_segments`,
	} {
		if _, err := conn.Exec(ctx, `SET search_path TO `+schema+`; `+stmt); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v, want refused as append-only", stmt, err)
		}
	}
	if e, err := db.GetEvent(ctx, scope, "e2"); err != nil || e.Type != "x" {
		t.Errorf("e2 = %+v, %v", e, err)
	}
	rows, err := conn.Query(ctx, `SELECT c.relname::text, a.attname::text
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		JOIN pg_class tb ON tb.oid = i.indrelid AND tb.relnamespace = to_regnamespace($1)
		LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		WHERE tb.relname IN ('events', 'event_segments', 'relations', 'event_vectors', 'summaries', 'capabilities')`, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var name string
		var first *string
		if err := rows.Scan(&name, &first); err != nil {
			t.Fatal(err)
		}
		n++
		if first == nil || *first != "tenant_id" {
			t.Errorf("index %s leads with %v, not tenant_id", name, first)
		}
	}
	if n < 10 {
		t.Errorf("%d indexes on the event tables, want every one checked", n)
	}
}
