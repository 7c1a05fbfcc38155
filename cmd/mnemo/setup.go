package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo/internal/setup"
)

// setupCommand writes mnemo into an MCP client's configuration (AGT-5),
// with Claude Code's hooks (AGT-1) and the rules files of Codex and
// Cursor (AGT-7).
func (a *app) setupCommand() *cobra.Command {
	var (
		dryRun, print, npx bool
		command, url, dir  string
	)
	cmd := &cobra.Command{
		Use:   "setup <client>",
		Short: "Add mnemo to an MCP client: " + strings.Join(setup.Clients, ", "),
		Long: `Writes or updates the client's MCP configuration in its usual place, keeping everything
else in the file, and copies the file it changes to FILE.bak-<time> first:

  claude-desktop  claude_desktop_config.json (mcpServers)
  claude-code     ~/.claude.json (mcpServers, user scope) and ~/.claude/settings.json (hooks)
  cursor          ~/.cursor/mcp.json (mcpServers), ~/.cursor/hooks.json, and
                  .cursor/rules/mnemo.mdc in --dir
  vscode          the user profile's mcp.json (servers)
  windsurf        ~/.codeium/windsurf/mcp_config.json (mcpServers)
  codex           ~/.codex/config.toml ([mcp_servers.mnemo], notify) and ~/.codex/AGENTS.md

The client runs this binary, or with --npx the npm package. Running it again changes
nothing. A file that is not valid JSON or TOML is left alone, with exit 2.`,
		Args: cobra.ExactArgs(1),
		// setup reads no mnemo config: it writes other programs'.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			if dryRun && print {
				return usagef("--dry-run and --print do not go together: --print shows the snippet, --dry-run the diff")
			}
			srv, err := a.setupServer(command, npx)
			if err != nil {
				return err
			}
			srv.URL = url
			env, err := a.setupEnv(dir)
			if err != nil {
				return err
			}
			changes, err := setup.Plan(args[0], env, srv)
			var fe *setup.FormatError
			switch {
			case errors.Is(err, setup.ErrUnknownClient), errors.As(err, &fe):
				return usageError{err.Error()}
			case err != nil:
				return err
			}
			for _, c := range changes {
				if c.Note != "" && !print {
					a.notes = append(a.notes, c.Path+": "+c.Note)
				}
				switch {
				case print:
					fmt.Fprintf(a.stdout, "# %s\n%s", c.Path, c.Snippet)
					if !strings.HasSuffix(c.Snippet, "\n") {
						fmt.Fprintln(a.stdout)
					}
				case dryRun:
					if d := setup.Diff(c); d != "" {
						fmt.Fprint(a.stdout, d)
					} else {
						fmt.Fprintf(a.stdout, "%s: unchanged\n", c.Path)
					}
				case !c.Changed():
					fmt.Fprintf(a.stdout, "%s: unchanged\n", c.Path)
				default:
					backup, err := setup.Apply(c, time.Now())
					if err != nil {
						return fmt.Errorf("writing %s: %w", c.Path, err)
					}
					if backup != "" {
						fmt.Fprintf(a.stdout, "%s: updated (the old one is %s)\n", c.Path, backup)
					} else {
						fmt.Fprintf(a.stdout, "%s: created\n", c.Path)
					}
				}
			}
			if args[0] == "claude-code" && !print && !dryRun {
				a.notes = append(a.notes, "the hooks talk to `mnemo serve` (start it, or pass --url): restart Claude Code to load them")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&dryRun, "dry-run", false, "print the diff of each file; write nothing")
	f.BoolVar(&print, "print", false, "print mnemo's part of each file; write nothing")
	f.BoolVar(&npx, "npx", false, "run mnemo as npx -y @mnemo-dev/mnemo (needs only Node) instead of this binary")
	f.StringVar(&command, "command", "", "the mnemo binary the client runs (default: this one)")
	f.StringVar(&url, "url", "", "the server the hooks talk to (default http://127.0.0.1:7077)")
	f.StringVar(&dir, "dir", "", "the project for per-project files (Cursor's rules; default: the working directory)")
	return cmd
}

// setupServer is how the client will run mnemo.
func (a *app) setupServer(command string, npx bool) (setup.Server, error) {
	switch {
	case npx && command != "":
		return setup.Server{}, usagef("--npx and --command do not go together")
	case npx:
		return setup.NPX, nil
	case command != "":
		abs, err := filepath.Abs(command)
		if err != nil {
			return setup.Server{}, usagef("--command %s: %v", command, err)
		}
		return setup.Server{Command: abs}, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return setup.Server{}, fmt.Errorf("finding this binary (pass --command or --npx): %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return setup.Server{Command: exe}, nil
}

// setupEnv is where the clients' files are, from the environment.
func (a *app) setupEnv(dir string) (setup.Env, error) {
	home := a.getenv("HOME")
	if runtime.GOOS == "windows" && a.getenv("USERPROFILE") != "" {
		home = a.getenv("USERPROFILE")
	}
	if home == "" {
		return setup.Env{}, usagef("no home directory: set $HOME")
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return setup.Env{}, err
		}
		dir = wd
	}
	return setup.Env{Home: home, GOOS: runtime.GOOS, AppData: a.getenv("APPDATA"), ConfigHome: a.getenv("XDG_CONFIG_HOME"), Dir: dir}, nil
}
