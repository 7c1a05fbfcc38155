package memory_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// FuzzImport feeds arbitrary JSONL to Import on a real store that already
// holds one memory. Whatever the input, Import either fails with a
// domain error and stores nothing, or stores every record it reports; the
// memory that was there before is never lost or changed.
func FuzzImport(f *testing.F) {
	for _, s := range []string{
		`{"tenant_id":"t","agent_id":"a","content":"hello"}`,
		`{"id":"01a20139-af6c-70fe-96cb-6ecbacfcc7ab","tenant_id":"t","agent_id":"a","key":"/k","content":"x","tags":["a"],"created_at":"2026-01-01T00:00:00Z","access_count":3}`,
		"{\"tenant_id\":\"t\",\"agent_id\":\"a\",\"content\":\"one\"}\n{\"tenant_id\":\"t\",\"agent_id\":\"a\",\"content\":\"two\"}",
		`{"tenant_id":"t","agent_id":"a","data":{"expired_at":"2020-01-01T00:00:00Z"}}`,
		`{"tenant_id":"t","agent_id":"a","content":"x","bogus":1}`,
		`{"tenant_id":"t","agent_id":"a","content":"x","id":"not-a-uuid"}`,
		`{"tenant_id":"t","agent_id":"a","content":"x","priority":7}`,
		`{"tenant_id":"t","agent_id":"a","content":"x","embedding":[0.5,1e38]}`,
		`[1,2,3]`, ``, "\n\n", `{"content":"no scope"}`,
		// Data at the depth limit, past it, and a line past a request's (API-21).
		`{"tenant_id":"t","agent_id":"a","data":` + strings.Repeat("[", mnemo.MaxJSONDepth) + strings.Repeat("]", mnemo.MaxJSONDepth) + `}`,
		`{"tenant_id":"t","agent_id":"a","data":` + strings.Repeat(`{"a":`, mnemo.MaxJSONDepth+1) + "1" + strings.Repeat("}", mnemo.MaxJSONDepth+1) + `}`,
		`{"tenant_id":"t","agent_id":"a","content":"x","tags":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`,
	} {
		f.Add(s)
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	svc := service.New(db, service.Options{})
	keep := mnemo.Scope{TenantID: "keep", AgentID: "keep"}
	kept, err := svc.Remember(ctx, keep, mnemo.Draft{Key: "/kept", Content: str("must survive")})
	if err != nil {
		f.Fatal(err)
	}
	into := mnemo.Scope{TenantID: "fuzz", AgentID: "fuzz"}
	f.Fuzz(func(t *testing.T, in string) {
		if _, err := svc.Clear(ctx, into); err != nil {
			t.Fatal(err)
		}
		n, err := svc.Import(ctx, strings.NewReader(in), memory.ImportOptions{Scope: &into})
		ms, total, lerr := svc.List(ctx, into, mnemo.ListQuery{Filter: mnemo.Filter{IncludeArchived: true, IncludeExpired: true}})
		if lerr != nil {
			t.Fatal(lerr)
		}
		for _, m := range ms {
			if d := max(mnemo.JSONDepth(m.Data), mnemo.JSONDepth(m.Source)); d > mnemo.MaxJSONDepth {
				t.Fatalf("Import(%q) stored JSON %d levels deep", in, d)
			}
		}
		if err != nil {
			if c := mnemo.ErrorCode(err); c != mnemo.EINVALID && c != mnemo.ETOOLARGE {
				t.Fatalf("Import(%q): code %s: %v", in, c, err)
			}
			if total != 0 {
				t.Fatalf("failed import stored %d records", total)
			}
		} else if total != n.Imported || n.Updated != 0 {
			// Into an empty scope every memory is new (API-22).
			t.Fatalf("import reported %+v, stored %d", n, total)
		}
		// An import that worked exports and re-imports to the same bytes;
		// re-imported where it is, it changes nothing.
		if err == nil && n.Imported > 0 {
			var a, b bytes.Buffer
			svc.Export(ctx, into, &a, nil)
			if again, err := svc.Import(ctx, bytes.NewReader(a.Bytes()), memory.ImportOptions{Scope: &into}); err != nil || again != (memory.ImportResult{Skipped: total}) {
				t.Fatalf("the export imported again where it came from: %+v, %v; want %d skipped", again, err, total)
			}
			svc.Clear(ctx, into)
			if _, err := svc.Import(ctx, bytes.NewReader(a.Bytes()), memory.ImportOptions{Scope: &into}); err != nil {
				t.Fatalf("re-import of an export failed: %v\n%s", err, a.String())
			}
			svc.Export(ctx, into, &b, nil)
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("round trip differs:\n%s\n%s", a.String(), b.String())
			}
		}
		got, err := svc.Get(ctx, keep, kept.ID)
		if err != nil || got.Content != "must survive" {
			t.Fatalf("the kept memory changed: %+v %v", got, err)
		}
	})
}
