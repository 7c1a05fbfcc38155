package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/sqlite"
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

	dataDir  string
	tenant   string
	agent    string
	asJSON   bool
	logLevel string
	serving  bool // serve logs at info by default; one-shot commands at warn
	limits   mnemo.Limits
	recallN  int
}

// usageError marks errors in how the command was called.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// Main runs the CLI with args and returns the exit code. Tests call it
// directly.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, limits: mnemo.DefaultLimits()}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	msg := err.Error()
	code := exitFailure
	var ue usageError
	var de *mnemo.Error
	switch {
	case errors.As(err, &ue), isCobraUsage(err):
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

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "mnemo",
		Short:         "Long-term and short-term memory for AI agents",
		SilenceUsage:  true,
		SilenceErrors: true,
		CompletionOptions: cobra.CompletionOptions{
			DisableDefaultCmd: true,
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.dataDir, "data", env("MNEMO_DATA", "./mnemo-data"), "data directory ($MNEMO_DATA)")
	pf.StringVar(&a.tenant, "tenant", env("MNEMO_TENANT", "default"), "tenant id ($MNEMO_TENANT)")
	pf.StringVar(&a.agent, "agent", env("MNEMO_AGENT", "default"), "agent id ($MNEMO_AGENT)")
	pf.BoolVar(&a.asJSON, "json", false, "print JSON")
	pf.StringVar(&a.logLevel, "log-level", env("MNEMO_LOG_LEVEL", ""), "log level: debug, info, warn, error (default: info for serve, warn otherwise)")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		var lvl slog.Level
		if a.logLevel != "" && lvl.UnmarshalText([]byte(a.logLevel)) != nil {
			return usagef("--log-level must be debug, info, warn or error, got %q", a.logLevel)
		}
		return nil
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })

	root.AddCommand(
		a.serveCommand(),
		a.mcpCommand(),
		a.rememberCommand(),
		a.recallCommand("recall", "Find the memories that best match a query, recording the access"),
		a.recallCommand("surface", "Like recall, with no side effect: nothing is recorded"),
		a.getCommand(),
		a.listCommand(),
		a.forgetCommand(),
		a.clearCommand(),
		a.historyCommand(),
		a.importCommand(),
		a.exportCommand(),
		a.statsCommand(),
		a.benchCommand(),
		a.versionCommand(),
	)
	return root
}

func (a *app) scope() mnemo.Scope { return mnemo.Scope{TenantID: a.tenant, AgentID: a.agent} }

func (a *app) logger() *slog.Logger {
	lvl := slog.LevelWarn
	if a.serving {
		lvl = slog.LevelInfo
	}
	if a.logLevel != "" {
		lvl.UnmarshalText([]byte(a.logLevel)) // validated in PersistentPreRunE
	}
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: lvl}))
}

// retrievalLimit reads seed 001's MEMORY_RETRIEVAL_LIMIT.
func retrievalLimit() (int, error) {
	v := os.Getenv("MEMORY_RETRIEVAL_LIMIT")
	if v == "" {
		return 0, nil
	}
	var n int
	if _, err := fmt.Sscanf(v, "%d", &n); err != nil || n < 1 {
		return 0, usagef("MEMORY_RETRIEVAL_LIMIT must be a positive whole number, got %q", v)
	}
	return n, nil
}

// open opens the embedded store under the data directory and a service
// over it. The caller closes the store.
func (a *app) open(ctx context.Context) (*mnemo.Service, *sqlite.DB, error) {
	n, err := retrievalLimit()
	if err != nil {
		return nil, nil, err
	}
	log := a.logger()
	db, err := sqlite.Open(ctx, filepath.Join(a.dataDir, "mnemo.db"), sqlite.Options{Logger: log})
	if err != nil {
		return nil, nil, err
	}
	svc := mnemo.New(db, mnemo.Options{Limits: a.limits, DefaultLimit: n, Logger: log})
	return svc, db, nil
}

// withService runs fn with a service over the embedded store.
func (a *app) withService(ctx context.Context, fn func(*mnemo.Service) error) error {
	svc, db, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(svc)
}

func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.asJSON {
				return a.printJSON(map[string]string{"version": version()})
			}
			fmt.Fprintln(a.stdout, "mnemo", version())
			return nil
		},
	}
}
