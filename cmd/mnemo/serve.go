package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/web"
)

func (a *app) serveCommand() *cobra.Command {
	var (
		addr     string
		insecure bool
		jobEvery time.Duration
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP JSON API over the embedded store",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			a.serving, a.resident = true, true
			if jobEvery > 0 {
				a.jobEvery = jobEvery
			}
			if !cmd.Flags().Changed("addr") {
				addr = a.cfg.Addr
			}
			insecure = insecure || a.cfg.InsecureBind
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return usagef("--addr must be host:port, got %q", addr)
			}
			keys, err := a.cfg.apiKeys()
			if err != nil {
				return err
			}
			if !isLoopback(host) && !insecure && len(keys) == 0 {
				return usagef("refusing to serve on %s without auth: configure auth.keys, bind to 127.0.0.1, or pass --insecure-bind", addr)
			}
			if a.cfg.Backup.Every > 0 {
				if _, err := a.backupKind(); err != nil {
					return &ConfigError{"backup.every", err.Error()}
				}
			}
			svc, be, err := a.open(ctx)
			if err != nil {
				return err
			}
			defer svc.Close()
			// The jobs stop, and are awaited, before the store closes
			// (defers run last first): a reflect never runs on a closed store.
			jobs := panics.NewGroup(ctx, a.logger())
			defer jobs.Stop()
			// A store embedded with another model would answer with
			// garbage similarities: refuse to serve it.
			if err := svc.Init(ctx); err != nil {
				return err
			}
			log := a.logger()
			if !isLoopback(host) && len(keys) == 0 {
				log.Warn("serving without authentication on a non-loopback address", "addr", addr)
			}
			reg := a.registry
			reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			srv := mhttp.NewServer(svc, mhttp.Options{
				Logger: log, Version: version(), Keys: keys,
				MaxBody: a.cfg.HTTP.MaxBodyBytes, Timeout: a.cfg.HTTP.Timeout,
				RateLimit: a.cfg.HTTP.RateLimit, RateBurst: a.cfg.HTTP.RateBurst,
				Registry: reg, StoreBytes: be.size, Webhook: a.cfg.webhookOptions(),
				DefaultAgent: a.cfg.HTTP.DefaultAgent,
				UI:           web.Handler, // API-15: the inspector at /
			})
			srv.Handle("/mcp", mcpHandler(svc, srv, log))
			ln, err := net.Listen("tcp", addr)
			if errors.Is(err, syscall.EADDRINUSE) {
				return fmt.Errorf("%s is in use by another program: stop it, or serve on another address with --addr (or $MNEMO_ADDR)", addr)
			} else if err != nil {
				return fmt.Errorf("listen: %w", err)
			}
			log.Info("mnemo serving", "addr", ln.Addr().String(), "store", be.name, "at", be.where)
			log.Info("web inspector", "url", "http://"+ln.Addr().String()+"/")
			errc := make(chan error, 1)
			go func() { errc <- srv.Serve(ln) }()
			// PG-10: on a store several servers share, each job runs once
			// a period across them all.
			runner, _ := svc.Store().(jobRunner)
			a.every(jobs, runner, "sweep", time.Minute, func(ctx context.Context) { sweep(ctx, svc, log) })
			if s := a.cfg.Lifecycle.Schedule; s == nil || *s {
				a.every(jobs, runner, "reflect", a.cfg.Lifecycle.Every, func(ctx context.Context) { reflectAll(ctx, svc, log) })
			}
			if b := a.cfg.Backup; b.Every > 0 {
				a.every(jobs, nil, "backup", b.Every, func(ctx context.Context) { scheduledBackup(ctx, be, b.Dir, b.Keep, log) })
			}
			select {
			case err := <-errc:
				return err
			case <-ctx.Done():
			}
			shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			log.Info("shutting down")
			return srv.Shutdown(shutdown)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", defaultConfig().Addr, "listen address ($MNEMO_ADDR)")
	cmd.Flags().BoolVar(&insecure, "insecure-bind", false, "allow a non-loopback address without auth")
	// Tests of several servers on one store shorten every job's period.
	cmd.Flags().DurationVar(&jobEvery, "job-every", 0, "run every background job at this interval instead of its own")
	cmd.Flags().MarkHidden("job-every")
	return cmd
}

// every runs job in jobs every interval until the group stops. A panic in
// one run is logged with its stack; the next run comes as scheduled. With
// runner (a store several servers share), a run happens only where the
// store's lease lets it: once per period, the interval since the epoch,
// across all servers (PG-10).
func (a *app) every(jobs *panics.Group, runner jobRunner, name string, interval time.Duration, job func(context.Context)) {
	if a.jobEvery > 0 {
		interval = a.jobEvery
	}
	log := a.logger()
	holder := jobHolder()
	jobs.Go(name, func(ctx context.Context) {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if a.jobHook != nil {
				a.jobHook(name, true)
			}
			panics.Call(log, name, func() error {
				if runner == nil {
					job(ctx)
					return nil
				}
				period := time.Now().Truncate(interval)
				ran, err := runner.RunJob(ctx, name, period, holder, func(ctx context.Context) error { job(ctx); return nil })
				switch {
				case err != nil && ctx.Err() == nil:
					log.Warn("background job not run", "job", name, "err", err)
				case ran && err == nil:
					log.Debug("background job ran", "job", name, "period", period.UnixNano(), "holder", holder)
				}
				return nil
			})
			if a.jobHook != nil {
				a.jobHook(name, false)
			}
		}
	})
}

// jobHolder names this server in the job runs it records: host and
// process id.
func jobHolder() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// sweep deletes idle sessions' working memory (CTX-11: after 30 minutes
// idle) and abandoned runs, and summarizes the event periods that closed.
func sweep(ctx context.Context, svc *service.Mnemo, log *slog.Logger) {
	n, err := svc.SweepSessions(ctx)
	if err != nil && ctx.Err() == nil {
		log.Warn("sweeping idle sessions failed", "err", err)
	} else if n > 0 {
		log.Info("swept idle sessions", "n", n)
	}
	if _, err := svc.SweepRuns(ctx); err != nil && ctx.Err() == nil {
		log.Warn("sweeping abandoned runs failed", "err", err)
	}
	summarizeClosed(ctx, svc, log)
}

// summarizeClosed writes the summaries (L4) of the periods that closed,
// applies their retention, and has the LLM, when configured, describe
// capabilities (L5) that grew. A store that keeps neither is skipped.
func summarizeClosed(ctx context.Context, svc *service.Mnemo, log *slog.Logger) {
	if _, ok := svc.Store().(mnemo.InsightStore); !ok {
		return
	}
	if n, err := svc.SummarizeClosed(ctx); err != nil && ctx.Err() == nil {
		log.Warn("summarizing closed periods failed", "err", err)
	} else if n > 0 {
		log.Info("summarized closed periods", "n", n)
	}
	if k, err := svc.RefreshAllCapabilities(ctx); err != nil && ctx.Err() == nil {
		log.Warn("describing capabilities failed", "err", err)
	} else if k > 0 {
		log.Info("described capabilities", "n", k)
	}
}

// reflectAll runs the sleep cycle for every agent, and archives old events.
func reflectAll(ctx context.Context, svc *service.Mnemo, log *slog.Logger) {
	archived, purged, err := svc.ReflectAll(ctx, "serve")
	if err != nil && ctx.Err() == nil {
		log.Warn("scheduled reflect failed", "err", err)
	} else if err == nil {
		log.Info("scheduled reflect", "archived", archived, "purged", purged)
	}
	// Events past events.cold_after move to compressed cold segments
	// (EVT-14); queries, replay and export still read them.
	if n, err := svc.ArchiveEvents(ctx, 0); err != nil && ctx.Err() == nil && mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
		log.Warn("scheduled event archival failed", "err", err)
	} else if n > 0 {
		log.Info("scheduled event archival", "events", n)
	}
	// EVT-15: L3 vectors older than 30 days go, unless often found.
	n, err := svc.PruneEventVectors(ctx, 0, 0)
	if err != nil && ctx.Err() == nil && mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
		log.Warn("scheduled event vector cleanup failed", "err", err)
	} else if n > 0 {
		log.Info("scheduled event vector cleanup", "pruned", n)
	}
}

// storeBytes reports the size of the database file and its WAL.
func storeBytes(path string) func() int64 {
	return func() int64 {
		var n int64
		for _, p := range []string{path, path + "-wal"} {
			if fi, err := os.Stat(p); err == nil {
				n += fi.Size()
			}
		}
		return n
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
