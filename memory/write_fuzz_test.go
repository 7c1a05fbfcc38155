package memory_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/embed/hashed"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// analysisEdges are texts at the edges of analysis: nothing an index
// keeps, or words it keeps oddly, which must never crash the Write Guard
// (OPS-8).
var analysisEdges = []string{
	"the of and is to a", // only stop words
	"Python*", "foo*bar*", "Deploys* Tuesdays*", "Lisb* * ** *x*",
	"?!... ,;: -- () [] {} \"'' …", // only punctuation
	"的了我们因为是在和",                    // only CJK function characters
	"🎉🚀😀👍🏽 🇵🇹 👨‍👩‍👧",
	"שלום עולם مرحبا بالعالم \u200f\u202e",      // right to left, with marks
	"e\u0301\u0301\u0301 a\u0300\u0300 \u0301x", // combining marks
	strings.Repeat("a", 2000),                   // one 2,000-character token
	strings.Repeat("ab*", 700),
	"don't won't can't 's 're", "0 1 2 3.5 -7 1e9", "\x00\xff\xfe", "",
}

// FuzzWrite writes any text through Service.Write with the Write Guard on
// over a real SQLite store that grows with each input, so that the guard
// finds neighbours. A write succeeds, and its memory reads back, or fails
// with a domain error naming bad input: never a panic, never internal.
func FuzzWrite(f *testing.F) {
	for _, s := range analysisEdges {
		f.Add(s, "")
		f.Add("Alice "+s+" likes tea", s)
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(f.TempDir(), "fuzz.db"), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	svc := service.New(db, service.Options{Embedder: hashed.New(64)})
	if err := svc.Init(ctx); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { svc.Close() })
	sc := mnemo.Scope{TenantID: "fuzz", AgentID: "fuzz"}
	f.Fuzz(func(t *testing.T, content, summary string) {
		d := mnemo.Draft{Content: &content, Summary: summary}
		for range 2 { // the second time, the guard meets its own text
			res, err := svc.Write(ctx, sc, []mnemo.Draft{d})
			if err != nil {
				if code := mnemo.ErrorCode(err); code == mnemo.EINTERNAL {
					t.Fatalf("write %q: %v", content, err)
				}
				return
			}
			if res[0].ID == "" {
				t.Fatalf("write %q: no id: %+v", content, res[0])
			}
			if _, err := svc.Get(ctx, sc, res[0].ID); err != nil {
				t.Fatalf("write %q: get %s: %v", content, res[0].ID, err)
			}
		}
	})
}
