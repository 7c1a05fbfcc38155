// Package webhook publishes events to an HTTP endpoint: one POST per event,
// JSON, retried with backoff while the endpoint is down, given up on
// clearly when it stays down or refuses.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

// Options configure a Sink. The zero value is usable.
type Options struct {
	// Client makes the requests; nil means one with a 10-second timeout.
	Client *http.Client
	// Attempts is how many times one event is sent before giving up; 0
	// means 5.
	Attempts int
	// Backoff is the wait after the first failed attempt, doubled after
	// each (up to MaxBackoff); 0 means 200 ms and 5 s.
	Backoff, MaxBackoff time.Duration
	// Header is sent with every request (an Authorization, say).
	Header http.Header
}

// Sink is a events.Sink that POSTs each event to a URL.
type Sink struct {
	url  string
	opts Options
}

var _ events.Sink = (*Sink)(nil)

// New returns a Sink posting to rawURL, an http or https URL; anything
// else is EINVALID.
func New(rawURL string, o Options) (*Sink, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, mnemo.Errorf(mnemo.EINVALID, "webhook URL must be an http or https URL, not %q", rawURL)
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Attempts <= 0 {
		o.Attempts = 5
	}
	if o.Backoff <= 0 {
		o.Backoff = 200 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 5 * time.Second
	}
	return &Sink{url: u.String(), opts: o}, nil
}

// Publish implements events.Sink: the event as JSON, with its id in
// the Mnemo-Event-Id header so that the receiver can drop a duplicate
// (an attempt whose answer was lost is sent again). A 2xx answer takes
// it; 408, 429, 5xx and network errors are retried, honouring
// Retry-After; any other answer gives up at once. Giving up is
// EUNAVAILABLE, naming the last answer.
func (s *Sink) Publish(ctx context.Context, e mnemo.Event) error {
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	wait := s.opts.Backoff
	var last string
	for attempt := 1; ; attempt++ {
		retry, after, err := s.post(ctx, e.ID, body)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			// Cancelled mid-request: the replay was stopped, the
			// subscriber refused nothing.
			return ctx.Err()
		}
		last = err.Error()
		if !retry {
			return mnemo.Errorf(mnemo.EUNAVAILABLE, "webhook %s refused event %s: %s", s.url, e.ID, last)
		}
		if attempt >= s.opts.Attempts {
			return mnemo.Errorf(mnemo.EUNAVAILABLE, "webhook %s: gave up on event %s after %d attempts: %s", s.url, e.ID, attempt, last)
		}
		if after > 0 {
			wait = min(after, s.opts.MaxBackoff)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, s.opts.MaxBackoff)
	}
}

// post sends one attempt and says whether a failure is worth retrying.
func (s *Sink) post(ctx context.Context, id string, body []byte) (retry bool, after time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return false, 0, err
	}
	for k, vs := range s.opts.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mnemo-Event-Id", id)
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return false, 0, ctx.Err()
		}
		return true, 0, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return false, 0, nil
	case c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c >= 500:
		if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && n >= 0 {
			after = time.Duration(n) * time.Second
		}
		return true, after, fmt.Errorf("answered %s", resp.Status)
	default:
		return false, 0, fmt.Errorf("answered %s", resp.Status)
	}
}
