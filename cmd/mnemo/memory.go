package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/security"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/temporal"
)

func (a *app) rememberCommand() *cobra.Command {
	var (
		d          mnemo.Draft
		data, src  string
		priority   int
		importance float64
		confidence float64
		expires    string
		occurred   timeFlags // after: occurred_at; occurredAfter/Before: valid_from/valid_to
	)
	cmd := &cobra.Command{
		Use:   "remember [content | -]",
		Short: "Store a memory (an upsert when --key is given; no content and no --value on a key is a tombstone)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				content := args[0]
				if content == "-" {
					b, err := io.ReadAll(io.LimitReader(a.stdin, 1<<20))
					if err != nil {
						return err
					}
					content = string(b)
				}
				d.Content = &content
			}
			if data != "" {
				if err := mnemo.CheckJSONDepth("--value", []byte(data)); err != nil { // API-21
					return usagef("%s", mnemo.ErrorMessage(err))
				}
				d.Data = json.RawMessage(data)
			}
			if src != "" {
				if json.Valid([]byte(src)) {
					d.Source = json.RawMessage(src)
				} else {
					d.Source, _ = json.Marshal(src)
				}
			}
			f := cmd.Flags()
			if f.Changed("priority") {
				d.Priority = &priority
			}
			if f.Changed("importance") {
				d.Importance = &importance
			}
			if f.Changed("confidence") {
				d.Confidence = &confidence
			}
			var err error
			if d.ExpiresAt, err = timeFlag("expires", expires); err != nil {
				return err
			}
			if v := occurred.after; v != "" {
				// Read when the memory is built, as a time in its text
				// would be (TIME-2); refused here if it is none.
				if _, err := temporal.ParseTime("--occurred", v, time.Now()); err != nil {
					return usagef("%s", mnemo.ErrorMessage(err))
				}
				d.OccurredAt = &mnemo.When{Text: v}
			}
			if d.ValidFrom, err = timeFlag("valid-from", occurred.occurredAfter); err != nil {
				return err
			}
			if d.ValidTo, err = timeFlag("valid-to", occurred.occurredBefore); err != nil {
				return err
			}
			if d.Content == nil && d.Data == nil && d.Key == "" {
				return usagef("give the content to remember, '-' to read it from standard input, or --value")
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				res, err := svc.Write(cmd.Context(), a.scope(), []mnemo.Draft{d})
				if err != nil {
					return err
				}
				r := res[0]
				if a.asJSON {
					return a.printJSON(r)
				}
				fmt.Fprintln(a.stdout, r.ID)
				if !r.Applied {
					fmt.Fprintf(a.stderr, "not applied: a newer revision of %s, updated %s, stands\n", r.Key, r.WinnerUpdatedAt.Format(time.RFC3339Nano))
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&d.Key, "key", "", "logical key such as /user/preference/style (upsert)")
	f.StringVar(&d.SessionID, "session", "", "session id")
	f.StringVar(&data, "value", "", "JSON data (seed 001 value, seed 004 json_content)")
	f.StringVar(&d.Summary, "summary", "", "summary")
	f.StringVar(&d.Type, "type", "", "type: identity, emotion, knowledge, event, preference, fact, pattern, …")
	f.StringVar(&d.Category, "category", "", "category (seed 001: preference, fact, pattern)")
	f.IntVar(&priority, "priority", 2, "priority 0 (P0) to 3 (P3)")
	f.Float64Var(&importance, "importance", 0.5, "importance 0–1")
	f.Float64Var(&confidence, "confidence", 1, "confidence 0–1")
	f.StringSliceVar(&d.Tags, "tag", nil, "tag (repeatable, or comma-separated)")
	f.StringArrayVar(&d.Entities, "entity", nil, "a person or named thing it is by or about, an alias included (repeatable; REC-28)")
	f.StringVar(&d.SecurityLevel, "security", "", "security level: public, internal, confidential, restricted")
	f.BoolVar(&d.Pinned, "pinned", false, "always load this memory")
	f.StringVar(&src, "source", "", "provenance: a string or a JSON object")
	f.StringVar(&expires, "expires", "", "expiry time (a time: RFC 3339, 2026-12-31 or words such as \"next Friday\")")
	f.StringVar(&occurred.after, "occurred", "", "when what it tells happened: RFC 3339, a date (that day), words (\"last Tuesday\") or a recurrence (\"every Sunday morning\"); default: a time named in its text, else now")
	f.StringVar(&occurred.occurredAfter, "valid-from", "", "start of the span it was true or happened in (a time)")
	f.StringVar(&occurred.occurredBefore, "valid-to", "", "end of that span (a time)")
	return cmd
}

// filterFlags binds the common filter flags.
// timeFlags are the time filters' flags, as given.
type timeFlags struct{ after, before, occurredAfter, occurredBefore, asOf string }

func filterFlags(cmd *cobra.Command, f *mnemo.Filter, t *timeFlags) {
	fl := cmd.Flags()
	fl.StringSliceVar(&f.Tags, "tag", nil, "only memories with this tag (repeatable)")
	fl.BoolVar(&f.AllTags, "all-tags", false, "require all --tag values, not any")
	fl.StringSliceVar(&f.Types, "type", nil, "only these types")
	fl.StringSliceVar(&f.Categories, "category", nil, "only these categories")
	fl.StringVar(&f.SessionID, "session", "", "only this session")
	fl.Float64Var(&f.MinConfidence, "min-confidence", 0, "only memories at least this confident")
	fl.BoolVar(&f.IncludeArchived, "include-archived", false, "include archived memories")
	fl.BoolVar(&f.IncludeExpired, "include-expired", false, "include expired memories")
	fl.StringVar(&t.after, "after", "", "only memories created at or after this time (RFC 3339, a date or words)")
	fl.StringVar(&t.before, "before", "", "only memories created before this time (RFC 3339, a date or words)")
	fl.StringVar(&t.occurredAfter, "occurred-after", "", "only memories whose occurred window ends after this time (RFC 3339, a date or words)")
	fl.StringVar(&t.occurredBefore, "occurred-before", "", "only memories whose occurred window starts before this time (RFC 3339, a date or words)")
	fl.StringVar(&t.asOf, "as-of", "", "what held at this time (RFC 3339, a date or words): a key's earlier values and since-contradicted memories included (REC-27)")
}

func parseTimes(f *mnemo.Filter, t timeFlags) error {
	var err error
	if f.CreatedAfter, err = timeFlag("after", t.after); err != nil {
		return err
	}
	if f.OccurredAfter, err = timeFlag("occurred-after", t.occurredAfter); err != nil {
		return err
	}
	if f.OccurredBefore, err = timeFlag("occurred-before", t.occurredBefore); err != nil {
		return err
	}
	if f.AsOf, err = timeFlag("as-of", t.asOf); err != nil {
		return err
	}
	f.CreatedBefore, err = timeFlag("before", t.before)
	return err
}

func (a *app) recallCommand(name, short string) *cobra.Command {
	var (
		q   memory.Query
		now string
		tf  timeFlags
	)
	cmd := &cobra.Command{
		Use:   name + " <query>",
		Short: short,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Text = strings.Join(args, " ")
			var err error
			if q.Now, err = parseNow(now); err != nil {
				return err
			}
			if err := parseTimes(&q.Filter, tf); err != nil {
				return err
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				find := svc.Recall
				if name == "surface" {
					find = svc.Surface
				}
				res, err := find(cmd.Context(), a.scope(), q)
				if err != nil {
					return err
				}
				if res.UnknownAgent {
					res.Hint = svc.AgentHint(cmd.Context(), a.scope(), nil)
					fmt.Fprintf(a.stderr, "mnemo: %s (tenant %q; --agent or $MNEMO_AGENT names another)\n", res.Hint, a.cfg.Tenant)
				}
				if a.asJSON {
					return a.printJSON(res)
				}
				a.printScored(res)
				return nil
			})
		},
	}
	filterFlags(cmd, &q.Filter, &tf)
	f := cmd.Flags()
	f.StringVar(&q.MinMatch, "min-match", "", "leave out results that match less: weak (those matching nothing asked) or strong")
	f.IntVarP(&q.Limit, "limit", "n", 0, "how many results (default 5, max 20)")
	f.StringVar(&now, "now", "", "judge recency and expiry at this time (RFC 3339, a date or words)")
	f.StringVar(&q.Profile, "profile", "", "ranking profile: hybrid (default), seed001, seed003, lexical or semantic")
	f.BoolVar(&q.Explain, "explain", false, "show every score component")
	f.IntVar(&q.TraverseHops, "traverse-hops", 0, fmt.Sprintf("follow links from the results, up to this many (0 to %d)", memory.MaxTraverseHops))
	return cmd
}

// label is what the CLI shows of a memory's content: confidential and
// restricted memories are marked (SEC-5).
// occurredLine is a memory's occurred window for a terminal (REC-24):
// "2023-05-07 .. 2023-05-08 (text: yesterday)".
func occurredLine(o mnemo.Occurred) string {
	how := o.Source
	if o.Expression != "" {
		how += ": " + o.Expression
	}
	if r := o.Recurrence; r != nil { // REC-30: its rule, from its first occurrence on
		return fmt.Sprintf("%s from %s (%s)", r.Rule, o.Start.Format(time.RFC3339), how)
	}
	return fmt.Sprintf("%s .. %s (%s)", o.Start.Format(time.RFC3339), o.End.Format(time.RFC3339), how)
}

func label(m *mnemo.Memory) string {
	s := oneLine(m.Content)
	// A memory the mask profile masked already says its marker.
	if l := security.Label(m.SecurityLevel); l != "" && !strings.HasPrefix(s, l+" ") {
		s = l + " " + s
	}
	return s
}

func (a *app) printScored(res memory.Result) {
	if res.Degraded {
		fmt.Fprintf(a.stderr, "warning: degraded: %s\n", res.Reason)
	}
	if len(res.Results) == 0 {
		if res.UnknownAgent {
			fmt.Fprintln(a.stdout, "no memories found")
		} else {
			fmt.Fprintf(a.stdout, "no memories found (best match: %s)\n", res.Match)
		}
		return
	}
	if res.Match == rank.MatchNone {
		// API-17: the nearest of what there is, said to be only that.
		fmt.Fprintln(a.stderr, "mnemo: no relevant memory: these are only the nearest (--min-match weak leaves them out)")
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	for _, r := range res.Results {
		fmt.Fprintf(tw, "%.3f\t%s\t%s\t%s\t%s\n", r.Score, r.Match, r.ID, r.Key, label(&r.Memory))
		if r.Explain != nil {
			printExplain(tw, r.Explain)
		}
	}
	tw.Flush()
	printLinked(a.stdout, res.Linked)
}

// printExplain writes a score's components as its formula combines them:
// the weighted formula sums value × weight, the others multiply factors.
//
// The components make the score before diversity (relevance); the
// diversity penalty, if any, comes off it to give the score the results
// are ordered by (API-19); then what the match is made of (API-17).
func printExplain(w io.Writer, ex *rank.Explanation) {
	relevance := ex.Score + ex.MMR
	if ex.Formula == rank.FormulaWeighted {
		for _, c := range ex.Components {
			fmt.Fprintf(w, "\t  %s\t%.3f × %.2f\t= %.3f\n", c.Name, c.Value, c.Weight, c.Contribution)
		}
		fmt.Fprintf(w, "\t  sum\t\t= %.3f\n", relevance)
	} else {
		fmt.Fprintf(w, "\t  (lexical %.3f, semantic %.3f)\t\t\n", ex.Lexical, ex.Semantic)
		for i, c := range ex.Components {
			op := "×"
			if i == 0 {
				op = " "
			}
			fmt.Fprintf(w, "\t  %s %s\t%.3f\t\n", op, c.Name, c.Value)
		}
		fmt.Fprintf(w, "\t  = product\t%.3f\t\n", relevance)
	}
	if ex.MMR > 0 {
		fmt.Fprintf(w, "\t  − diversity\t%.3f\t(like a result above it)\n", ex.MMR)
		fmt.Fprintf(w, "\t  = score\t%.3f\t\n", ex.Score)
	}
	if m := ex.Match; m != nil {
		fmt.Fprintf(w, "\t  match\t%.3f\t(coverage %.2f, similarity %.3f, margin %.3f, agreement %.0f, elsewhere %.1f, rival %.2f)\n",
			m.Probability, m.Coverage, m.Similarity, m.Margin, m.Agreement, m.Elsewhere, m.Rival)
	}
}

func (a *app) printMemories(ms []mnemo.Memory) {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	for i := range ms {
		m := &ms[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.ID, m.CreatedAt.Format(time.RFC3339), m.Type, m.Key, label(m))
	}
	tw.Flush()
}

func (a *app) getCommand() *cobra.Command {
	var key string
	cmd := &cobra.Command{
		Use:   "get [id]",
		Short: "Show one memory by id or --key",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (key != "") {
				return usagef("give an id or --key, not both")
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				var m mnemo.Memory
				var err error
				if key != "" {
					m, err = svc.GetByKey(cmd.Context(), a.scope(), key)
				} else {
					m, err = svc.Get(cmd.Context(), a.scope(), args[0])
				}
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(m)
				}
				fmt.Fprintf(a.stdout, "id:         %s\nkey:        %s\ntype:       %s\ncreated_at: %s\naccesses:   %d\ntags:       %s\ncontent:    %s\n",
					m.ID, m.Key, m.Type, m.CreatedAt.Format(time.RFC3339), m.AccessCount, strings.Join(m.Tags, ", "), label(&m))
				if len(m.Data) > 0 {
					fmt.Fprintf(a.stdout, "data:       %s\n", m.Data)
				}
				fmt.Fprintf(a.stdout, "occurred:   %s\n", occurredLine(m.OccurredOf()))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "the memory's key")
	return cmd
}

func (a *app) listCommand() *cobra.Command {
	var (
		q  mnemo.ListQuery
		tf timeFlags
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List memories, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := parseTimes(&q.Filter, tf); err != nil {
				return err
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				ms, total, err := svc.List(cmd.Context(), a.scope(), q)
				if err != nil {
					return err
				}
				if a.asJSON {
					if ms == nil {
						ms = []mnemo.Memory{}
					}
					return a.printJSON(map[string]any{"memories": ms, "total": total, "limit": q.Limit, "offset": q.Offset})
				}
				a.printMemories(ms)
				fmt.Fprintf(a.stderr, "%d of %d\n", len(ms), total)
				return nil
			})
		},
	}
	filterFlags(cmd, &q.Filter, &tf)
	f := cmd.Flags()
	f.IntVarP(&q.Limit, "limit", "n", 50, "page size")
	f.IntVar(&q.Offset, "offset", 0, "page offset")
	f.StringVar(&q.KeyPrefix, "prefix", "", "only keys under this prefix (recall_path)")
	f.StringVar(&q.Order, "order", "newest", "order: newest, oldest, key")
	return cmd
}

func (a *app) forgetCommand() *cobra.Command {
	var keys []string
	cmd := &cobra.Command{
		Use:   "forget [id...]",
		Short: "Delete memories by id or --key, for good",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && len(keys) == 0 {
				return usagef("give an id or --key to forget")
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				n, err := svc.Forget(cmd.Context(), a.scope(), args, keys)
				if err != nil {
					return err
				}
				return a.printCount("forgot", n)
			})
		},
	}
	cmd.Flags().StringSliceVar(&keys, "key", nil, "key to forget (repeatable)")
	return cmd
}

func (a *app) printCount(verb string, n int) error {
	if a.asJSON {
		return a.printJSON(map[string]int{"deleted": n})
	}
	fmt.Fprintf(a.stdout, "%s %d\n", verb, n)
	return nil
}

func (a *app) clearCommand() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "clear --yes",
		Short: "Delete every memory of the agent",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !yes {
				return usagef("clear deletes every memory of agent %q: confirm with --yes", a.cfg.Agent)
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				n, err := svc.Clear(cmd.Context(), a.scope())
				if err != nil {
					return err
				}
				return a.printCount("cleared", n)
			})
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm")
	return cmd
}

func (a *app) historyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "history <key>",
		Short: "Show every write of a key, tombstones and lost writes included",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				revs, err := svc.History(cmd.Context(), a.scope(), args[0])
				if err != nil {
					return err
				}
				if a.asJSON {
					if revs == nil {
						revs = []mnemo.Revision{}
					}
					return a.printJSON(revs)
				}
				tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
				for _, r := range revs {
					content := ""
					if r.Memory != nil {
						content = label(r.Memory)
					}
					fmt.Fprintf(tw, "%d\t%s\t%s\tapplied=%t\t%s\n", r.Seq, r.At.Format(time.RFC3339Nano), r.Op, r.Applied, content)
				}
				return tw.Flush()
			})
		},
	}
}

func (a *app) statsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Describe the agent's memories",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				st, err := svc.Stats(cmd.Context(), a.scope())
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(st)
				}
				fmt.Fprintf(a.stdout, "memories:   %d\narchived:   %d\nkeys:       %d\ntombstones: %d\nsessions:   %d\n",
					st.Memories, st.Archived, st.Keys, st.Tombstones, st.Sessions)
				if st.Oldest != nil {
					fmt.Fprintf(a.stdout, "oldest:     %s\nnewest:     %s\n", st.Oldest.Format(time.RFC3339), st.Newest.Format(time.RFC3339))
				}
				if v := st.Vectors; v != nil && v.Unavailable != "" {
					fmt.Fprintf(a.stdout, "vectors:    none (%s)\n", v.Unavailable)
				} else if v != nil {
					fmt.Fprintf(a.stdout, "embedder:   %s (%d dimensions)\nembedded:   %d\npending:    %d\nindexed:    %d\n", v.Model, v.Dimension, v.Embedded, v.Pending, v.Indexed)
					if v.CacheHitRate != nil {
						fmt.Fprintf(a.stdout, "query cache hit rate: %.2f\n", *v.CacheHitRate)
					}
				}
				return nil
			})
		},
	}
}
