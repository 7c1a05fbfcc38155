// Package natsbus publishes events to NATS: each event as JSON on a subject
// made of a prefix, the scope and the event's type.
package natsbus

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

// DefaultPrefix is the subjects' prefix unless one is given.
const DefaultPrefix = "mnemo.events"

// Sink is a events.Sink publishing to a NATS connection.
type Sink struct {
	nc     *nats.Conn
	prefix string
}

var _ events.Sink = (*Sink)(nil)

// Dial connects to the NATS server at url (nats://host:port), failing
// with EUNAVAILABLE when it cannot be reached within timeout.
func Dial(url string, timeout time.Duration) (*nats.Conn, error) {
	nc, err := nats.Connect(url, nats.Name("mnemo"), nats.Timeout(timeout), nats.MaxReconnects(3))
	if err != nil {
		return nil, mnemo.Errorf(mnemo.EUNAVAILABLE, "NATS server %s: %v", url, err)
	}
	return nc, nil
}

// New returns a Sink on nc; prefix "" means DefaultPrefix.
func New(nc *nats.Conn, prefix string) *Sink {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Sink{nc: nc, prefix: prefix}
}

// Subject is where e is published: prefix.tenant.agent.type, each token
// with the characters NATS gives a meaning ('.', '*', '>', spaces) made '_'.
func (s *Sink) Subject(e mnemo.Event) string {
	return s.prefix + "." + token(e.TenantID) + "." + token(e.AgentID) + "." + token(e.Type)
}

func token(s string) string {
	if s == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '.', '*', '>', ' ', '\t', '\r', '\n':
			return '_'
		}
		return r
	}, s)
}

// Publish implements events.Sink. The event's id is the message's
// Nats-Msg-Id, so that a JetStream stream drops a replayed duplicate.
func (s *Sink) Publish(ctx context.Context, e mnemo.Event) error {
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("natsbus: %w", err)
	}
	msg := nats.NewMsg(s.Subject(e))
	msg.Data = body
	msg.Header.Set(nats.MsgIdHdr, e.ID)
	if err := s.nc.PublishMsg(msg); err != nil {
		return mnemo.Errorf(mnemo.EUNAVAILABLE, "NATS: publishing event %s: %v", e.ID, err)
	}
	return nil
}

// Flush waits until the server has every message published so far.
func (s *Sink) Flush(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok { // nats.go needs one
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
	}
	if err := s.nc.FlushWithContext(ctx); err != nil {
		return mnemo.Errorf(mnemo.EUNAVAILABLE, "NATS: flush: %v", err)
	}
	return nil
}
