// Package eventseg is the format of cold event segments (EVT-14) that the
// SQL backends share, and the checks and order an event store relies on.
// The postgres store uses it; sqlite/events.go holds the same code, which
// it reads through its own line-building query.
//
// A segment part is gzip-compressed lines of tab-separated fields: seq, id,
// ts (unix nanoseconds), type, source, data, metadata and security level
// (SEC-11; lines written before levels were kept have seven fields, and
// read as no level). No field holds a tab or a newline: ids, types and sources have no control characters
// (CheckStored) and compacted JSON escapes both. So a part is read without
// a JSON decoder, and with zcat and cut too.
package eventseg

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/sqlrow"
)

// Codec is the codec of the parts this package writes: gzip of
// tab-separated lines.
const Codec = "tsv+gzip"

// PartSize is how many events a part holds: a page of a query decompresses
// one or two parts.
const PartSize = 1000

// NanosPerDay is a UTC day in nanoseconds.
const NanosPerDay = int64(24 * time.Hour)

// DayOf is the UTC day number of a time in unix nanoseconds.
func DayOf(ts int64) int64 {
	if ts < 0 {
		return (ts - NanosPerDay + 1) / NanosPerDay
	}
	return ts / NanosPerDay
}

// Compare orders events by time, then arrival.
func Compare(a, b mnemo.Event) int {
	return cmp.Or(a.TS.Compare(b.TS), cmp.Compare(a.Seq, b.Seq))
}

// CheckStored checks what a store relies on, whoever the caller: an id, a
// type and a time; no tab or line break in id, type and source; data and
// metadata valid JSON, compacted when they hold a tab or a line break.
func CheckStored(e *mnemo.Event) error {
	if e.ID == "" || e.Type == "" || e.TS.IsZero() {
		return mnemo.Errorf(mnemo.EINVALID, "an event needs an id, a type and a time")
	}
	if err := sqlrow.CheckTime(e.TS); err != nil {
		return err
	}
	if strings.ContainsAny(e.ID, "\t\n\r") || strings.ContainsAny(e.Type, "\t\n\r") || strings.ContainsAny(e.Source, "\t\n\r") {
		return mnemo.Errorf(mnemo.EINVALID, "event %q: id, type and source must not hold tabs or line breaks", e.ID)
	}
	for _, raw := range []*json.RawMessage{&e.Data, &e.Metadata} {
		if len(*raw) == 0 {
			continue
		}
		if !json.Valid(*raw) {
			return mnemo.Errorf(mnemo.EINVALID, "event %q: data and metadata must be valid JSON", e.ID)
		}
		if bytes.ContainsAny(*raw, "\t\n\r") {
			var buf bytes.Buffer
			json.Compact(&buf, *raw) // valid: cannot fail
			*raw = buf.Bytes()
		}
	}
	return nil
}

// Cursor is a query's position: its lower bound and cursor in unix
// nanoseconds, for skipping lines before they are copied.
type Cursor struct {
	Lo    int64 // the earliest ts a next event can have
	HasLo bool
	To    int64 // exclusive upper bound
	HasTo bool
	Cur   *mnemo.EventCursor
}

// NewCursor returns q's bounds after cur.
func NewCursor(q mnemo.EventQuery, cur *mnemo.EventCursor) Cursor {
	c := Cursor{Cur: cur}
	switch {
	case cur != nil && q.From != nil:
		c.Lo, c.HasLo = max(sqlrow.Nanos(cur.TS), sqlrow.Nanos(*q.From)), true
	case cur != nil:
		c.Lo, c.HasLo = sqlrow.Nanos(cur.TS), true
	case q.From != nil:
		c.Lo, c.HasLo = sqlrow.Nanos(*q.From), true
	}
	if q.To != nil {
		c.To, c.HasTo = sqlrow.Nanos(*q.To), true
	}
	return c
}

// Skip reports whether a line at (seq, ts) is outside the bounds.
func (c Cursor) Skip(seq, ts int64) bool {
	return (c.HasLo && ts < c.Lo) || (c.HasTo && ts >= c.To) ||
		(c.Cur != nil && ts == sqlrow.Nanos(c.Cur.TS) && seq <= c.Cur.Seq)
}

// Matches reports whether a cold event is in q's window and filters, after
// the cursor.
func Matches(e mnemo.Event, q mnemo.EventQuery, cur *mnemo.EventCursor) bool {
	switch {
	case q.From != nil && e.TS.Before(*q.From),
		q.To != nil && !e.TS.Before(*q.To),
		len(q.Types) > 0 && !slices.Contains(q.Types, e.Type),
		len(q.Sources) > 0 && !slices.Contains(q.Sources, e.Source):
		return false
	}
	return cur == nil || e.TS.After(cur.TS) || (e.TS.Equal(cur.TS) && e.Seq > cur.Seq)
}

// Encode compresses events, in order, as a part.
func Encode(events []mnemo.Event) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	for _, e := range events {
		for _, field := range [][]byte{[]byte(e.ID), []byte(e.Type), []byte(e.Source), e.Data, e.Metadata, []byte(e.SecurityLevel)} {
			if bytes.ContainsAny(field, "\t\n") {
				return nil, fmt.Errorf("event %s has a tab or a newline in a field", e.ID)
			}
		}
		fmt.Fprintf(bw, "%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", e.Seq, e.ID, sqlrow.Nanos(e.TS), e.Type, e.Source, e.Data, e.Metadata, e.SecurityLevel)
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Decoder decodes parts, keeping its buffers between them: a gzip reader's
// state and a line buffer cost more to allocate than a part of small events
// takes to decode. It is safe for concurrent use.
type Decoder struct{ pool sync.Pool }

type reader struct {
	body bytes.Reader
	zr   gzip.Reader
	buf  []byte
}

// Decode calls fn with each event of a part, in order, until fn returns
// false. Lines for which skip (when not nil) reports true are passed over
// before anything is copied.
func (d *Decoder) Decode(codec string, body []byte, scope mnemo.Scope, skip func(seq, ts int64) bool, fn func(mnemo.Event) bool) error {
	if codec != Codec {
		return fmt.Errorf("cold segment: unknown codec %q", codec)
	}
	r, _ := d.pool.Get().(*reader)
	if r == nil {
		r = &reader{buf: make([]byte, 64<<10)}
	}
	defer d.pool.Put(r)
	r.body.Reset(body)
	if err := r.zr.Reset(&r.body); err != nil {
		return fmt.Errorf("cold segment: %w", err)
	}
	sc := bufio.NewScanner(&r.zr)
	sc.Buffer(r.buf[:0], 4*mnemo.MaxEventData)
	for sc.Scan() {
		e, ok, err := ParseLine(sc.Bytes(), scope, skip)
		if err != nil {
			return fmt.Errorf("cold segment: %w", err)
		}
		if ok && !fn(e) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("cold segment: %w", err)
	}
	return nil
}

// ParseLine reads an event from a line of tab-separated fields: seq, id,
// ts, type, source, data, metadata and, in a line written since levels are
// kept, security level. It copies what it keeps. A line for which skip
// (when not nil) reports true is passed over: ok is false.
func ParseLine(line []byte, scope mnemo.Scope, skip func(seq, ts int64) bool) (e mnemo.Event, ok bool, err error) {
	var f [8][]byte
	for i := range 6 {
		j := bytes.IndexByte(line, '\t')
		if j < 0 {
			return e, false, fmt.Errorf("a line has %d fields, want 7 or 8", i+1)
		}
		f[i], line = line[:j], line[j+1:]
	}
	f[6] = line
	if j := bytes.IndexByte(line, '\t'); j >= 0 {
		f[6], f[7] = line[:j], line[j+1:]
	}
	seq, ok1 := parseInt(f[0])
	ts, ok2 := parseInt(f[2])
	if !ok1 || !ok2 {
		return e, false, fmt.Errorf("bad seq or ts")
	}
	if skip != nil && skip(seq, ts) {
		return e, false, nil
	}
	e = mnemo.Event{ID: string(f[1]), Scope: scope, Seq: seq, TS: sqlrow.FromNanos(ts), Type: string(f[3]), Source: string(f[4])}
	if len(f[5]) > 0 {
		e.Data = bytes.Clone(f[5])
	}
	if len(f[6]) > 0 {
		e.Metadata = bytes.Clone(f[6])
	}
	if len(f[7]) > 0 {
		e.SecurityLevel = string(f[7])
	}
	return e, true, nil
}

// parseInt reads a decimal int64 without allocating.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}
