package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/service"
)

// The commands of the event layers L4 and L5 (EVT-10, EVT-11): mnemo
// events summary and mnemo events capabilities.

func (a *app) eventsSummaryCommand() *cobra.Command {
	var (
		period, at, from, to string
		list, prune          bool
		limit                int
	)
	cmd := &cobra.Command{
		Use:   "summary [--period P] [--at TIME] | --list [--from T --to T] | --prune",
		Short: "Summarize an hour, day, week, month or year of events (L4), list stored summaries, or apply their retention",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			return a.withService(ctx, func(svc *service.Mnemo) error {
				switch {
				case prune:
					n, err := svc.DropOldSummaries(ctx)
					if err != nil {
						return err
					}
					if a.asJSON {
						return a.printJSON(map[string]int{"dropped": n})
					}
					fmt.Fprintf(a.stdout, "dropped %s older than a year\n", textutil.Count(n, "hour or day summary", "hour and day summaries"))
					return nil
				case list:
					q := mnemo.SummaryQuery{Limit: limit}
					if cmd.Flags().Changed("period") {
						q.Period = mnemo.Period(period)
					}
					for _, t := range []struct {
						name, v string
						dst     **time.Time
					}{{"from", from, &q.From}, {"to", to, &q.To}} {
						v, err := timeFlag(t.name, t.v)
						if err != nil {
							return err
						}
						*t.dst = v
					}
					sums, err := svc.Summaries(ctx, a.scope(), q)
					if err != nil {
						return err
					}
					if a.asJSON {
						return a.printJSON(map[string]any{"summaries": sums})
					}
					for _, s := range sums {
						a.printSummary(s)
					}
					return nil
				}
				var when time.Time
				if v, err := timeFlag("at", at); err != nil {
					return err
				} else if v != nil {
					when = *v
				}
				s, err := svc.Summarize(ctx, a.scope(), mnemo.Period(period), when)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(s)
				}
				a.printSummary(s)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&period, "period", "day", "hour, day, week, month or year")
	f.StringVar(&at, "at", "", "a time in the period (RFC 3339, a date or words) (default now)")
	f.BoolVar(&list, "list", false, "list stored summaries instead of generating one")
	f.StringVar(&from, "from", "", "with --list: summaries starting at or after this time (RFC 3339, a date or words)")
	f.StringVar(&to, "to", "", "with --list: summaries starting before this time (RFC 3339, a date or words)")
	f.IntVar(&limit, "limit", 100, "with --list: how many")
	f.BoolVar(&prune, "prune", false, "drop hour and day summaries older than a year (serve does it on its own)")
	return cmd
}

// printSummary prints a summary for people.
func (a *app) printSummary(s mnemo.Summary) {
	w := a.stdout
	fmt.Fprintf(w, "%s from %s to %s: %s, %s, tasks %d done / %d failed (%.0f%%)\n",
		s.Period, s.Start.Format(time.RFC3339), s.End.Format(time.RFC3339),
		textutil.Count(s.Events, "event", "events"), textutil.Count(s.Errors, "error", "errors"),
		s.Tasks.Succeeded, s.Tasks.Failed, s.CompletionRate*100)
	for _, k := range s.KeyEvents {
		fmt.Fprintf(w, "  key  %s %-10s %s %s\n", k.TS.Format(time.RFC3339), k.Why, k.Type, k.ID)
	}
	for _, list := range []struct {
		name  string
		items []string
	}{{"trend", s.Trends}, {"pattern", s.Patterns}, {"suggest", s.Suggestions}} {
		for _, it := range list.items {
			fmt.Fprintf(w, "  %-8s %s\n", list.name, it)
		}
	}
	if s.Note != "" {
		fmt.Fprintf(w, "  note: %s\n", s.Note)
	}
}

func (a *app) eventsCapabilitiesCommand() *cobra.Command {
	var (
		taskType string
		limit    int
		extract  bool
	)
	cmd := &cobra.Command{
		Use:   "capabilities [TASK TEXT] [--type T] | --extract",
		Short: "Find the capabilities (L5) that fit a task, best first, or rebuild them from every event",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			return a.withService(ctx, func(svc *service.Mnemo) error {
				if extract {
					if len(args) > 0 || taskType != "" {
						return usagef("--extract takes no task")
					}
					caps, err := svc.ExtractCapabilities(ctx, a.scope())
					if err != nil {
						return err
					}
					if a.asJSON {
						return a.printJSON(map[string]any{"capabilities": caps})
					}
					for _, c := range caps {
						a.printCapability(c, 0)
					}
					fmt.Fprintf(a.stderr, "%s\n", textutil.Count(len(caps), "capability", "capabilities"))
					return nil
				}
				matches, err := svc.Capabilities(ctx, a.scope(), events.CapabilityQuery{Text: strings.Join(args, " "), TaskType: taskType, Limit: limit})
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(map[string]any{"capabilities": matches})
				}
				for _, m := range matches {
					a.printCapability(m.Capability, m.Score)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&taskType, "type", "", "the task's type")
	f.IntVar(&limit, "limit", 5, "how many capabilities")
	f.BoolVar(&extract, "extract", false, "rebuild every capability from the events (and describe them with the LLM when configured)")
	return cmd
}

// printCapability prints a capability for people.
func (a *app) printCapability(c mnemo.Capability, score float64) {
	w := a.stdout
	fmt.Fprintf(w, "%s (%s): %d succeeded, %d failed", c.Name, c.TaskType, c.Successes, c.Failures)
	if score > 0 {
		fmt.Fprintf(w, ", score %.2f", score)
	}
	fmt.Fprintf(w, "\n  %s\n", c.Description)
	if len(c.Tools) > 0 {
		fmt.Fprintf(w, "  tools: %s\n", strings.Join(c.Tools, ", "))
	}
	if len(c.Conditions) > 0 {
		fmt.Fprintf(w, "  when: %s\n", strings.Join(c.Conditions, ", "))
	}
	for _, l := range c.FailureLessons {
		fmt.Fprintf(w, "  lesson: %s\n", l.Text)
	}
}
