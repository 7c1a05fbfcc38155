package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGBin is where Debian's PostgreSQL 15 server programs are.
const PGBin = "/usr/lib/postgresql/15/bin"

// Pair is a primary PostgreSQL 15 cluster and a streaming replica of it,
// each on a port of its own, in a temporary directory: what a test of
// read replicas needs (PG-11). Its DSNs name the database postgres.
type Pair struct {
	Primary, Replica string // DSNs
	dir              string
	t                testing.TB
}

// StreamingPair creates, with initdb and pg_basebackup -R, a primary
// cluster and a streaming replica of it from Debian's binaries, run as the
// postgres OS user when the test runs as root (initdb refuses root);
// both are stopped and removed when t ends. A machine without the
// binaries fails the test with the reason.
func StreamingPair(t testing.TB) *Pair {
	t.Helper()
	if _, err := os.Stat(filepath.Join(PGBin, "initdb")); err != nil {
		t.Fatalf("pgtest: PostgreSQL 15's server programs: %v", err)
	}
	dir, err := os.MkdirTemp("", "mnemo-pair-")
	if err != nil {
		t.Fatal(err)
	}
	p := &Pair{dir: dir, t: t}
	t.Cleanup(func() {
		for _, c := range []string{"replica", "primary"} {
			p.ctl(c, "stop", "-m", "immediate")
		}
		os.RemoveAll(dir)
	})
	if err := p.chown(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	pp, rp := freePort(t), freePort(t)
	if out, err := p.run("initdb", "-D", p.path("primary"), "-U", "postgres", "--auth=trust", "--no-sync"); err != nil {
		t.Fatalf("pgtest: initdb: %v\n%s", err, out)
	}
	conf := fmt.Sprintf("port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nfsync = off\nshared_buffers = 16MB\nmax_wal_senders = 4\nwal_level = replica\nhot_standby = on\nwal_receiver_status_interval = 1s\n", pp, dir)
	if err := appendFile(p.path("primary", "postgresql.conf"), conf); err != nil {
		t.Fatal(err)
	}
	if out, err := p.ctl("primary", "start"); err != nil {
		t.Fatalf("pgtest: start the primary: %v\n%s", err, out)
	}
	if out, err := p.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(pp), "-U", "postgres",
		"-D", p.path("replica"), "-R", "-X", "stream", "--no-sync"); err != nil {
		t.Fatalf("pgtest: pg_basebackup: %v\n%s", err, out)
	}
	if err := appendFile(p.path("replica", "postgresql.auto.conf"), fmt.Sprintf("port = %d\n", rp)); err != nil {
		t.Fatal(err)
	}
	if out, err := p.StartReplica(); err != nil {
		t.Fatalf("pgtest: start the replica: %v\n%s", err, out)
	}
	p.Primary = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", pp)
	p.Replica = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", rp)
	return p
}

// StopReplica stops the replica at once, as a crash would.
func (p *Pair) StopReplica() ([]byte, error) { return p.ctl("replica", "stop", "-m", "immediate") }

// StartReplica starts the replica again and waits until it answers.
func (p *Pair) StartReplica() ([]byte, error) { return p.ctl("replica", "start") }

// WaitReplayed waits until the replica has replayed everything the
// primary has written so far.
func (p *Pair) WaitReplayed(ctx context.Context) error {
	pc, err := pgx.Connect(ctx, p.Primary)
	if err != nil {
		return err
	}
	defer pc.Close(ctx)
	var lsn string
	if err := pc.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		return err
	}
	rc, err := pgx.Connect(ctx, p.Replica)
	if err != nil {
		return err
	}
	defer rc.Close(ctx)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var done bool
		if err := rc.QueryRow(ctx, `SELECT pg_last_wal_replay_lsn() >= $1::text::pg_lsn`, lsn).Scan(&done); err != nil {
			return err
		}
		if done {
			return nil
		}
	}
	return fmt.Errorf("the replica has not replayed %s in a minute", lsn)
}

func (p *Pair) path(elem ...string) string { return filepath.Join(append([]string{p.dir}, elem...)...) }

func (p *Pair) ctl(cluster string, args ...string) ([]byte, error) {
	args = append([]string{"-D", p.path(cluster), "-l", p.path(cluster + ".log"), "-w", "-t", "60"}, args...)
	return p.run("pg_ctl", args...)
}

// run runs a PostgreSQL program, as the postgres user when this process
// is root.
func (p *Pair) run(prog string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(PGBin, prog), args...)
	cmd.Dir = p.dir
	if os.Geteuid() == 0 {
		uid, gid, err := postgresUser()
		if err != nil {
			return nil, err
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	}
	return cmd.CombinedOutput()
}

// chown gives the pair's directory to the postgres user when this process
// is root.
func (p *Pair) chown() error {
	if os.Geteuid() != 0 {
		return nil
	}
	uid, gid, err := postgresUser()
	if err != nil {
		return err
	}
	return os.Chown(p.dir, int(uid), int(gid))
}

func postgresUser() (uint32, uint32, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return 0, 0, fmt.Errorf("running PostgreSQL as root needs the postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return uint32(uid), uint32(gid), nil
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// freePort returns a loopback TCP port free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
