package natsbus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/internal/testwait"
	"github.com/mnemo-dev/mnemo/natsbus"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
)

// natsURL returns the URL of a real NATS server: the one on this machine
// at 127.0.0.1:4222, or one the test starts on a free port.
func natsURL(t *testing.T) string {
	t.Helper()
	if c, err := net.DialTimeout("tcp", "127.0.0.1:4222", time.Second); err == nil {
		c.Close()
		return "nats://127.0.0.1:4222"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("/usr/sbin/nats-server", "-a", "127.0.0.1", "-p", fmt.Sprint(port))
	if err := cmd.Start(); err != nil {
		t.Fatalf("no NATS server at 127.0.0.1:4222 and none could be started: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	testwait.Until(t, 10*time.Second, "the NATS server started at "+addr+" to answer", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return "nats://" + addr
}

// TestReplayToNATS replays a window to a real NATS server; a subscriber
// gets every event once, in order, on its subject, with its id.
func TestReplayToNATS(t *testing.T) {
	ctx := context.Background()
	url := natsURL(t)
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemo.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := service.New(db, service.Options{})
	scope := mnemo.Scope{TenantID: "t1", AgentID: "agent.one"}
	start := time.Now().Add(-time.Hour)
	var in []mnemo.Event
	for i := range 50 {
		in = append(in, mnemo.Event{Type: []string{"AgentStarted", "tool called"}[i%2], Source: "s", TS: start.Add(time.Duration(i) * time.Second),
			Data: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))})
	}
	in, err = svc.AppendEvents(ctx, scope, in)
	if err != nil {
		t.Fatal(err)
	}

	sub, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	prefix := fmt.Sprintf("test.%d", time.Now().UnixNano()) // apart from other runs on the shared server
	msgs := make(chan *nats.Msg, 100)
	s, err := sub.ChanSubscribe(prefix+".>", msgs)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Unsubscribe()
	if err := sub.Flush(); err != nil {
		t.Fatal(err)
	}

	nc, err := natsbus.Dial(url, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sink := natsbus.New(nc, prefix)
	res, err := svc.Replay(ctx, scope, events.ReplayOptions{Speed: 0}, sink)
	if err != nil || res.Published != len(in) {
		t.Fatalf("replay: %+v %v", res, err)
	}
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for i, want := range in {
		select {
		case m := <-msgs:
			var got mnemo.Event
			if err := json.Unmarshal(m.Data, &got); err != nil {
				t.Fatal(err)
			}
			wantSubject := prefix + ".t1.agent_one." + map[string]string{"AgentStarted": "AgentStarted", "tool called": "tool_called"}[want.Type]
			if got.ID != want.ID || m.Subject != wantSubject || m.Header.Get(nats.MsgIdHdr) != want.ID || string(got.Data) != string(want.Data) {
				t.Fatalf("message %d: %s %s %+v, want %s on %s", i, m.Subject, m.Header.Get(nats.MsgIdHdr), got, want.ID, wantSubject)
			}
		case <-testwait.After(t, 10*time.Second):
			t.Fatalf("got %d of %d events", i, len(in))
		}
	}
}

func TestDialUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if _, err := natsbus.Dial("nats://"+addr, time.Second); mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
		t.Fatalf("dial a closed port: %v", err)
	}
}
