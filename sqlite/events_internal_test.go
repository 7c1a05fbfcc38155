package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "mnemo.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var evScope = mnemo.Scope{TenantID: "t", AgentID: "a"}

// TestEventsAppendOnly: the schema itself refuses to change or delete an
// event, or to delete a cold one; only archival moves events, after their
// cold copy is recorded.
func TestEventsAppendOnly(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := db.AppendEvents(ctx, evScope, []mnemo.Event{{ID: "e1", Type: "x", TS: ts}, {ID: "e2", Type: "x", TS: ts.Add(48 * time.Hour)}}, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ArchiveEvents(ctx, ts.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("archive: %d %v", n, err)
	}
	for _, stmt := range []string{
		`UPDATE events SET type = 'y' WHERE id = 'e2'`,
		`DELETE FROM events WHERE id = 'e2'`,
		`DELETE FROM events`,
		`DELETE FROM cold_events WHERE id = 'e1'`,
		`DELETE FROM event_segments`,
		`UPDATE event_segments SET count = 0`,
		`INSERT INTO events (id, tenant_id, agent_id, ts, type, source) VALUES ('e1', 't', 'a', 0, 'x', '')`,
	} {
		if _, err := db.writer.ExecContext(ctx, stmt); err == nil || !strings.Contains(err.Error(), "append-only") && !strings.Contains(err.Error(), "already taken") {
			t.Errorf("%s: %v, want refused", stmt, err)
		}
	}
	for _, id := range []string{"e1", "e2"} {
		if _, err := db.GetEvent(ctx, evScope, id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// TestColdSegmentParts: a busy day is cut into parts of eventseg.PartSize
// events; a late event merged into the day lands in order and no part
// shrinks; the parts are compressed.
func TestColdSegmentParts(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var evs []mnemo.Event
	for i := range 2500 {
		evs = append(evs, mnemo.Event{ID: fmt.Sprintf("e%04d", i), Type: "step", Source: "s", TS: day.Add(time.Duration(i+1) * time.Second),
			Data: []byte(fmt.Sprintf(`{"i":%d,"text":"a line of text\twith a tab and\na newline, escaped"}`, i))})
	}
	for i := 0; i < len(evs); i += mnemo.MaxEventBatch {
		if _, err := db.AppendEvents(ctx, evScope, evs[i:min(i+mnemo.MaxEventBatch, len(evs))], nil); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := db.ArchiveEvents(ctx, day.Add(24*time.Hour)); err != nil || n != 2500 {
		t.Fatalf("archive: %d %v", n, err)
	}
	if _, err := db.AppendEvents(ctx, evScope, []mnemo.Event{{ID: "late", Type: "step", Source: "s", TS: day}}, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ArchiveEvents(ctx, day.Add(24*time.Hour)); err != nil || n != 1 {
		t.Fatalf("archive late: %d %v", n, err)
	}
	rows, err := db.reader.QueryContext(ctx, `SELECT part, count, length(body) FROM event_segments ORDER BY part`)
	if err != nil {
		t.Fatal(err)
	}
	var counts []int
	size := 0
	for rows.Next() {
		var part, count, n int
		if err := rows.Scan(&part, &count, &n); err != nil {
			t.Fatal(err)
		}
		counts = append(counts, count)
		size += n
	}
	rows.Close()
	if fmt.Sprint(counts) != "[1000 1000 501]" {
		t.Fatalf("parts hold %v events", counts)
	}
	raw := 0
	for _, e := range evs {
		raw += len(e.Data) + len(e.ID) + len(e.Type) + 40
	}
	if size*4 > raw {
		t.Fatalf("cold parts take %d bytes for %d raw: not compressed", size, raw)
	}
	var got []mnemo.Event
	q := mnemo.EventQuery{Limit: 333}
	for {
		p, err := db.QueryEvents(ctx, evScope, q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Events...)
		if p.Next == "" {
			break
		}
		q.Cursor = p.Next
	}
	if len(got) != 2501 || got[0].ID != "late" || got[1].ID != "e0000" || got[2500].ID != "e2499" {
		t.Fatalf("read back %d events, first %s", len(got), got[0].ID)
	}
	for i, e := range got[1:] {
		if string(e.Data) != string(evs[i].Data) || !e.TS.Equal(evs[i].TS) {
			t.Fatalf("event %d changed: %s", i, e.Data)
		}
	}
	if e, err := db.GetEvent(ctx, evScope, "e2499"); err != nil || e.Seq != 2500 {
		t.Fatalf("get from the last part: %+v %v", e, err)
	}
}

// TestStoredEventsAreSegmentSafe: whatever a caller of the store passes,
// an event it accepts can be archived and read back.
func TestStoredEventsAreSegmentSafe(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, bad := range []mnemo.Event{
		{ID: "a\tb", Type: "x", TS: ts},
		{ID: "b", Type: "x\ny", TS: ts},
		{ID: "c", Type: "x", Source: "s\r", TS: ts},
		{ID: "d", Type: "x", TS: ts, Data: []byte("{nope")},
	} {
		if _, err := db.AppendEvents(ctx, evScope, []mnemo.Event{bad}, nil); mnemo.ErrorCode(err) != mnemo.EINVALID {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	spaced := mnemo.Event{ID: "e", Type: "x", TS: ts, Data: []byte("{\n\t\"a\":\t\"x\\ty\"\r\n}"), Metadata: []byte("{\"k\":\n1}")}
	if _, err := db.AppendEvents(ctx, evScope, []mnemo.Event{spaced}, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ArchiveEvents(ctx, ts.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("archive: %d %v", n, err)
	}
	e, err := db.GetEvent(ctx, evScope, "e")
	if err != nil || string(e.Data) != `{"a":"x\ty"}` || string(e.Metadata) != `{"k":1}` {
		t.Fatalf("read back: %s %s %v", e.Data, e.Metadata, err)
	}
}
