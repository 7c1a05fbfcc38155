// Package pgtest gives the tests of any package real PostgreSQL servers, with
// a fresh schema per call that is dropped when the test ends:
//
//   - [Native]: Debian's PostgreSQL 15 on 127.0.0.1:5432 (database test,
//     trust auth, no pgvector: the degraded path), or MNEMO_TEST_PG_DSN. If
//     the local server is down, Native starts it with pg_ctlcluster.
//   - [Vector]: a server with the pgvector (`vector`) and `pg_trgm`
//     extensions: one of MNEMO_TEST_PGVECTOR_DSNS, claimed by this test
//     binary, or MNEMO_TEST_PGVECTOR_DSN, when set (`make test` starts
//     PGlites beside the tests, for the whole run, and sets both; the first
//     Vector waits for its server's first answer), otherwise a PGlite
//     server that this test binary starts once with scripts/pglite/start.sh.
//   - [PgBouncer]: a PgBouncer in transaction mode in front of Native's
//     database, started once per test binary on a free port (skipped, with
//     the reason, only when the pgbouncer binary is missing); its DSN has
//     no schema (PgBouncer refuses a search_path startup parameter).
//
// A server that cannot be reached or started fails the test with the
// reason; nothing else is skipped.
//
// Each call creates schema mnemo_t_<random> and returns a DSN whose
// search_path is "mnemo_t_<random>,public". The extensions live in public,
// created there by pgtest (vector and pg_trgm on the vector server, pg_trgm
// on the native one when it has it), so CREATE EXTENSION IF NOT EXISTS in
// code under test finds them and never creates them into a test schema.
//
// # PGlite
//
// PGlite is PostgreSQL 18 compiled to wasm, served over the wire protocol by
// pglite-server. It has one backend session, and pglite-server multiplexes
// every connection onto it: SET, prepared statements and temporary tables
// are shared by all connections, and a transaction holds the session for its
// connection until it ends (SET LOCAL stays local, as on PostgreSQL).
// What follows from that, as measured with PGlite 0.5.14, pglite-socket
// 0.2.17 and pgvector 0.8.7:
//
//   - Startup parameters are ignored, so the search_path in the DSN has no
//     effect there. Vector sets it on the session instead (after DISCARD ALL,
//     so no state leaks from the test before), and so one test at a time
//     holds the PGlite session, from its Vector call to its cleanup. Other
//     tests wait, in this process and, through a lock file in os.TempDir,
//     in other test binaries sharing the server. So every test that uses a
//     shared PGlite must get its session through Vector: one that SETs
//     things on it any other way breaks the tests of other binaries (seen:
//     a suite with a mutex of its own run beside pgtest's tests, each
//     failing on the other's search_path). A test gets one Vector schema at
//     a time: a test or subtest calling Vector while it or its parent holds
//     the session fails at once rather than deadlock.
//   - With several connections, pgx's extended protocol fails (prepared
//     statement "stmtcache_…" already exists, or messages of two
//     connections interleave), so Vector's DSNs carry
//     default_query_exec_mode=simple_protocol.
//   - COPY FROM STDIN (pgx.CopyFrom) breaks the server: the connection loses
//     protocol synchronisation and the server answers no one after. Bulk
//     loads must use batched INSERT against it.
//   - Extensions must be named when the server starts; start.sh names vector
//     and pg_trgm.
//
// A test binary that uses Vector without MNEMO_TEST_PGVECTOR_DSN should call
// [Main] from its TestMain, so the server it started stops when it exits;
// without it the server stops within a second or so of the binary's exit.
package pgtest

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-dev/mnemo/internal/testwait"
)

// The environment variables that point pgtest at servers started elsewhere.
// VectorsEnv, when set, names several pgvector servers (space-separated
// DSNs; scripts/pgservers.sh starts two PGlites): each test binary claims
// one of them for its life, so that two binaries' PGlite tests need not
// take turns on one session.
const (
	NativeEnv  = "MNEMO_TEST_PG_DSN"
	VectorEnv  = "MNEMO_TEST_PGVECTOR_DSN"
	VectorsEnv = "MNEMO_TEST_PGVECTOR_DSNS"
)

// DefaultNativeDSN is Debian's PostgreSQL 15 on this kind of machine.
const DefaultNativeDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// The waits below are in quiet-machine time: they stretch with the load
// (internal/testwait).
const (
	schemaPrefix = "mnemo_t_"
	// nativeStartWait bounds the wait for a (re)started local server.
	nativeStartWait = 60 * time.Second
	// pgliteStartWait bounds start.sh, npm ci included.
	pgliteStartWait = 5 * time.Minute
	// sessionWait bounds how long one other test may hold the PGlite
	// session while a test waits: long for a test, short of go test's own
	// timeout.
	sessionWait = 5 * time.Minute
)

// Native returns a DSN for the PostgreSQL server without pgvector, with a
// fresh schema first on its search_path, dropped (CASCADE) when t ends.
func Native(t testing.TB) string {
	t.Helper()
	base := cmp.Or(os.Getenv(NativeEnv), DefaultNativeDSN)
	if err := native.ensure(base); err != nil {
		t.Fatalf("pgtest: PostgreSQL at %s: %v", redact(base), err)
	}
	dsn, err := newSchema(t, base, false)
	if err != nil {
		t.Fatalf("pgtest: PostgreSQL at %s: %v", redact(base), err)
	}
	return dsn
}

// Vector returns a DSN for a PostgreSQL server with the vector and pg_trgm
// extensions, with a fresh schema first on its search_path, dropped
// (CASCADE) when t ends. On PGlite, t holds the server's one session until
// it ends (see the package doc).
func Vector(t testing.TB) string {
	t.Helper()
	srv, err := vector.get()
	if err != nil {
		t.Fatalf("pgtest: pgvector server: %v", err)
	}
	if srv.pglite {
		if err := srv.session.acquire(t); err != nil {
			t.Fatalf("pgtest: PGlite at %s: %v", redact(srv.dsn), err)
		}
	}
	dsn, err := newSchema(t, srv.dsn, srv.pglite)
	if err != nil {
		t.Fatalf("pgtest: pgvector server at %s: %v", redact(srv.dsn), err)
	}
	return dsn
}

// VectorServer returns the DSN of the pgvector server itself, started if
// need be, with no schema of its own and without holding PGlite's session:
// for set-up that every test shares (CREATE EXTENSION IF NOT EXISTS, say).
// A test that writes gets its schema from [Vector].
func VectorServer(t testing.TB) string {
	t.Helper()
	srv, err := vector.get()
	if err != nil {
		t.Fatalf("pgtest: pgvector server: %v", err)
	}
	return srv.dsn
}

// Main runs the tests and stops the PGlite server this binary started, if
// any. Call it from TestMain: func TestMain(m *testing.M) { pgtest.Main(m) }.
func Main(m *testing.M) {
	code := m.Run()
	vector.stop()
	stopBouncer()
	os.Exit(code)
}

// newSchema creates a schema on the server at base and returns base with
// that schema on its search_path. On PGlite (shared) it also resets the one
// session and sets its search_path, since PGlite ignores startup parameters.
func newSchema(t testing.TB, base string, shared bool) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("not a postgres:// URL (pgtest needs the URL form)")
	}
	var b [8]byte
	rand.Read(b[:])
	schema := schemaPrefix + hex.EncodeToString(b[:])
	searchPath := schema + ",public" // no space: pgx reads a "+" in the URL literally

	q := u.Query()
	q.Set("search_path", searchPath)
	if shared {
		q.Set("default_query_exec_mode", "simple_protocol")
	}
	u.RawQuery = q.Encode()
	dsn := u.String()

	ctx, cancel := testwait.Context(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if shared {
		if _, err := conn.Exec(ctx, "DISCARD ALL"); err != nil {
			return "", fmt.Errorf("reset the session: %w", err)
		}
	}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", fmt.Errorf("create schema: %w", err)
	}
	t.Cleanup(func() {
		ctx, cancel := testwait.Context(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
		}
		if shared {
			if _, err := conn.Exec(ctx, "DISCARD ALL"); err != nil {
				t.Errorf("pgtest: reset the PGlite session: %v", err)
			}
		}
	})
	if shared {
		if _, err := conn.Exec(ctx, "SET search_path TO "+schema+", public"); err != nil {
			return "", fmt.Errorf("set search_path: %w", err)
		}
	}
	return dsn, nil
}

// nativeServer (re)starts the local server once per process if it is down.
type nativeServer struct {
	mu sync.Mutex
	up map[string]bool // base DSNs seen answering
}

var native nativeServer

func (s *nativeServer) ensure(base string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.up[base] {
		return nil
	}
	err := ping(base)
	if err != nil {
		var answered *pgconn.PgError // the server is up and said no
		port, local := localPort(base)
		if !local || errors.As(err, &answered) {
			return err
		}
		if serr := startCluster(port); serr != nil {
			return fmt.Errorf("%w; starting it: %w", err, serr)
		}
		budget := testwait.New(nativeStartWait)
		for err = ping(base); err != nil && !errors.As(err, &answered) && !budget.Over(); err = ping(base) {
			time.Sleep(250 * time.Millisecond)
		}
		if err != nil {
			return fmt.Errorf("started with pg_ctlcluster, still no answer after %v: %w", nativeStartWait, err)
		}
	}
	if err := createExtensions(base, "pg_trgm"); err != nil {
		return err
	}
	if s.up == nil {
		s.up = make(map[string]bool)
	}
	s.up[base] = true
	return nil
}

func ping(dsn string) error {
	ctx, cancel := testwait.Context(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.Ping(ctx)
}

// localPort reports the port of a DSN on a loopback host.
func localPort(dsn string) (string, bool) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", false
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", false
	}
	return cmp.Or(u.Port(), "5432"), true
}

// startCluster starts the Debian cluster that listens on port, the way the
// machine starts it at boot (there is no systemd to redirect to).
func startCluster(port string) error {
	out, err := exec.Command("pg_lsclusters", "--no-header").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_lsclusters: %w: %s", err, trim(out))
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line) // Ver Cluster Port Status Owner Data Log
		if len(f) < 4 || f[2] != port {
			continue
		}
		if f[3] == "online" {
			return fmt.Errorf("cluster %s/%s is online but does not answer", f[0], f[1])
		}
		cmd := exec.Command("pg_ctlcluster", "--skip-systemctl-redirect", f[0], f[1], "start")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, trim(out))
		}
		return nil
	}
	return fmt.Errorf("no Debian cluster on port %s (pg_lsclusters: %s)", port, trim(out))
}

func trim(out []byte) string { return strings.TrimSpace(string(out)) }

// createExtensions creates the extensions in public if the server has them,
// serialised across processes by an advisory lock (concurrent CREATE
// EXTENSION IF NOT EXISTS can fail on a unique violation).
func createExtensions(dsn string, names ...string) error {
	ctx, cancel := testwait.Context(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(7297090870)"); err != nil {
			return err
		}
		for _, name := range names {
			if _, err := tx.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+name+" SCHEMA public"); err != nil {
				return fmt.Errorf("create extension %s: %w", name, err)
			}
		}
		return nil
	})
}

// vectorServer is the pgvector server of this process: found or started
// once.
type vectorServer struct {
	once    sync.Once
	dsn     string
	pglite  bool
	pid     int      // of the PGlite server this process started, or 0
	claim   *os.File // held open, so locked, while this process uses dsn
	err     error
	session session
}

var vector vectorServer

func (s *vectorServer) get() (*vectorServer, error) {
	s.once.Do(func() {
		s.dsn = os.Getenv(VectorEnv)
		if dsns := strings.Fields(os.Getenv(VectorsEnv)); len(dsns) > 0 {
			s.dsn, s.claim = claimServer(dsns)
		}
		if s.dsn != "" {
			// scripts/pgservers.sh starts its PGlites beside the tests.
			if s.err = awaitServer(s.dsn); s.err != nil {
				return
			}
		} else {
			s.dsn, s.pid, s.err = startPGlite()
			if s.err != nil {
				return
			}
		}
		s.pglite, s.err = isPGlite(s.dsn)
		if s.err != nil {
			return
		}
		if s.pglite {
			s.session.lockPath = lockPath(s.dsn)
		}
		if err := createExtensions(s.dsn, "vector", "pg_trgm"); err != nil {
			s.err = fmt.Errorf("no pgvector: %w", err)
		}
	})
	return s, s.err
}

func (s *vectorServer) stop() {
	if s.pid == 0 {
		return
	}
	if p, err := os.FindProcess(s.pid); err == nil {
		p.Signal(syscall.SIGTERM)
	}
	s.pid = 0
	os.Remove(s.session.lockPath)
}

// claimServer picks, among several pgvector servers, one no other test
// binary has claimed, and keeps it claimed until this process exits (a
// flock, which dies with the process). When every one is claimed it shares
// one, chosen by process id; the session lock still serialises its users.
func claimServer(dsns []string) (string, *os.File) {
	for _, dsn := range dsns {
		if f := tryLockFile(lockPath(dsn) + ".claim"); f != nil {
			return dsn, f
		}
	}
	return dsns[os.Getpid()%len(dsns)], nil
}

// awaitServer waits until the server at dsn answers a query, for up to
// pgliteStartWait: scripts/pgservers.sh starts its PGlites while the tests
// run, and writes why one did not start into os.TempDir's
// mnemo-pglite-PORT.failed, which ends the wait at once.
func awaitServer(dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return fmt.Errorf("not a URL: %w", err)
	}
	failed := filepath.Join(os.TempDir(), "mnemo-pglite-"+u.Port()+".failed")
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	ctx, cancel := testwait.Context(context.Background(), pgliteStartWait)
	defer cancel()
	for {
		if why, err := os.ReadFile(failed); err == nil {
			return fmt.Errorf("%s did not start: %s", redact(dsn), strings.TrimSpace(string(why)))
		}
		actx, acancel := context.WithTimeout(ctx, 10*time.Second)
		conn, err := pgx.ConnectConfig(actx, cfg)
		if err == nil {
			err = conn.Ping(actx)
			conn.Close(actx)
		}
		acancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no answer from %s after %v of quiet-machine time: %w", redact(dsn), pgliteStartWait, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// startPGlite starts a PGlite server with scripts/pglite/start.sh on a free
// loopback port; start.sh stops it when this process exits.
func startPGlite() (dsn string, pid int, err error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", 0, errors.New("cannot find scripts/pglite/start.sh: no caller information")
	}
	script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "pglite", "start.sh")
	ctx, cancel := testwait.Context(context.Background(), pgliteStartWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script, "0", strconv.Itoa(os.Getpid()))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w: %s", script, err, strings.TrimSpace(stderr.String()))
	}
	var port int
	if _, err := fmt.Sscan(string(out), &pid, &port); err != nil {
		return "", 0, fmt.Errorf("%s printed %q, want \"PID PORT\": %w", script, out, err)
	}
	return PGliteDSN(port), pid, nil
}

// PGliteDSN is the DSN of a PGlite server started by scripts/pglite/start.sh.
func PGliteDSN(port int) string {
	return fmt.Sprintf("postgres://postgres:postgres@127.0.0.1:%d/postgres?sslmode=disable&default_query_exec_mode=simple_protocol", port)
}

func isPGlite(dsn string) (bool, error) {
	ctx, cancel := testwait.Context(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return false, err
	}
	// Simple protocol until we know: extended fails on a busy PGlite.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, err
	}
	defer conn.Close(ctx)
	var version string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return false, err
	}
	return strings.Contains(version, "PGlite"), nil
}

// session hands PGlite's one session to one test at a time: a channel for
// the tests of this process, a file lock for other processes.
type session struct {
	once     sync.Once
	sem      chan struct{}
	mu       sync.Mutex
	holder   string           // name of the test holding the session
	held     *testwait.Budget // since it took it
	lockPath string
}

func (s *session) acquire(t testing.TB) error {
	s.once.Do(func() { s.sem = make(chan struct{}, 1) })
	s.mu.Lock()
	h := s.holder
	s.mu.Unlock()
	if h != "" && (h == t.Name() || strings.HasPrefix(t.Name(), h+"/")) {
		return fmt.Errorf("%s already holds the session: a test gets one Vector schema at a time", h)
	}
	// Waiting behind many tests is fine; one test holding the session
	// for longer than sessionWait is not.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for acquired := false; !acquired; {
		select {
		case s.sem <- struct{}{}:
			acquired = true
		case <-tick.C:
			s.mu.Lock()
			holder, held := s.holder, s.held
			s.mu.Unlock()
			if holder != "" && held.Over() {
				return fmt.Errorf("%s has held the session for more than %v of quiet-machine time", holder, sessionWait)
			}
		}
	}
	unlock, err := lockFile(s.lockPath, t.Name(), sessionWait)
	if err != nil {
		<-s.sem
		return err
	}
	s.mu.Lock()
	s.holder, s.held = t.Name(), testwait.New(sessionWait)
	s.mu.Unlock()
	t.Cleanup(func() {
		s.mu.Lock()
		s.holder = ""
		s.mu.Unlock()
		unlock()
		<-s.sem
	})
	return nil
}

// lockPath names the lock file of the server at dsn.
func lockPath(dsn string) string {
	u, _ := url.Parse(dsn)
	name := strings.NewReplacer(":", "_", "[", "", "]", "").Replace(u.Host)
	return filepath.Join(os.TempDir(), "mnemo-pgtest-"+name+".lock")
}

// redact hides the password of a DSN in messages.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(a DSN that is not a URL)"
	}
	return u.Redacted()
}
