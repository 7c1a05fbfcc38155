package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/security"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/tokens"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the store or the server failed
	exitUsage   = 2 // bad input: flags, arguments, or a request the service rejected as invalid
)

// app is one invocation of the CLI: its streams and global flags.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	getenv     func(string) string
	environ    func() []string // for variables that look like mnemo's and are not
	configPath string
	cfg        Config // the effective configuration, set before any command runs
	asJSON     bool
	withVecs   bool     // --include-embedding
	serving    bool     // serve logs at info by default; one-shot commands at warn
	resident   bool     // the command outlives its writes (serve, mcp): the worker embeds them
	cleanup    []func() // run when the command has returned
	// notes are said on stderr once the command has succeeded (a new
	// store: where it is).
	notes []string

	// registry has the metrics of the store and the service; serve
	// exposes it on /metrics.
	registry *prometheus.Registry
	degraded *prometheus.CounterVec

	// Tests only: serve's background jobs tick this often instead of
	// their configured intervals, and report each run's start and end.
	jobEvery time.Duration
	jobHook  func(job string, running bool)
	// Tests only: the compiled-in embedders, shared by the commands of a
	// test binary so that each does not decode the models again (a
	// second under the race detector); nil makes new ones.
	builtins func(provider string) mnemo.Embedder
}

// usageError marks errors in how the command was called.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// Main runs the CLI with args and returns the exit code. Tests call it
// directly.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newApp(stdin, stdout, stderr).main(ctx, args)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, environ: os.Environ, cfg: defaultConfig(),
		registry: prometheus.NewRegistry(), degraded: degradedCounter()}
	a.registry.MustRegister(a.degraded)
	return a
}

func (a *app) main(ctx context.Context, args []string) int {
	stdin, stdout, stderr := a.stdin, a.stdout, a.stderr
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// A panic in a command is an internal error with exit 1, its stack
	// logged: the deferred closes in the command still run on the way out.
	err := panics.Call(a.logger(), "a mnemo command", func() error { return root.ExecuteContext(ctx) })
	for _, f := range a.cleanup {
		f()
	}
	if err == nil {
		for _, n := range a.notes {
			fmt.Fprintf(stderr, "mnemo: %s\n", n)
		}
		return exitOK
	}
	msg := err.Error()
	code := exitFailure
	var ue usageError
	var de *mnemo.Error
	var ce *ConfigError
	var pe *panics.Error
	switch {
	case errors.As(err, &pe):
		msg = "internal error: " + pe.Error()
	case errors.As(err, &ue), errors.As(err, &ce), isCobraUsage(err):
		code = exitUsage
	case errors.As(err, &de):
		msg = de.Message
		switch de.Code {
		case mnemo.EINVALID, mnemo.ETOOLARGE, mnemo.ENOTFOUND:
			code = exitUsage
		case mnemo.EINTERNAL:
			msg = "internal error: " + msg
		}
	}
	fmt.Fprintf(stderr, "mnemo: %s\n", oneLine(msg))
	return code
}

// isCobraUsage recognises cobra's own argument and flag errors, which are
// plain errors.
func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "flag needs", "invalid argument", "accepts ", "requires at least", "requires at most", "bad flag", "required flag"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "mnemo",
		Short:         "Long-term and short-term memory for AI agents",
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		CompletionOptions: cobra.CompletionOptions{
			DisableDefaultCmd: true,
		},
	}
	root.SetVersionTemplate(readBuildInfo().String() + "\n")
	pf := root.PersistentFlags()
	def := defaultConfig()
	pf.StringVar(&a.configPath, "config", "", "config file, YAML ($MNEMO_CONFIG)")
	pf.String("data", "", "data directory ($MNEMO_DATA; default: the user's, $XDG_DATA_HOME/mnemo or ~/.local/share/mnemo on Linux)")
	pf.String("store", def.Store.Backend, "store backend: sqlite, files, postgres or memory ($MNEMO_STORE)")
	pf.String("tenant", def.Tenant, "tenant id ($MNEMO_TENANT)")
	pf.String("agent", def.Agent, "agent id ($MNEMO_AGENT)")
	pf.String("log-level", "", "log level: debug, info, warn, error (default: info for serve, warn otherwise; $MNEMO_LOG_LEVEL)")
	pf.Bool("mask", false, "read confidential and restricted memories masked, as an API key with mask does ($MNEMO_MASK)")
	pf.BoolVar(&a.asJSON, "json", false, "print JSON")
	pf.BoolVar(&a.withVecs, "include-embedding", false, "with --json, include each memory's vector (left out by default)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		path := a.configPath
		if path == "" {
			path = a.getenv("MNEMO_CONFIG")
		}
		cfg, err := loadConfig(path, a.getenv, cmd.Flags())
		if err != nil {
			return err
		}
		a.cfg = cfg
		if cfg.Mask {
			// The mask profile: every call of the command carries the
			// clearance, and the service masks by it (SEC-8).
			cmd.SetContext(security.WithClearance(cmd.Context(), security.Masked))
		}
		if a.environ != nil {
			for _, w := range envTypos(a.environ()) {
				fmt.Fprintf(a.stderr, "mnemo: warning: %s\n", w)
			}
		}
		return nil
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })

	root.AddCommand(
		a.serveCommand(),
		a.withProjectAgent(a.mcpCommand()),
		a.rememberCommand(),
		a.recallCommand("recall", "Find the memories that best match a query, recording the access"),
		a.recallCommand("surface", "Like recall, with no side effect: nothing is recorded"),
		a.getCommand(),
		a.listCommand(),
		a.recallPathCommand(),
		a.forgetCommand(),
		a.clearCommand(),
		a.historyCommand(),
		a.importCommand(),
		a.exportCommand(),
		a.statsCommand(),
		a.reindexCommand(),
		a.runCommand(),
		a.sessionCommand(),
		a.snapshotCommand(),
		a.bootCommand(),
		a.readCommand(),
		a.reflectCommand(),
		a.pruneCommand(),
		a.resetCommand(),
		a.restoreCommand(),
		a.backupCommand(),
		a.ledgerCommand(),
		a.ingestCommand(),
		a.eventsCommand(),
		a.benchCommand(),
		a.versionCommand(),
		a.configCommand(),
		a.migrateCommand(),
		a.migrateStoreCommand(),
		a.hookCommand(), a.setupCommand(),
	)
	return root
}

func (a *app) scope() mnemo.Scope { return mnemo.Scope{TenantID: a.cfg.Tenant, AgentID: a.cfg.Agent} }

func (a *app) logger() *slog.Logger {
	lvl := slog.LevelWarn
	if a.serving {
		lvl = slog.LevelInfo
	}
	if a.cfg.LogLevel != "" {
		lvl.UnmarshalText([]byte(a.cfg.LogLevel)) // validated with the config
	}
	// Log lines never carry e-mail addresses, numbers, keys or passwords
	// (SEC-4): the one masker redacts them (SEC-7).
	return slog.New(security.LogHandler(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: lvl})))
}

// open opens the configured store and a service over it. Closing the
// service closes the store.
func (a *app) open(ctx context.Context) (*service.Mnemo, *backend, error) {
	log := a.logger()
	if a.cfg.Mock {
		// Mock mode: seeded random vectors, and nothing kept unless a data
		// directory was given.
		a.cfg.Embedding.Provider = ProviderRandom
	}
	be, err := a.openStore(ctx, log, a.registry)
	if err != nil {
		return nil, nil, err
	}
	db := be.store
	profile, ok := rank.Profiles()[a.cfg.Recall.Profile]
	if !ok {
		db.Close()
		return nil, nil, &ConfigError{"recall.profile", fmt.Sprintf("unknown profile %q", a.cfg.Recall.Profile)}
	}
	doc, query, async, err := a.cfg.embedders(a.builtins)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	if !a.resident {
		// A one-shot command stops its embedding worker as it exits: a
		// write it left queued would get its vector from whichever
		// command runs next, while that command's recall searches. Its
		// writes wait for their vectors instead (EMB-8).
		async = false
	}
	tok, err := tokens.New(a.cfg.Context.Tokenizer)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	cc := a.cfg.Context
	co := agentcontext.Options{
		Tokenizer: tok, RunTokenLimit: cc.RunTokenLimit, KeepRounds: cc.KeepRounds, MaxRuns: cc.MaxRuns, RunIdle: cc.RunIdle,
		SessionIdle: cc.SessionIdle, ArchiveFacts: cc.ArchiveFacts, TopicBoost: cc.TopicBoost,
		SnapshotTokenLimit: cc.SnapshotTokenLimit,
	}
	if model, err := a.cfg.llm(); err != nil {
		db.Close()
		return nil, nil, err
	} else if model != nil {
		co.Summarizer, co.TurnAnalyzer = model, model
	}
	var extractor memory.Extractor
	events, err := a.cfg.eventOptions()
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	if model, _ := a.cfg.llm(); model != nil {
		if a.cfg.LLM.Extract {
			extractor = model
		}
		// Summaries' insights and capabilities' descriptions, with the
		// rules as fallback.
		events.Insighter, events.Describer = model, model
		// The model reads events' text and interactions for the profile.
		events.TextRelations.Analyzer, events.Profile.Analyzer = model, model
	}
	svc := service.New(db, service.Options{
		Limits: a.cfg.limits(), DefaultLimit: a.cfg.Recall.DefaultLimit, MaxLimit: a.cfg.Recall.MaxLimit,
		Profile: &profile, Logger: log,
		Embedder: doc, QueryEmbedder: query, AsyncEmbedding: async,
		FallbackEmbedder:  a.cfg.fallbackEmbedder(),
		QueryEmbedTimeout: a.cfg.Embedding.QueryTimeout,
		OnDegraded:        func(cause string) { a.degraded.WithLabelValues(cause).Inc() },
		Context:           co,
		Extractor:         extractor,
		Events:            events,
		Lifecycle: lifecycle.Options{
			ArchiveBelow: a.cfg.Lifecycle.ArchiveBelow, RetentionDays: a.cfg.Lifecycle.RetentionDays,
			RetentionMinAccess: a.cfg.Lifecycle.RetentionMinAccess, MaxEntries: a.cfg.Lifecycle.MaxEntries,
			EvictByConfidence: a.cfg.Lifecycle.EvictByConfidence, Every: a.cfg.Lifecycle.Every, Grace: a.cfg.Lifecycle.Grace,
			CompactOver: a.cfg.Lifecycle.CompactOver, TypeQuota: a.cfg.Lifecycle.TypeQuota,
		},
	})
	return svc, be, nil
}

// withService runs fn with a service over the embedded store.
func (a *app) withService(ctx context.Context, fn func(*service.Mnemo) error) error {
	svc, _, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer svc.Close()
	return fn(svc)
}

func (a *app) printJSON(v any) error {
	if !a.withVecs {
		v = mnemo.DropEmbeddings(v)
	}
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (a *app) configCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration (defaults < file < environment < flags), secrets hidden",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.asJSON {
				c := a.cfg
				if c.Store.Postgres.DSN != "" {
					c.Store.Postgres.DSN = "<secret>"
				}
				if dsns := c.Store.Postgres.ReadDSN; dsns != nil {
					c.Store.Postgres.ReadDSN = make(DSNList, len(dsns))
					for i := range dsns {
						c.Store.Postgres.ReadDSN[i] = "<secret>"
					}
				}
				if dbs := c.Store.Postgres.Databases; dbs != nil {
					c.Store.Postgres.Databases = make(map[string]Secret, len(dbs))
					for name := range dbs {
						c.Store.Postgres.Databases[name] = "<secret>"
					}
				}
				if c.LLM.APIKey != "" {
					c.LLM.APIKey = "<secret>"
				}
				if c.Embedding.OpenAI.APIKey != "" {
					c.Embedding.OpenAI.APIKey = "<secret>"
				}
				if media := c.Events.Vectors.Media; media != nil {
					c.Events.Vectors.Media = make(map[string]OpenAIEmbedderConfig, len(media))
					for mod, m := range media {
						if m.APIKey != "" {
							m.APIKey = "<secret>"
						}
						c.Events.Vectors.Media[mod] = m
					}
				}
				for i := range c.Auth.Keys {
					if c.Auth.Keys[i].Secret != "" {
						c.Auth.Keys[i].Secret = "<secret>"
					}
				}
				return a.printJSON(c)
			}
			enc := yaml.NewEncoder(a.stdout)
			enc.SetIndent(2)
			if err := enc.Encode(a.cfg); err != nil {
				return err
			}
			return enc.Close()
		},
	}
}
