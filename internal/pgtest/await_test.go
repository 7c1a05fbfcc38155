package pgtest

import (
	"cmp"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAwaitServer: a server started beside the tests is waited for until
// it answers; one whose start failed ends the wait at once with the reason
// pgservers.sh wrote.
func TestAwaitServer(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	native, err := url.Parse(cmp.Or(os.Getenv(NativeEnv), DefaultNativeDSN))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("answers late", func(t *testing.T) {
		// A port that refuses connections for a while, then forwards them
		// to the native server: a PGlite still starting.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		var wg sync.WaitGroup
		t.Cleanup(wg.Wait)
		opened := make(chan net.Listener, 1)
		wg.Go(func() {
			time.Sleep(300 * time.Millisecond)
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				t.Errorf("listen again on %d: %v", port, err)
				close(opened)
				return
			}
			opened <- ln
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				wg.Go(func() { forward(c, native.Host) })
			}
		})
		t.Cleanup(func() {
			if ln, ok := <-opened; ok {
				ln.Close()
			}
		})
		dsn := *native
		dsn.Host = fmt.Sprintf("127.0.0.1:%d", port)
		start := time.Now()
		if err := awaitServer(dsn.String()); err != nil {
			t.Fatalf("awaitServer: %v", err)
		}
		if waited := time.Since(start); waited < 300*time.Millisecond {
			t.Errorf("answered after %v, before the server listened", waited)
		}
	})

	t.Run("did not start", func(t *testing.T) {
		dsn := "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable"
		why := "pglite: no answer on 127.0.0.1:1 after 120s"
		if err := os.WriteFile(filepath.Join(os.TempDir(), "mnemo-pglite-1.failed"), []byte(why+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := awaitServer(dsn)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Fatalf("awaitServer = %v, want the reason %q", err, why)
		}
	})
}

// forward copies c to and from a new connection to addr until either ends.
func forward(c net.Conn, addr string) {
	defer c.Close()
	s, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer s.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(s, c); done <- struct{}{} }()
	go func() { io.Copy(c, s); done <- struct{}{} }()
	<-done
}
