package memory_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/inmem"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// FuzzWriteTimes writes a memory whose time field (created_at, expires_at,
// occurred_at, valid_from or valid_to) lies near an edge of the supported
// range, through Service.Write, to the SQLite, files and memory stores
// (TIME-1): inside the range it reads back exactly, to the nanosecond;
// outside it the write fails with EINVALID naming the field and the range.
// Never another date, never a panic or an internal error.
func FuzzWriteTimes(f *testing.F) {
	for _, field := range []uint8{0, 1, 2, 3, 4} {
		for _, off := range []int64{0, -1, 1, int64(time.Second), -int64(time.Second), int64(24 * time.Hour), -int64(365 * 24 * time.Hour), 1 << 62, -(1 << 62)} {
			f.Add(field, false, off)
			f.Add(field, true, off)
		}
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	fs, err := files.OpenStore(ctx, f.TempDir(), files.StoreOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { fs.Close() })
	var svcs []*service.Mnemo
	for _, st := range []mnemo.Store{db, fs, inmem.New(inmem.Options{})} {
		svc := service.New(st, service.Options{Embedder: hashed.New(32), Guard: memory.GuardOptions{Off: true}})
		f.Cleanup(func() { svc.Close() })
		svcs = append(svcs, svc)
	}
	sc := mnemo.Scope{TenantID: "fuzz", AgentID: "fuzz"}
	names := []string{"created_at", "expires_at", "occurred_at", "valid_from", "valid_to"}
	f.Fuzz(func(t *testing.T, field uint8, late bool, offset int64) {
		field %= uint8(len(names))
		edge := mnemo.EarliestTime
		if late {
			edge = mnemo.LatestTime.Add(-time.Nanosecond)
		}
		at := edge.Add(time.Duration(offset)) // saturates; never wraps
		content := "a note about the edge of time"
		d := mnemo.Draft{Content: &content}
		switch names[field] {
		case "created_at":
			d.CreatedAt = &at
		case "expires_at":
			d.ExpiresAt = &at
		case "occurred_at":
			d.OccurredAt = mnemo.At(at)
		case "valid_from":
			d.ValidFrom = &at
		case "valid_to":
			d.ValidTo = &at
		}
		for _, svc := range svcs {
			res, err := svc.Write(ctx, sc, []mnemo.Draft{d})
			if !mnemo.InTimeRange(at) {
				if mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(mnemo.ErrorMessage(err), names[field]) || !strings.Contains(mnemo.ErrorMessage(err), mnemo.TimeRange) {
					t.Fatalf("%s %s: Write = %v, want EINVALID naming the field and the range", names[field], at, err)
				}
				continue
			}
			if err != nil {
				if mnemo.ErrorCode(err) == mnemo.EINTERNAL || !strings.Contains(mnemo.ErrorMessage(err), "valid") {
					t.Fatalf("%s %s: Write = %v", names[field], at, err)
				}
				continue // valid_from/valid_to alone may make an empty span: refused, and said so
			}
			m, err := svc.Get(ctx, sc, res[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			var got time.Time
			switch names[field] {
			case "created_at":
				got = m.CreatedAt
			case "expires_at":
				got = *m.ExpiresAt
			case "occurred_at", "valid_from":
				got = m.OccurredOf().Start
			case "valid_to":
				got = *m.ValidTo
			}
			if !got.Equal(at) {
				t.Fatalf("%s %s came back as %s", names[field], at.Format(time.RFC3339Nano), got.Format(time.RFC3339Nano))
			}
		}
	})
}
