package pgtest

import (
	"cmp"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/testwait"
)

// bouncerWait bounds PgBouncer's start.
const bouncerWait = 30 * time.Second

// bouncer is the PgBouncer this test binary started, if any.
var bouncer struct {
	mu  sync.Mutex
	dsn string
	cmd *exec.Cmd
	dir string
	err error
}

// PgBouncer returns the URL of a PgBouncer in transaction mode (pool_mode
// transaction: each transaction may run on another server connection) in
// front of the [Native] server's database, started once per test binary on
// a free loopback port and stopped by [Main]. The URL has no search_path
// (PgBouncer refuses startup parameters it does not know): a test names its
// schema some other way, as the postgres store does behind a pooler.
//
// A machine without the pgbouncer binary skips the test, saying so:
// `apt-get install pgbouncer` (scripts/pgservers.sh installs it).
func PgBouncer(t testing.TB) string {
	t.Helper()
	base := cmp.Or(os.Getenv(NativeEnv), DefaultNativeDSN)
	if err := native.ensure(base); err != nil {
		t.Fatalf("pgtest: PostgreSQL at %s: %v", redact(base), err)
	}
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		bin = "/usr/sbin/pgbouncer"
		if _, serr := os.Stat(bin); serr != nil {
			t.Skipf("PGBOUNCER NOT TESTED: no pgbouncer binary (%v); install it: apt-get install -y pgbouncer (scripts/pgservers.sh does)", err)
		}
	}
	bouncer.mu.Lock()
	defer bouncer.mu.Unlock()
	if bouncer.dsn == "" && bouncer.err == nil {
		bouncer.dsn, bouncer.err = startBouncer(bin, base)
	}
	if bouncer.err != nil {
		t.Fatalf("pgtest: PgBouncer in front of %s: %v", redact(base), bouncer.err)
	}
	return bouncer.dsn
}

// startBouncer starts pgbouncer in front of the server at base, as the
// postgres user when this process is root (PgBouncer refuses to run as
// root), and waits until it answers.
func startBouncer(bin, base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	db := u.Path[1:]
	if db == "" {
		return "", fmt.Errorf("no database in %s", redact(base))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir, err := os.MkdirTemp("", "mnemo-pgbouncer-")
	if err != nil {
		return "", err
	}
	bouncer.dir = dir
	userName := cmp.Or(u.User.Username(), "postgres")
	ini := fmt.Sprintf(`[databases]
%s = host=%s port=%s dbname=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
max_client_conn = 500
default_pool_size = 10
server_reset_query =
logfile = %s
`, db, u.Hostname(), cmp.Or(u.Port(), "5432"), db, port, filepath.Join(dir, "users.txt"), filepath.Join(dir, "pgbouncer.log"))
	if err := os.WriteFile(filepath.Join(dir, "pgbouncer.ini"), []byte(ini), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "users.txt"), []byte(strconv.Quote(userName)+` ""`+"\n"), 0o644); err != nil {
		return "", err
	}
	cmd := exec.Command(bin, filepath.Join(dir, "pgbouncer.ini"))
	// The server goes when this binary goes, however it ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		pg, err := user.Lookup("postgres")
		if err != nil {
			return "", fmt.Errorf("pgbouncer does not run as root, and there is no postgres user to run it as: %w", err)
		}
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return "", err
		}
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	out, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		return "", err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return "", err
	}
	out.Close()
	bouncer.cmd = cmd
	q := u.Query()
	q.Del("search_path")
	u.RawQuery = q.Encode()
	u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	dsn := u.String()
	budget := testwait.New(bouncerWait)
	for err = ping(dsn); err != nil && !budget.Over(); err = ping(dsn) {
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "stderr"))
		return "", fmt.Errorf("started pgbouncer, no answer on port %d after %v: %w; its output: %s", port, bouncerWait, err, trim(log))
	}
	return dsn, nil
}

// stopBouncer stops the PgBouncer this binary started.
func stopBouncer() {
	bouncer.mu.Lock()
	defer bouncer.mu.Unlock()
	if bouncer.cmd != nil {
		bouncer.cmd.Process.Kill()
		bouncer.cmd.Wait()
		bouncer.cmd = nil
	}
	if bouncer.dir != "" {
		os.RemoveAll(bouncer.dir)
	}
}
