package failover_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/failover"
	"github.com/mnemo-dev/mnemo/internal/pgtest"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/service"
)

// proxy is a TCP proxy on loopback in front of a server, which a test
// takes down and brings back on the same port: the database as its
// clients see it going away. down resets every connection and refuses new
// ones (a server that died, a firewall that rejects); blackhole keeps
// every connection and accepts new ones but forwards nothing (a network
// that swallows packets), so that a client waits for an answer that never
// comes.
type proxy struct {
	t        testing.TB
	upstream string
	addr     string
	mu       sync.Mutex
	ln       net.Listener
	conns    map[net.Conn]bool
	hole     bool
}

// newProxy starts a proxy in front of the server of dsn (pgtest's, with a
// fresh schema) and returns it with the DSN through it.
func newProxy(t testing.TB, dsn string) (*proxy, string) {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, upstream: u.Host, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.down)
	u.Host = p.addr
	return p, u.String()
}

func (p *proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			hole := p.hole
			p.conns[c] = true
			p.mu.Unlock()
			if hole {
				go p.pipe(nil, c) // read and dropped
				continue
			}
			u, err := net.Dial("tcp", p.upstream)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns[u] = true
			p.mu.Unlock()
			go p.pipe(u, c)
			go p.pipe(c, u)
		}
	}()
}

// pipe copies src to dst, dropping what it reads while the proxy is a
// black hole (or always, with no dst).
func (p *proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		drop := p.hole || dst == nil
		p.mu.Unlock()
		if n > 0 && !drop {
			if _, err := dst.Write(buf[:n]); err != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	src.Close()
	if dst != nil {
		dst.Close()
	}
}

// down closes the listener and resets every connection.
func (p *proxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	p.resetLocked()
}

func (p *proxy) resetLocked() {
	for c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // RST, not FIN
		}
		c.Close()
	}
	p.conns = map[net.Conn]bool{}
}

// blackhole keeps every connection, and accepts new ones, but forwards
// nothing until up.
func (p *proxy) blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hole = true
}

// up forwards again: after down, it listens again on the same port; after
// blackhole, it resets the connections that lost bytes in it.
func (p *proxy) up() {
	p.mu.Lock()
	if p.hole {
		p.hole = false
		p.resetLocked()
	}
	listening := p.ln != nil
	p.mu.Unlock()
	if listening {
		return
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy: listen again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

func opener(dsn string) func(context.Context) (failover.Primary, error) {
	return func(ctx context.Context) (failover.Primary, error) {
		db, err := postgres.Open(ctx, dsn, postgres.Options{MaxConns: 4})
		if err != nil {
			return nil, err
		}
		return db, nil
	}
}

var alice = mnemo.Scope{TenantID: "t1", AgentID: "alice"}

func str(s string) *string { return &s }

// waitUp waits until the store has replayed its spool.
func waitUp(t *testing.T, fs *failover.Store) {
	t.Helper()
	testwait.Until(t, 30*time.Second, "the spool to be replayed", fs.Up)
}

// PG-4 and PG-7 against a real PostgreSQL taken down and brought back:
// writes while it is unreachable are acknowledged into the spool, recall
// answers from the spool flagged degraded, and when the database returns
// the spool is replayed in order (the last write of a key wins), counted
// and ledgered, and nothing acknowledged is missing.
func TestDatabaseDownSpoolsAndReplays(t *testing.T) {
	ctx := context.Background()
	direct := pgtest.Native(t)
	px, dsn := newProxy(t, direct)
	reg := prometheus.NewRegistry()
	spoolDir := filepath.Join(t.TempDir(), "spool")
	fs, err := failover.New(ctx, opener(dsn), spoolDir, failover.Options{ProbeEvery: 20 * time.Millisecond, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	var causes []string
	var mu sync.Mutex
	svc := service.New(fs, service.Options{OnDegraded: func(c string) { mu.Lock(); causes = append(causes, c); mu.Unlock() }})
	defer svc.Close()

	before, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("The office is closed on Friday")})
	if err != nil {
		t.Fatal(err)
	}

	px.down()
	var acked []mnemo.Memory
	for _, d := range []mnemo.Draft{
		{Content: str("Dana's birthday is on 12 May")},
		{Key: "/user/editor", Content: str("Prefers vim for quick edits")},
		{Content: str("The deploy freeze starts on Monday")},
		{Key: "/user/editor", Content: str("Switched to helix as the main editor")},
	} {
		m, err := svc.Remember(ctx, alice, d)
		if err != nil {
			t.Fatalf("write while the database is down: %v", err)
		}
		acked = append(acked, m)
	}
	if fs.Up() || fs.Spooled() != 4 {
		t.Fatalf("up %v, %d spooled", fs.Up(), fs.Spooled())
	}
	res, err := svc.Recall(ctx, alice, memory.Query{Text: "deploy freeze"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].ID != acked[2].ID || !res.Degraded || !strings.Contains(res.Reason, "local spool") {
		t.Fatalf("recall while down: %+v degraded %v %q", res.Results, res.Degraded, res.Reason)
	}
	if _, err := svc.Get(ctx, alice, before.ID); mnemo.ErrorCode(err) != mnemo.ENOTFOUND || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("a memory only the database has, while down: %v", err)
	}
	if _, err := svc.Forget(ctx, alice, []string{acked[0].ID}, nil); mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
		t.Fatalf("forget while down: %v", err)
	}
	if got := metric(t, reg, "mnemo_spool_writes_total"); got != 4 {
		t.Fatalf("spooled writes counted: %v", got)
	}

	px.up()
	waitUp(t, fs)
	if fs.Spooled() != 0 {
		t.Fatalf("%d records left in the spool", fs.Spooled())
	}

	// Straight from the database, not through the failover.
	db, err := postgres.Open(ctx, direct, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, m := range append([]mnemo.Memory{before}, acked[0], acked[2]) {
		if got, err := db.Get(ctx, alice, m.ID); err != nil || got.Content != m.Content {
			t.Fatalf("%s (%q) after the replay: %+v %v", m.ID, m.Content, got, err)
		}
	}
	if got, err := db.GetByKey(ctx, alice, "/user/editor"); err != nil || got.Content != "Switched to helix as the main editor" {
		t.Fatalf("the key's last write: %+v %v", got, err)
	}
	st, err := db.Stats(ctx, alice)
	if err != nil || st.Memories != 4 {
		t.Fatalf("stats after the replay: %+v %v", st, err)
	}
	es, _, err := db.Ledger(ctx, alice, mnemo.LedgerQuery{Action: mnemo.ActionDegrade})
	if err != nil {
		t.Fatal(err)
	}
	var spooledNote, replayNote, recallNote bool
	for _, e := range es {
		spooledNote = spooledNote || strings.Contains(e.Reason, "writes kept in the local spool")
		replayNote = replayNote || strings.Contains(e.Reason, "4 memories replayed")
		recallNote = recallNote || strings.Contains(e.Reason, "answered from the local spool")
	}
	if !spooledNote || !replayNote || !recallNote {
		t.Fatalf("ledger after the replay: %+v", es)
	}
	for name, want := range map[string]float64{"mnemo_store_up": 1, "mnemo_spool_replayed_total": 4, "mnemo_store_outages_total": 1, "mnemo_spool_pending": 0} {
		if got := metric(t, reg, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !containsString(causes, mnemo.DegradedStore) {
		t.Fatalf("degradation causes: %v", causes)
	}

	// Up again: recall is whole and not degraded.
	res, err = svc.Recall(ctx, alice, memory.Query{Text: "office closed"})
	if err != nil || len(res.Results) != 1 || res.Degraded {
		t.Fatalf("recall after the replay: %+v %v", res, err)
	}
}

// A database unreachable at start is no failure: the store starts down,
// spools, and replays once the database answers.
func TestDatabaseDownAtStart(t *testing.T) {
	ctx := context.Background()
	px, dsn := newProxy(t, pgtest.Native(t))
	px.down()
	fs, err := failover.New(ctx, opener(dsn), filepath.Join(t.TempDir(), "spool"), failover.Options{ProbeEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(fs, service.Options{})
	defer svc.Close()
	m, err := svc.Remember(ctx, alice, mnemo.Draft{Content: str("Written before the database was ever reached")})
	if err != nil {
		t.Fatal(err)
	}
	px.up()
	waitUp(t, fs)
	if got, err := svc.Get(ctx, alice, m.ID); err != nil || got.Content != m.Content {
		t.Fatalf("after the replay: %+v %v", got, err)
	}
}

// Any other error of the opener fails New.
func TestOpenErrorFails(t *testing.T) {
	bad := errors.New("bad DSN")
	_, err := failover.New(context.Background(), func(context.Context) (failover.Primary, error) { return nil, bad },
		filepath.Join(t.TempDir(), "spool"), failover.Options{})
	if !errors.Is(err, bad) {
		t.Fatalf("New = %v", err)
	}
}

// metric returns the value of the counter or gauge name in reg (summed
// over its series).
func metric(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		var v float64
		for _, m := range mf.GetMetric() {
			v += m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
		return v
	}
	t.Fatalf("no metric %s", name)
	return 0
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Nothing acknowledged is lost when the database comes back, goes away
// again in the middle of the replay, and comes back, while a writer keeps
// writing throughout: every memory whose write was acknowledged is in the
// database at the end, and the spool is empty.
func TestFlappingDatabaseLosesNothing(t *testing.T) {
	ctx := context.Background()
	direct := pgtest.Native(t)
	px, dsn := newProxy(t, direct)
	fs, err := failover.New(ctx, opener(dsn), filepath.Join(t.TempDir(), "spool"), failover.Options{ProbeEvery: 10 * time.Millisecond, ReplayBatch: 16})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(fs, service.Options{Guard: memory.GuardOptions{Off: true}})
	defer svc.Close()

	var (
		mu    sync.Mutex
		acked []mnemo.Memory
		stop  = make(chan struct{})
		wrote = make(chan struct{})
	)
	go func() {
		defer close(wrote)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			d := mnemo.Draft{Content: str(fmt.Sprintf("note %d written through the outage", i))}
			if i%7 == 0 {
				d.Key = fmt.Sprintf("/flap/%d", i%5)
			}
			m, err := svc.Remember(ctx, alice, d)
			if err != nil {
				continue // not acknowledged: nothing promised
			}
			mu.Lock()
			acked = append(acked, m)
			mu.Unlock()
		}
	}()
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	waitFor := func(n int) {
		testwait.Until(t, 20*time.Second, fmt.Sprintf("%d writes acknowledged", n), func() bool { return count() >= n })
	}
	waitFor(20)
	px.down()
	waitFor(count() + 150)
	px.up() // the replay starts within a probe
	waitFor(count() + 10)
	px.down() // and is cut, or the next writes are spooled again
	waitFor(count() + 50)
	px.up()
	waitFor(count() + 10)
	close(stop)
	<-wrote
	waitUp(t, fs)

	db, err := postgres.Open(ctx, direct, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	last := map[string]mnemo.Memory{} // key → its last acknowledged write
	for _, m := range acked {
		if m.Key != "" {
			last[m.Key] = m
			continue
		}
		if got, err := db.Get(ctx, alice, m.ID); err != nil || got.Content != m.Content {
			t.Fatalf("acknowledged %s (%q) is missing: %v", m.ID, m.Content, err)
		}
	}
	for key, m := range last {
		if got, err := db.GetByKey(ctx, alice, key); err != nil || got.Content != m.Content {
			t.Fatalf("key %s: %q, want its last write %q (%v)", key, got.Content, m.Content, err)
		}
	}
	if fs.Spooled() != 0 {
		t.Fatalf("%d records left in the spool", fs.Spooled())
	}
	t.Logf("%d writes acknowledged across two outages", len(acked))
}
