package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/temporal"
)

// The commands of what is built for prompts: runs, sessions, snapshot,
// boot and the default read. Runs and sessions live in the store, so that
// one command opens a run and the next, another process, adds to it.

// jsonArg reads a flag that holds JSON, or plain text kept as a JSON
// string.
func jsonArg(name, v string) (json.RawMessage, error) {
	if v == "" {
		return nil, nil
	}
	if json.Valid([]byte(v)) {
		return json.RawMessage(v), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, usagef("--%s: %v", name, err)
	}
	return b, nil
}

// parseNow parses --now; empty is the zero time, "now" to the service.
func parseNow(v string) (time.Time, error) {
	t, err := timeFlag("now", v)
	if t == nil {
		return time.Time{}, err
	}
	return *t, nil
}

// timeFlag parses v, the value of the flag --name: an RFC 3339 time, a
// date (its midnight, UTC) or words ("last Tuesday", their start), within
// the supported range (TIME-1, TIME-2); empty is nil. An error is a usage
// error that names the flag, what was given and an example.
func timeFlag(name, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	t, err := temporal.ParseInstant("--"+name, v, time.Now())
	if err != nil {
		return nil, usagef("%s", mnemo.ErrorMessage(err))
	}
	return &t, nil
}

func (a *app) runCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "A run's short-term memory: open, record calls and responses, inject, render, close",
	}
	var (
		o       agentcontext.RunOptions
		payload string
	)
	open := &cobra.Command{
		Use:   "open <trigger-type>",
		Short: "Open a run with its trigger (cron, webhook, message, signal, ...) and print it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Trigger.Type = args[0]
			var err error
			if o.Trigger.Payload, err = jsonArg("payload", payload); err != nil {
				return err
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				r, err := svc.OpenRun(cmd.Context(), a.scope(), o)
				if err != nil {
					return err
				}
				return a.printRun(r)
			})
		},
	}
	open.Flags().StringVar(&o.ID, "id", "", "the run's id (default: a new one)")
	open.Flags().StringVar(&payload, "payload", "", "the trigger's payload: JSON, or text")
	open.Flags().StringVar(&o.Focus, "focus", "", "what the run should attend to")
	open.Flags().IntVar(&o.TokenLimit, "token-limit", 0, "short-term memory budget in tokens (default: context.run_token_limit)")

	var in, out, callErr string
	call := &cobra.Command{
		Use:   "call <run-id> <function>",
		Short: "Record a function call, its input and its output",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c := agentcontext.ToolCall{Name: args[1], Error: callErr}
			var err error
			if c.Input, err = jsonArg("input", in); err != nil {
				return err
			}
			if c.Output, err = jsonArg("output", out); err != nil {
				return err
			}
			return a.changeRun(cmd, func(svc *service.Mnemo) (agentcontext.Run, error) {
				return svc.RecordCall(cmd.Context(), a.scope(), args[0], c)
			})
		},
	}
	call.Flags().StringVar(&in, "input", "", "the call's input: JSON, or text")
	call.Flags().StringVar(&out, "output", "", "the call's output: JSON, or text")
	call.Flags().StringVar(&callErr, "error", "", "the call's error, if it failed")

	respond := &cobra.Command{
		Use:   "respond <run-id> <text>...",
		Short: "Record the model's intermediate response",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.changeRun(cmd, func(svc *service.Mnemo) (agentcontext.Run, error) {
				return svc.RecordResponse(cmd.Context(), a.scope(), args[0], strings.Join(args[1:], " "))
			})
		},
	}
	inject := &cobra.Command{
		Use:   "inject <run-id> <instruction>...",
		Short: "Add a temporary instruction to the run until it closes",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.changeRun(cmd, func(svc *service.Mnemo) (agentcontext.Run, error) {
				return svc.Inject(cmd.Context(), a.scope(), args[0], strings.Join(args[1:], " "))
			})
		},
	}
	render := &cobra.Command{
		Use:   "render <run-id>",
		Short: "Print the run's short-term memory as JSON for a prompt builder",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				r, err := svc.GetRun(cmd.Context(), a.scope(), args[0])
				if err != nil {
					return err
				}
				return a.printJSON(r)
			})
		},
	}
	closeCmd := &cobra.Command{
		Use:   "close <run-id>",
		Short: "Close the run: its short-term memory is removed",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				r, err := svc.CloseRun(cmd.Context(), a.scope(), args[0])
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(r)
				}
				fmt.Fprintf(a.stdout, "closed run %s (%s, %s)\n", r.ID, textutil.Count(r.NextRound-1, "round", "rounds"), textutil.Count(r.Tokens, "token", "tokens"))
				return nil
			})
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the open runs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				runs, err := svc.ListRuns(cmd.Context(), a.scope())
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(runs)
				}
				for _, r := range runs {
					fmt.Fprintf(a.stdout, "%s  %s  %s  %d/%d tokens  opened %s\n", r.ID, r.Trigger.Type, textutil.Count(r.NextRound-1, "round", "rounds"), r.Tokens, r.TokenLimit, r.OpenedAt.Format(time.RFC3339))
				}
				return nil
			})
		},
	}
	cmd.AddCommand(open, call, respond, inject, render, closeCmd, list)
	return cmd
}

// changeRun runs a change of a run and prints the run.
func (a *app) changeRun(cmd *cobra.Command, fn func(*service.Mnemo) (agentcontext.Run, error)) error {
	return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
		r, err := fn(svc)
		if err != nil {
			return err
		}
		return a.printRun(r)
	})
}

// printRun prints a run: JSON, or one line and any notes.
func (a *app) printRun(r agentcontext.Run) error {
	if a.asJSON {
		return a.printJSON(r)
	}
	fmt.Fprintf(a.stdout, "run %s: %s kept, %d summarised, %d/%d tokens\n", r.ID, textutil.Count(len(r.Rounds), "round", "rounds"), len(r.Earlier)+r.Omitted, r.Tokens, r.TokenLimit)
	for _, n := range r.Notes {
		fmt.Fprintf(a.stdout, "  note: %s\n", n)
	}
	return nil
}

func (a *app) sessionCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "A session's working memory: record turns, show, list, end, sweep",
	}
	var (
		t    agentcontext.Turn
		vars []string
	)
	turn := &cobra.Command{
		Use:   "turn <session-id> <text>...",
		Short: "Record a message of the session and print its working memory",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			t.Text = strings.Join(args[1:], " ")
			for _, v := range vars {
				name, value, ok := strings.Cut(v, "=")
				if !ok {
					return usagef("--var %q: want name=value", v)
				}
				if t.Variables == nil {
					t.Variables = map[string]string{}
				}
				t.Variables[name] = value
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				wm, err := svc.AddTurn(cmd.Context(), a.scope(), args[0], t)
				if err != nil {
					return err
				}
				return a.printWorking(wm)
			})
		},
	}
	f := turn.Flags()
	f.StringVar(&t.Role, "role", "user", "user or assistant")
	f.StringVar(&t.Topic, "topic", "", "set the topic instead of detecting it")
	f.StringVar(&t.Emotion, "emotion", "", "set the emotion instead of detecting it")
	f.StringArrayVar(&vars, "var", nil, "set a context variable, name=value (repeatable; name= removes it)")
	f.StringArrayVar(&t.Remember, "remember", nil, "mark a fact for long-term memory (repeatable)")

	show := &cobra.Command{
		Use:   "show <session-id>",
		Short: "Print a session's working memory",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				wm, err := svc.GetWorkingMemory(cmd.Context(), a.scope(), args[0])
				if err != nil {
					return err
				}
				return a.printWorking(wm)
			})
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the sessions with working memory",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				ss, err := svc.ListSessions(cmd.Context(), a.scope())
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(ss)
				}
				for _, wm := range ss {
					fmt.Fprintf(a.stdout, "%s  %s  topic %q  updated %s\n", wm.SessionID, textutil.Count(wm.TurnCount, "turn", "turns"), wm.CurrentTopic, wm.UpdatedAt.Format(time.RFC3339))
				}
				return nil
			})
		},
	}
	var archive bool
	end := &cobra.Command{
		Use:   "end <session-id>",
		Short: "End a session: delete its working memory",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				e, err := svc.EndSession(cmd.Context(), a.scope(), args[0], archive)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(e)
				}
				fmt.Fprintf(a.stdout, "ended session %s after %s; %s archived\n", args[0], textutil.Count(e.WorkingMemory.TurnCount, "turn", "turns"), textutil.Count(len(e.Archived), "fact", "facts"))
				return nil
			})
		},
	}
	end.Flags().BoolVar(&archive, "archive", false, "write the session's marked facts to long-term memory first")
	sweep := &cobra.Command{
		Use:   "sweep",
		Short: "Delete idle sessions' working memory and abandoned runs (serve does it every minute)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				n, err := svc.SweepSessions(cmd.Context())
				if err != nil {
					return err
				}
				runs, err := svc.SweepRuns(cmd.Context())
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "swept %s and %s\n", textutil.Count(n, "idle session", "idle sessions"), textutil.Count(runs, "abandoned run", "abandoned runs"))
				return nil
			})
		},
	}
	cmd.AddCommand(turn, show, list, end, sweep)
	return cmd
}

func (a *app) printWorking(wm agentcontext.WorkingMemory) error {
	if a.asJSON {
		return a.printJSON(wm)
	}
	fmt.Fprintf(a.stdout, "session %s: turn %d, topic %q, emotion %s\n", wm.SessionID, wm.TurnCount, wm.CurrentTopic, wm.LastEmotion)
	for k, v := range wm.ContextVariables {
		fmt.Fprintf(a.stdout, "  %s = %s\n", k, v)
	}
	for _, f := range wm.Facts {
		fmt.Fprintf(a.stdout, "  fact: %s\n", f)
	}
	return nil
}

func (a *app) snapshotCommand() *cobra.Command {
	var (
		q            agentcontext.SnapshotQuery
		payload, now string
	)
	cmd := &cobra.Command{
		Use:   "snapshot <trigger-type>",
		Short: `Print the "Recent Experience" section a run starts with: pinned, related and recent memories`,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Trigger.Type = args[0]
			var err error
			if q.Trigger.Payload, err = jsonArg("payload", payload); err != nil {
				return err
			}
			if q.Now, err = parseNow(now); err != nil {
				return err
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				snap, err := svc.Snapshot(cmd.Context(), a.scope(), q)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(snap)
				}
				fmt.Fprint(a.stdout, snap.Text)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&payload, "payload", "", "the trigger's payload: JSON, or text")
	f.StringVar(&q.Focus, "focus", "", "what the run should attend to")
	f.IntVar(&q.TokenLimit, "token-limit", 0, "budget in tokens (default: context.snapshot_token_limit, 500)")
	f.StringVar(&now, "now", "", "judge recency and expiry at this time (RFC 3339, a date or words)")
	return cmd
}

func (a *app) bootCommand() *cobra.Command {
	var q agentcontext.BootQuery
	cmd := &cobra.Command{
		Use:   "boot",
		Short: "Print the warm start: identity, recent emotions, key knowledge, recent events",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.asJSON {
				q.Format = agentcontext.BootJSON
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				b, err := svc.Boot(cmd.Context(), a.scope(), q)
				if err != nil {
					return err
				}
				if q.Format == agentcontext.BootJSON {
					return a.printJSON(b)
				}
				fmt.Fprint(a.stdout, b.Text)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&q.Format, "format", agentcontext.BootNarrative, "narrative (markdown) or json")
	cmd.Flags().StringVar(&q.Lang, "lang", "en", "language of the headings: en or zh")
	return cmd
}

func (a *app) readCommand() *cobra.Command {
	var (
		q   agentcontext.ReadQuery
		now string
	)
	cmd := &cobra.Command{
		Use:   "read",
		Short: "Default read: the memories for a prompt within a token limit, as `key type summary` lines",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if q.Now, err = parseNow(now); err != nil {
				return err
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				res, err := svc.DefaultRead(cmd.Context(), a.scope(), q)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(res)
				}
				fmt.Fprint(a.stdout, res.Text)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&q.TokenLimit, "token-limit", 1000, "budget in tokens")
	f.StringSliceVar(&q.Tags, "tags", nil, "the context's tags: memories sharing them rank higher")
	f.StringVar(&now, "now", "", "the current time (RFC 3339, a date or words), for expiry and recency")
	return cmd
}
