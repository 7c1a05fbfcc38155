// Package testkit holds what the tests of several packages share: a
// settable clock, scopes, services over fresh SQLite stores, events, and
// the generated corpus and kept stores of the benchmarks. Only tests
// import it.
package testkit

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/embed/glove"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// Clock is a settable test clock: T is the time it tells.
type Clock struct{ T time.Time }

func (c *Clock) Now() time.Time          { return c.T }
func (c *Clock) Advance(d time.Duration) { c.T = c.T.Add(d) }

// NewClock returns a clock at 2026-03-01 12:00 UTC.
func NewClock() *Clock { return &Clock{time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func Str(s string) *string        { return &s }
func Tptr(t time.Time) *time.Time { return &t }

// Draft is a write of content with tags.
func Draft(content string, tags ...string) mnemo.Draft {
	return mnemo.Draft{Content: Str(content), Tags: tags}
}

// Two agents of one tenant.
var (
	Alice = mnemo.Scope{TenantID: "t1", AgentID: "alice"}
	Bob   = mnemo.Scope{TenantID: "t1", AgentID: "bob"}
)

// NewService returns a service over a fresh real SQLite store.
func NewService(t testing.TB, c *Clock) *service.Mnemo {
	return newService(t, sqlite.Options{Now: c.Now}, service.Options{Now: c.Now})
}

// NewFuzzService returns a service over a fresh real SQLite store with
// synchronous NORMAL, for a fuzzer: its inputs are about what a write
// holds, not whether it survives a crash, and a coverage-guided run that
// waits on an fsync a write barely gets anywhere.
func NewFuzzService(t testing.TB) *service.Mnemo {
	return newService(t, sqlite.Options{Synchronous: "NORMAL"}, service.Options{})
}

func newService(t testing.TB, so sqlite.Options, o service.Options) *service.Mnemo {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "mnemo.db"), so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return service.New(db, o)
}

// NewSemantic returns a service with an embedder over a fresh real SQLite
// store in dir (a new temporary one when dir is "").
func NewSemantic(t testing.TB, c *Clock, dir string, opts service.Options) *service.Mnemo {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "mnemo.db"), sqlite.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	opts.Now = c.Now
	if opts.Embedder == nil {
		opts.Embedder = glove.New()
	}
	svc := service.New(db, opts)
	t.Cleanup(func() { svc.Close() })
	return svc
}

// NewEventService returns a service with event options over a fresh store,
// and the store.
func NewEventService(t testing.TB, c *Clock, o events.Options) (*service.Mnemo, *sqlite.DB) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return service.New(db, service.Options{Now: c.Now, Events: o}), db
}

// Event returns an event of type typ from source at ts, with data when not
// empty.
func Event(typ, source string, ts time.Time, data string) mnemo.Event {
	e := mnemo.Event{Type: typ, Source: source, TS: ts}
	if data != "" {
		e.Data = json.RawMessage(data)
	}
	return e
}

// MustAppend appends es to scope and returns them as stored.
func MustAppend(t testing.TB, svc *service.Mnemo, scope mnemo.Scope, es ...mnemo.Event) []mnemo.Event {
	t.Helper()
	out, err := svc.AppendEvents(context.Background(), scope, es)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Corpus generates chat-like sentences from a Zipf-distributed vocabulary,
// the same for every run.
type Corpus struct {
	Words []string
	Rng   *rand.Rand
	zipf  *rand.Zipf
}

// NewCorpus returns the corpus of seed.
func NewCorpus(seed uint64) *Corpus {
	rng := rand.New(rand.NewPCG(seed, 7))
	syll := []string{"ka", "lo", "mi", "ren", "ta", "vos", "pel", "dri", "su", "nor", "bex", "qui", "fa", "zen", "ho", "lut"}
	words := make([]string, 5000)
	for i := range words {
		var b strings.Builder
		for j := 0; j < 2+i%3; j++ {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		words[i] = b.String()
	}
	return &Corpus{Words: words, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1)), Rng: rng}
}

// Sentence returns n words.
func (c *Corpus) Sentence(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = c.Words[c.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

// Query picks 2–4 words of middling frequency, like a real question's
// content words.
func (c *Corpus) Query() string {
	n := 2 + c.Rng.IntN(3)
	w := make([]string, n)
	for i := range w {
		w[i] = c.Words[20+c.Rng.IntN(2000)]
	}
	return strings.Join(w, " ")
}

// BenchScope is the one agent of the benchmarks.
var BenchScope = mnemo.Scope{TenantID: "bench", AgentID: "agent"}

var fixtureMu sync.Mutex

// KeptStore returns the path of a store that fill filled once, kept in the
// temp dir as name for later runs.
func KeptStore(b *testing.B, name string, fill func(svc *service.Mnemo) error) string {
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	dir := filepath.Join(os.TempDir(), name)
	path := filepath.Join(dir, "mnemo.db")
	if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
		return path
	}
	os.RemoveAll(dir)
	db, err := sqlite.Open(context.Background(), path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	// Generated data is loaded as an import is: past the Write Guard.
	if err := fill(service.New(db, service.Options{Guard: memory.GuardOptions{Off: true}})); err != nil {
		b.Fatal(err)
	}
	db.Close()
	os.WriteFile(filepath.Join(dir, "done"), nil, 0o644)
	return path
}

// OpenCopy opens a private copy of a kept store, so benchmarks that write
// do not change it.
func OpenCopy(b *testing.B, path string, opts service.Options) (*service.Mnemo, *sqlite.DB) {
	dst := filepath.Join(b.TempDir(), "mnemo.db")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		b.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), dst, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return service.New(db, opts), db
}

// ReportPercentiles adds p50-ms and p95-ms metrics.
func ReportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	ms := func(p float64) float64 { return float64(d[min(len(d)-1, int(p*float64(len(d))))]) / 1e6 }
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.95), "p95-ms")
}

// WantCode fails t unless err has code (mnemo.ErrorCode); what names the call.
func WantCode(t testing.TB, what string, err error, code string) {
	t.Helper()
	if got := mnemo.ErrorCode(err); got != code {
		t.Fatalf("%s: error %v (code %q), want code %q", what, err, got, code)
	}
}

// NewContextService is a Mnemo over a fresh SQLite store with the context
// (prompt) options co.
func NewContextService(t testing.TB, c *Clock, co agentcontext.Options) *service.Mnemo {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return service.New(db, service.Options{Now: c.Now, Context: co})
}
