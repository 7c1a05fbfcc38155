package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/natsbus"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/webhook"
)

// The commands of the event layers (EVT-1): mnemo events append, query,
// get, replay, export, archive and graph.

func (a *app) eventsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "events",
		Short: "Events (L1), their relations (L2), summaries (L4) and capabilities (L5): append, query, replay, export, archive, graph, summary, capabilities",
	}
	cmd.AddCommand(a.eventsAppendCommand(), a.eventsQueryCommand(), a.eventsGetCommand(), a.eventsReplayCommand(),
		a.eventsExportCommand(), a.eventsArchiveCommand(), a.eventsGraphCommand(),
		a.eventsSummaryCommand(), a.eventsCapabilitiesCommand())
	cmd.AddCommand(a.eventLayerCommands()...)
	return cmd
}

// windowFlags are the flags of an event window and its filters.
type windowFlags struct {
	from, to, cursor string
	types, sources   []string
}

func (w *windowFlags) add(f *pflag.FlagSet, withCursor bool) {
	f.StringVar(&w.from, "from", "", "events at or after this time (RFC 3339, a date or words)")
	f.StringVar(&w.to, "to", "", "events before this time (RFC 3339, a date or words)")
	f.StringSliceVar(&w.types, "type", nil, "events of these types")
	f.StringSliceVar(&w.sources, "source", nil, "events from these sources")
	if withCursor {
		f.StringVar(&w.cursor, "cursor", "", "continue after a previous page or replay (its next)")
	}
}

func (w *windowFlags) query() (mnemo.EventQuery, error) {
	q := mnemo.EventQuery{Types: w.types, Sources: w.sources, Cursor: w.cursor}
	var err error
	if q.From, err = timeFlag("from", w.from); err != nil {
		return q, err
	}
	q.To, err = timeFlag("to", w.to)
	return q, err
}

func (a *app) eventsAppendCommand() *cobra.Command {
	var (
		in             eventFlags
		file           string
		data, metadata string
	)
	cmd := &cobra.Command{
		Use:   "append [--type T --source S --payload JSON] | --file FILE",
		Short: "Append an event, or the JSON Lines events of a file (- for standard input), with their relations",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var batches [][]mnemo.Event
			switch {
			case file != "" && in.typ != "":
				return usagef("give --type for one event or --file for many, not both")
			case file != "":
				var err error
				if batches, err = a.readEvents(file); err != nil {
					return err
				}
			case in.typ == "":
				return usagef("an event needs --type (or give --file)")
			default:
				e, err := in.event(data, metadata)
				if err != nil {
					return err
				}
				batches = [][]mnemo.Event{{e}}
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				var all []mnemo.Event
				for _, b := range batches {
					out, err := svc.AppendEvents(cmd.Context(), a.scope(), b)
					if err != nil {
						return err
					}
					all = append(all, out...)
				}
				if a.asJSON {
					return a.printJSON(all)
				}
				for _, e := range all {
					fmt.Fprintln(a.stdout, e.ID)
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.id, "id", "", "the event's id (default: a new UUIDv7)")
	f.StringVar(&in.typ, "type", "", "the event's type, such as AgentStarted")
	f.StringVar(&in.source, "source", "", "where it comes from")
	f.StringVar(&in.ts, "ts", "", "when it happened, RFC 3339, a date or words (default: now)")
	f.StringVar(&data, "payload", "", "its data, JSON (data.parent_id names its parent)")
	f.StringVar(&metadata, "metadata", "", "its metadata, a JSON object")
	f.StringVarP(&file, "file", "f", "", "append the events of this JSON Lines file, - for standard input")
	return cmd
}

type eventFlags struct{ id, typ, source, ts string }

func (in eventFlags) event(data, metadata string) (mnemo.Event, error) {
	e := mnemo.Event{ID: in.id, Type: in.typ, Source: in.source}
	if data != "" {
		e.Data = json.RawMessage(data)
	}
	if metadata != "" {
		e.Metadata = json.RawMessage(metadata)
	}
	ts, err := timeFlag("ts", in.ts)
	if ts != nil {
		e.TS = *ts
	}
	return e, err
}

// readEvents reads JSON Lines events in batches of at most
// mnemo.MaxEventBatch. Every line is read before anything is stored: a bad
// line stores nothing.
func (a *app) readEvents(file string) ([][]mnemo.Event, error) {
	var r io.Reader = a.stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, usagef("%v", err)
		}
		defer f.Close()
		r = f
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4*mnemo.MaxEventData)
	var (
		out  [][]mnemo.Event
		cur  []mnemo.Event
		line int
	)
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		if err := mnemo.CheckRequestDepth("the event", sc.Bytes()); err != nil { // API-21
			return nil, mnemo.Errorf(mnemo.EINVALID, "line %d: %s", line, mnemo.ErrorMessage(err))
		}
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var e mnemo.Event
		if err := dec.Decode(&e); err != nil {
			return nil, mnemo.Errorf(mnemo.EINVALID, "line %d: %s", line, strings.TrimPrefix(err.Error(), "json: "))
		}
		if cur = append(cur, e); len(cur) == mnemo.MaxEventBatch {
			out, cur = append(out, cur), nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, mnemo.Errorf(mnemo.EINVALID, "line %d: %v", line+1, err)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	if len(out) == 0 {
		return nil, usagef("no events in %s", file)
	}
	return out, nil
}

func (a *app) eventsQueryCommand() *cobra.Command {
	var (
		w     windowFlags
		limit int
		all   bool
	)
	cmd := &cobra.Command{
		Use:   "query",
		Short: "List events in order (by time, then arrival), recent and archived alike",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q, err := w.query()
			if err != nil {
				return err
			}
			q.Limit = limit
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				for {
					p, err := svc.QueryEvents(cmd.Context(), a.scope(), q)
					if err != nil {
						return err
					}
					if a.asJSON && !all {
						return a.printJSON(p)
					}
					for _, e := range p.Events {
						if a.asJSON {
							b, _ := json.Marshal(e)
							fmt.Fprintf(a.stdout, "%s\n", b)
						} else {
							fmt.Fprintf(a.stdout, "%s  %-20s %-16s %s %s\n", e.TS.Format(time.RFC3339Nano), e.Type, e.Source, e.ID, e.Data)
						}
					}
					if p.Next == "" {
						return nil
					}
					if !all {
						fmt.Fprintf(a.stderr, "more: --cursor %s\n", p.Next)
						return nil
					}
					q.Cursor = p.Next
				}
			})
		},
	}
	f := cmd.Flags()
	w.add(f, true)
	f.IntVar(&limit, "limit", 100, "events per page")
	f.BoolVar(&all, "all", false, "every page (with --json, one event per line)")
	return cmd
}

func (a *app) eventsGetCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "get ID",
		Short: "Print one event",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				e, err := svc.GetEvent(cmd.Context(), a.scope(), args[0])
				if err != nil {
					return err
				}
				return a.printJSON(e)
			})
		},
	}
}

func (a *app) eventsReplayCommand() *cobra.Command {
	var (
		w                     windowFlags
		speed                 float64
		hook, natsURL, prefix string
	)
	cmd := &cobra.Command{
		Use:   "replay [--webhook URL | --nats URL]",
		Short: "Re-publish a window of events in their original order, at --speed (0: at once), to a webhook, NATS or standard output (JSON Lines); Ctrl-C stops",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q, err := w.query()
			if err != nil {
				return err
			}
			if hook != "" && natsURL != "" {
				return usagef("give --webhook or --nats, not both")
			}
			var (
				sink  events.Sink
				flush func(context.Context) error
			)
			switch {
			case hook != "":
				if sink, err = webhook.New(hook, a.cfg.webhookOptions()); err != nil {
					return err
				}
			case natsURL != "":
				nc, err := natsbus.Dial(natsURL, 5*time.Second)
				if err != nil {
					return err
				}
				defer nc.Close()
				ns := natsbus.New(nc, prefix)
				sink, flush = ns, ns.Flush
			default:
				enc := json.NewEncoder(a.stdout)
				enc.SetEscapeHTML(false)
				sink = events.SinkFunc(func(_ context.Context, e mnemo.Event) error { return enc.Encode(e) })
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				res, err := svc.Replay(cmd.Context(), a.scope(), events.ReplayOptions{EventQuery: q, Speed: speed}, sink)
				if err == nil && flush != nil {
					err = flush(context.WithoutCancel(cmd.Context()))
				}
				if err == nil || res.Published > 0 {
					fmt.Fprintf(a.stderr, "replayed %s\n", textutil.Count(res.Published, "event", "events"))
				}
				if err != nil && res.Next != "" {
					fmt.Fprintf(a.stderr, "resume with: --cursor %s\n", res.Next)
				}
				return err
			})
		},
	}
	f := cmd.Flags()
	w.add(f, true)
	f.Float64Var(&speed, "speed", 1, "how many times faster than it happened (1: real speed, 10: ten times, 0: at once)")
	f.StringVar(&hook, "webhook", "", "POST each event to this URL (retried with backoff)")
	f.StringVar(&natsURL, "nats", "", "publish to this NATS server, such as nats://127.0.0.1:4222")
	f.StringVar(&prefix, "subject", natsbus.DefaultPrefix, "NATS subject prefix: events go to PREFIX.tenant.agent.type")
	return cmd
}

func (a *app) eventsExportCommand() *cobra.Command {
	var (
		w           windowFlags
		format, out string
	)
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export a window's events and their relations, every layer, as JSON or CSV (to standard output, or -o FILE)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q, err := w.query()
			if err != nil {
				return err
			}
			if format != events.ExportJSON && format != events.ExportCSV {
				return usagef("--format must be json or csv")
			}
			dst := a.stdout
			var f *os.File
			if out != "" && out != "-" {
				if f, err = os.Create(out); err != nil {
					return usagef("%v", err)
				}
				defer f.Close()
				dst = f
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				bw := bufio.NewWriter(dst)
				n, err := svc.ExportEvents(cmd.Context(), a.scope(), q, format, bw)
				if err == nil {
					err = bw.Flush()
				}
				if err == nil && f != nil {
					err = f.Sync()
				}
				if err != nil {
					return err
				}
				if f != nil {
					fmt.Fprintf(a.stderr, "exported %s and %s to %s\n", textutil.Count(n.Events, "event", "events"), textutil.Count(n.Relations, "relation", "relations"), out)
				}
				return nil
			})
		},
	}
	fl := cmd.Flags()
	w.add(fl, false)
	fl.StringVar(&format, "format", events.ExportJSON, "json or csv")
	fl.StringVarP(&out, "output", "o", "", "write to this file")
	return cmd
}

func (a *app) eventsArchiveCommand() *cobra.Command {
	var olderThan time.Duration
	cmd := &cobra.Command{
		Use:   "archive",
		Short: "Move events older than --older-than (of every agent) into compressed cold segments; reads still see them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				n, err := svc.ArchiveEvents(cmd.Context(), olderThan)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(map[string]int{"archived": n})
				}
				fmt.Fprintf(a.stdout, "archived %s\n", textutil.Count(n, "event", "events"))
				return nil
			})
		},
	}
	cmd.Flags().DurationVar(&olderThan, "older-than", events.DefaultColdAfter, "the age past which events move")
	return cmd
}

func (a *app) eventsGraphCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "The relation graph of events and memories: neighbours, traverse, path, link",
	}
	var q events.GraphQuery
	flags := func(c *cobra.Command, depth bool) *cobra.Command {
		f := c.Flags()
		f.StringVar(&q.Direction, "direction", mnemo.DirBoth, "out, in or both")
		f.StringSliceVar(&q.Types, "type", nil, "only relations of these types")
		if depth {
			f.IntVar(&q.Depth, "depth", 0, "how many hops")
		} else {
			f.IntVar(&q.Limit, "limit", 100, "how many relations")
		}
		return c
	}
	printRels := func(rels []mnemo.Relation) error {
		if a.asJSON {
			return a.printJSON(rels)
		}
		for _, r := range rels {
			fmt.Fprintf(a.stdout, "%s -%s-> %s  %.2f\n", r.Source, r.Type, r.Target, r.Confidence)
		}
		return nil
	}
	neighbours := flags(&cobra.Command{
		Use:   "neighbours NODE",
		Short: "The relations touching an event or a memory",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				rels, err := svc.Neighbours(cmd.Context(), a.scope(), args[0], q)
				if err != nil {
					return err
				}
				return printRels(rels)
			})
		},
	}, false)
	traverse := flags(&cobra.Command{
		Use:   "traverse NODE",
		Short: "Every node within --depth hops, and the relations crossed",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				g, err := svc.Traverse(cmd.Context(), a.scope(), args[0], q)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(g)
				}
				for _, n := range g.Nodes {
					fmt.Fprintf(a.stdout, "%d %s\n", n.Depth, n.ID)
				}
				return printRels(g.Edges)
			})
		},
	}, true)
	path := flags(&cobra.Command{
		Use:   "path FROM TO",
		Short: "A shortest path of relations between two nodes",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				rels, err := svc.ShortestPath(cmd.Context(), a.scope(), args[0], args[1], q)
				if err != nil {
					return err
				}
				return printRels(rels)
			})
		},
	}, true)
	var r mnemo.Relation
	link := &cobra.Command{
		Use:   "link SOURCE TARGET",
		Short: "Relate two events or memories of the agent",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			r.Source, r.Target = args[0], args[1]
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				out, err := svc.Link(cmd.Context(), a.scope(), r)
				if err != nil {
					return err
				}
				return printRels([]mnemo.Relation{out})
			})
		},
	}
	link.Flags().StringVar(&r.Type, "type", mnemo.RelRelated, "the relation's type")
	link.Flags().Float64Var(&r.Confidence, "confidence", 1, "how sure, 0 to 1")
	cmd.AddCommand(neighbours, traverse, path, link)
	return cmd
}
