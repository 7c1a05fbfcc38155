package panics_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo/internal/panics"
)

func TestCallRecoversWithStack(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	err := panics.Call(log, "job", func() error {
		var s []string
		_ = s[:1][0] // a slice-bound panic, as the Write Guard once had (OPS-8)
		return nil
	})
	var pe *panics.Error
	if !errors.As(err, &pe) || pe.What != "job" {
		t.Fatalf("err = %v, want a *Error from job", err)
	}
	if !strings.Contains(buf.String(), "panics_test.go") || !strings.Contains(buf.String(), "recovered from a panic") {
		t.Fatalf("log has no stack:\n%s", buf.String())
	}
	if err := panics.Call(log, "ok", func() error { return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestGroupStopsAndAwaits(t *testing.T) {
	g := panics.NewGroup(context.Background(), slog.New(slog.DiscardHandler))
	var done atomic.Int32
	g.Go("panics", func(context.Context) { panic("boom") })
	g.Go("waits", func(ctx context.Context) {
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // still running after the cancel
		done.Add(1)
	})
	g.Stop()
	if done.Load() != 1 {
		t.Fatal("Stop returned before its job did")
	}
}
