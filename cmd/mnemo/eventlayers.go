package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/service"
)

// The commands of L3 (EVT-8, EVT-15), of L2 from text (EVT-6) and of the
// adaptive profile (EVT-13): mnemo events search, prune-vectors,
// relate-text and profile.

func (a *app) eventLayerCommands() []*cobra.Command {
	return []*cobra.Command{a.eventsSearchCommand(), a.eventsPruneVectorsCommand(), a.eventsRelateTextCommand(), a.eventsProfileCommand()}
}

func (a *app) eventsSearchCommand() *cobra.Command {
	var (
		w          windowFlags
		q          events.Search
		vector     string
		modalities []string
	)
	cmd := &cobra.Command{
		Use:   "search [QUERY] [--vector JSON --model M]",
		Short: "Search events by meaning (L3): text embedded by the configured embedder, or a vector of a named model",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			eq, err := w.query()
			if err != nil {
				return err
			}
			q.Query, q.From, q.To, q.Types, q.Sources, q.Modalities = strings.Join(args, " "), eq.From, eq.To, eq.Types, eq.Sources, modalities
			if vector != "" {
				if err := json.Unmarshal([]byte(vector), &q.Vector); err != nil {
					return usagef("--vector must be a JSON array of numbers")
				}
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				// Vectors queued by earlier appends, made now; an embedder
				// that is down leaves them out of this search, said so.
				if err := svc.WaitEventVectors(cmd.Context()); err != nil && mnemo.ErrorCode(err) != mnemo.EUNAVAILABLE {
					fmt.Fprintf(a.stderr, "warning: some events have no vector yet: %v\n", err)
				}
				hits, err := svc.SearchEvents(cmd.Context(), a.scope(), q)
				if err != nil {
					return err
				}
				if a.asJSON {
					if hits == nil {
						hits = []events.Hit{}
					}
					return a.printJSON(hits)
				}
				for _, h := range hits {
					fmt.Fprintf(a.stdout, "%.3f %s %s %s %s %s\n", h.Score, h.Event.ID, h.Event.TS.Format(time.RFC3339), h.Event.Type, h.Modality, clip(events.Text(h.Event), 80))
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	w.add(f, false)
	f.StringVar(&vector, "vector", "", "a query vector, JSON (with --model)")
	f.StringVar(&q.Model, "model", "", "the model of --vector")
	f.StringSliceVar(&modalities, "modality", nil, "only vectors of these modalities (text, image, audio, video)")
	f.IntVar(&q.Limit, "limit", 10, "how many events")
	f.Float64Var(&q.Lexical, "lexical", 0, "weight of the share of query words in an event's text, 0 to 1")
	return cmd
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func (a *app) eventsPruneVectorsCommand() *cobra.Command {
	var (
		olderThan time.Duration
		minAccess int
	)
	cmd := &cobra.Command{
		Use:   "prune-vectors",
		Short: "Drop the L3 vectors of events older than --older-than (every agent) found fewer than --min-access times; events stay",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				n, err := svc.PruneEventVectors(cmd.Context(), olderThan, minAccess)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(map[string]int{"pruned": n})
				}
				fmt.Fprintf(a.stdout, "pruned %s\n", textutil.Count(n, "event vector", "event vectors"))
				return nil
			})
		},
	}
	cmd.Flags().DurationVar(&olderThan, "older-than", events.DefaultVectorKeep, "the age past which vectors go")
	cmd.Flags().IntVar(&minAccess, "min-access", 3, "vectors found by searches at least this often stay")
	return cmd
}

func (a *app) eventsRelateTextCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "relate-text ID...",
		Short: "Extract the entity, emotion and intent relations (L2) of events' text now: the configured LLM, or rules",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				var all []mnemo.Relation
				for _, id := range args {
					rels, err := svc.RelateEventText(cmd.Context(), a.scope(), id)
					if err != nil {
						return err
					}
					all = append(all, rels...)
				}
				if a.asJSON {
					if all == nil {
						all = []mnemo.Relation{}
					}
					return a.printJSON(all)
				}
				for _, r := range all {
					fmt.Fprintf(a.stdout, "%s -%s-> %s %.2f\n", r.Source, r.Type, r.Target, r.Confidence)
				}
				return nil
			})
		},
	}
}

func (a *app) eventsProfileCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "The user profile and its adaptive update schedule (show, interact)",
	}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the profile and where its schedule stands",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				rec, err := svc.Profile(cmd.Context(), a.scope())
				if err != nil {
					return err
				}
				return a.printProfile(rec, nil)
			})
		},
	}
	interact := &cobra.Command{
		Use:   "interact TEXT",
		Short: "Record an interaction of the user; updates the profile when the schedule or a new interest or need says so",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				rec, up, err := svc.RecordInteraction(cmd.Context(), a.scope(), strings.Join(args, " "))
				if err != nil {
					return err
				}
				return a.printProfile(rec, &up)
			})
		},
	}
	cmd.AddCommand(show, interact)
	return cmd
}

func (a *app) printProfile(rec events.ProfileRecord, updated *bool) error {
	if a.asJSON {
		if updated != nil {
			return a.printJSON(map[string]any{"updated": *updated, "record": rec})
		}
		return a.printJSON(rec)
	}
	if updated != nil {
		fmt.Fprintf(a.stdout, "updated: %v\n", *updated)
	}
	s := rec.Schedule
	fmt.Fprintf(a.stdout, "version %d: %s, %s; phase %s", rec.Version, textutil.Count(int(s.Interactions), "interaction", "interactions"), textutil.Count(int(s.Updates), "update", "updates"), s.Phase)
	if s.Every > 0 {
		fmt.Fprintf(a.stdout, ", every %d, next in %d", s.Every, s.NextIn)
	} else if !s.NextAt.IsZero() {
		fmt.Fprintf(a.stdout, ", next at %s", s.NextAt.Format(time.RFC3339))
	}
	if s.Reason != "" {
		fmt.Fprintf(a.stdout, "; last: %s", s.Reason)
	}
	fmt.Fprintln(a.stdout)
	p := rec.Profile
	fmt.Fprintf(a.stdout, "interests: %s\nneeds: %s\n", strings.Join(p.Interests, ", "), strings.Join(p.Needs, ", "))
	for k, v := range p.Traits {
		fmt.Fprintf(a.stdout, "%s: %s\n", k, v)
	}
	return nil
}
