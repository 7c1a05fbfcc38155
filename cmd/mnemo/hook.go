package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo/internal/agenthook"
)

// hookCommand answers a coding agent's lifecycle hook (AGT-1): the Claude
// Code plugin in integrations/claude-code runs it for each event. It
// always exits 0 and never fails on the agent's side (AGT-3): a reason it
// could not help is logged, and the agent gets nothing.
func (a *app) hookCommand() *cobra.Command {
	var (
		url, key, logPath string
		timeout           time.Duration
		bootTokens        int
		recall            int
	)
	cmd := &cobra.Command{
		Use:   "hook [event] [payload]",
		Short: "Answer a coding agent's hook: session-start, user-prompt-submit, pre-compact, stop, codex-notify, cursor",
		Long: `Reads the hook's JSON (Claude Code's hook input) on stdin and talks to the running
server: session-start prints the agent's boot context and user-prompt-submit the memories
for the prompt, as Claude Code's additionalContext; pre-compact, stop and session-end send
the transcript's new turns to POST /v1/messages, each once. codex-notify stores the turn
of the JSON Codex's notify passes as the last argument; cursor stores the prompt and the
answer of Cursor's beforeSubmitPrompt and afterAgentResponse hooks. The agent id is
--agent, else $MNEMO_AGENT, else the name of the repository the agent works in. The
command always exits 0 within --timeout; why it could not help goes to stderr or --log.`,
		Args: cobra.MaximumNArgs(2),
		// The hook reads no config file: one that does not load must not
		// fail the agent's hook.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := agenthook.Config{URL: url, Key: key, Timeout: timeout, BootTokens: bootTokens, Recall: recall}
			if cfg.URL == "" {
				cfg.URL = a.getenv("MNEMO_URL")
			}
			if cfg.Key == "" {
				cfg.Key = a.getenv("MNEMO_KEY")
			}
			if f := cmd.Flags().Lookup("agent"); f != nil && f.Changed {
				cfg.Agent = f.Value.String()
			} else {
				cfg.Agent = a.getenv("MNEMO_AGENT")
			}
			if logPath == "" {
				logPath = a.getenv("MNEMO_HOOK_LOG")
			}
			event := ""
			if len(args) > 0 {
				event = args[0]
			}
			if event == "codex-notify" {
				payload := ""
				if len(args) == 2 {
					payload = args[1]
				}
				if _, err := agenthook.RunCodexNotify(cmd.Context(), cfg, []byte(payload)); err != nil {
					a.hookLog(logPath, event, err)
				}
				return nil
			}
			if len(args) == 2 {
				a.hookLog(logPath, event, fmt.Errorf("unexpected argument %q: the hook's input is read from stdin", args[1]))
				return nil
			}
			if event == "cursor" {
				out, err := agenthook.RunCursor(cmd.Context(), cfg, a.stdin)
				if err != nil {
					a.hookLog(logPath, event, err)
				}
				if out != nil {
					fmt.Fprintf(a.stdout, "%s\n", out)
				}
				return nil
			}
			res, err := agenthook.Run(cmd.Context(), cfg, event, a.stdin)
			if err != nil {
				a.hookLog(logPath, event, err)
				return nil
			}
			if res.Output != nil {
				b, _ := json.Marshal(res.Output)
				fmt.Fprintf(a.stdout, "%s\n", b)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "the server's URL ($MNEMO_URL; default "+agenthook.DefaultURL+")")
	f.StringVar(&key, "key", "", "the server's API key ($MNEMO_KEY)")
	f.StringVar(&logPath, "log", "", "append why a hook could not help to this file instead of stderr ($MNEMO_HOOK_LOG)")
	f.DurationVar(&timeout, "timeout", agenthook.DefaultTimeout, "the longest a hook takes")
	f.IntVar(&bootTokens, "boot-tokens", agenthook.DefaultBootTokens, "the session-start context's budget, in tokens")
	f.IntVar(&recall, "recall", agenthook.DefaultRecall, "how many memories a prompt brings in")
	return cmd
}

// hookLog says why a hook gave the agent nothing, on stderr or appended
// to path.
func (a *app) hookLog(path, event string, err error) {
	line := fmt.Sprintf("%s mnemo hook %s: %s\n", time.Now().UTC().Format(time.RFC3339), event, oneLine(err.Error()))
	var w io.Writer = a.stderr
	if path != "" {
		f, ferr := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if ferr == nil {
			defer f.Close()
			w = f
		}
	}
	io.WriteString(w, line)
}

// withProjectAgent adds --project-agent to the mcp command: the agent is
// then the repository the client started it in, as the hooks take it
// (AGT-2), so that the tools and the hooks of one project share memories.
func (a *app) withProjectAgent(cmd *cobra.Command) *cobra.Command {
	var project bool
	cmd.Flags().BoolVar(&project, "project-agent", false, "the agent is the name of the git repository of the working directory (as mnemo hook takes it), unless --agent or $MNEMO_AGENT names one")
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if f := cmd.Flags().Lookup("agent"); project && (f == nil || !f.Changed) && a.getenv("MNEMO_AGENT") == "" {
			dir, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("the working directory: %w", err)
			}
			a.cfg.Agent = agenthook.AgentFromDir(dir)
		}
		return run(cmd, args)
	}
	return cmd
}
