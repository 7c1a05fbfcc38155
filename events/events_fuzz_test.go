package events_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

// FuzzAppendEvent appends an arbitrary event, decoded from JSON as the HTTP
// API decodes it, to a real store. It is either refused with a domain
// error, or stored and read back the same from the hot table and, after
// archival, from a cold segment; the event stored before it is never lost.
func FuzzAppendEvent(f *testing.F) {
	for _, s := range []string{
		`{"type":"AgentStarted","source":"a","data":{"parent_id":"x"}}`,
		`{"type":"x","data":"tab\tin a string"}`,
		`{"type":"x","data":"raw	tab"}`,
		`{"type":"x\ty"}`,
		`{"type":"x","source":"new\nline","metadata":{"k":[1,2]}}`,
		`{"id":"a b","type":"x"}`,
		`{"type":"x","ts":"1700-01-01T00:00:00Z","data":[1,{"a":null}]}`,
		`{"type":"ToolRetry","data":{"retry_of":"e0"},"metadata":{"parent_id":5}}`,
	} {
		f.Add(s)
	}
	c := newClock()
	svc, _ := newEventService(f, c, events.Options{ColdAfter: time.Hour})
	ctx := context.Background()
	first, err := svc.AppendEvent(ctx, alice, mnemo.Event{ID: "e0", Type: "seed", TS: c.T.Add(-48 * time.Hour)})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var e mnemo.Event
		if json.Unmarshal([]byte(in), &e) != nil {
			return
		}
		e.ID = "" // fresh ids: the same input may come twice
		stored, err := svc.AppendEvent(ctx, alice, e)
		if err != nil {
			if code := mnemo.ErrorCode(err); code == mnemo.EINTERNAL {
				t.Fatalf("internal error for %q: %v", in, err)
			}
		} else {
			same := func(got mnemo.Event, where string) {
				if got.ID != stored.ID || !got.TS.Equal(stored.TS) || got.Type != stored.Type || got.Source != stored.Source ||
					!bytes.Equal(got.Data, stored.Data) || !bytes.Equal(got.Metadata, stored.Metadata) {
					t.Fatalf("%s: read back %+v, stored %+v", where, got, stored)
				}
			}
			got, err := svc.GetEvent(ctx, alice, stored.ID)
			if err != nil {
				t.Fatal(err)
			}
			same(got, "hot")
			c.Advance(2 * time.Hour) // past ColdAfter even for an event stamped now
			if _, err := svc.ArchiveEvents(ctx, 0); err != nil {
				t.Fatalf("archive after %q: %v", in, err)
			}
			if got, err = svc.GetEvent(ctx, alice, stored.ID); err != nil {
				t.Fatal(err)
			}
			if !stored.TS.After(c.T.Add(-time.Hour)) { // archived
				same(got, "cold")
			}
		}
		if got, err := svc.GetEvent(ctx, alice, first.ID); err != nil || got.Type != "seed" {
			t.Fatalf("the first event: %+v %v", got, err)
		}
	})
}
