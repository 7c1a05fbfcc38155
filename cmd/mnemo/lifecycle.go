package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/service"
)

// The commands of the memory lifecycle: reflect, prune, reset, restore and
// the ledger.

func (a *app) reflectCommand() *cobra.Command {
	var o lifecycle.ReflectOptions
	var now string
	cmd := &cobra.Command{
		Use:   "reflect",
		Short: "Run the sleep cycle: decay, tidy, govern, retention, capacity, purge; print what changed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.Now, err = parseNow(now); err != nil {
				return err
			}
			o.Actor = "cli"
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				rep, err := svc.Reflect(cmd.Context(), a.scope(), o)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(rep)
				}
				fmt.Fprint(a.stdout, rep.Text)
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.DryRun, "dry-run", false, "show the plan and change nothing")
	f.StringSliceVar(&o.Phases, "phase", nil, "run only these phases: decay, tidy, govern, retention, capacity, purge")
	f.StringVar(&now, "now", "", "judge ages at this time (RFC 3339, a date or words)")
	return cmd
}

func (a *app) pruneCommand() *cobra.Command {
	var (
		q      lifecycle.PruneQuery
		before string
	)
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Archive the memories matching --before, --tag, --type or --security (restorable, erased after the grace period)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if q.Before, err = timeFlag("before", before); err != nil {
				return err
			}
			q.Actor = "cli"
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				res, err := svc.Prune(cmd.Context(), a.scope(), q)
				if err != nil {
					return err
				}
				return a.printArchive(res, "pruned")
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&before, "before", "", "memories created before this time (RFC 3339, a date or words)")
	f.StringSliceVar(&q.Tags, "tag", nil, "memories with any of these tags")
	f.StringSliceVar(&q.Types, "type", nil, "memories of these types")
	f.StringSliceVar(&q.SecurityLevels, "security", nil, "memories of these security levels")
	f.BoolVar(&q.DryRun, "dry-run", false, "list what would be archived and change nothing")
	return cmd
}

func (a *app) printArchive(res lifecycle.ArchiveResult, verb string) error {
	if a.asJSON {
		return a.printJSON(res)
	}
	if res.DryRun {
		fmt.Fprintf(a.stdout, "would archive %s (dry run)\n", textutil.Count(len(res.Archived), "memory", "memories"))
		for _, id := range res.Archived {
			fmt.Fprintln(a.stdout, " ", id)
		}
		return nil
	}
	if len(res.Archived) == 0 {
		// No ledger entry was written: there is nothing to restore.
		fmt.Fprintf(a.stdout, "%s 0 memories: nothing matched\n", verb)
		return nil
	}
	fmt.Fprintf(a.stdout, "%s %s; undo with: mnemo restore %d\n", verb, textutil.Count(len(res.Archived), "memory", "memories"), res.LedgerSeq)
	return nil
}

func (a *app) resetCommand() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "reset",
		Short: "Archive every memory of the agent: it starts from nothing (restorable within the grace period)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !yes {
				f, ok := a.stdin.(*os.File)
				if !ok || !term.IsTerminal(int(f.Fd())) {
					return usagef("reset archives every memory of agent %q: confirm with --yes", a.cfg.Agent)
				}
				fmt.Fprintf(a.stderr, "Archive every memory of agent %q? Type the agent's name to confirm: ", a.cfg.Agent)
				line, _ := bufio.NewReader(f).ReadString('\n')
				if strings.TrimSpace(line) != a.cfg.Agent {
					return usagef("not confirmed: nothing changed")
				}
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				res, err := svc.Reset(cmd.Context(), a.scope(), "cli")
				if err != nil {
					return err
				}
				return a.printArchive(res, "reset: archived")
			})
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm without asking")
	return cmd
}

func (a *app) restoreCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "restore <ledger-seq> | <backup-dir>",
		Short: "Restore the memories a ledger entry archived, or a whole store from a backup",
		Long: `mnemo restore <ledger-seq> restores the memories a ledger entry archived
(prune, reset, soft forget, retention).

mnemo restore <backup-dir> restores a backup that mnemo backup wrote into the
data directory (or the files store's root), which must be empty: every file's
checksum and the database's integrity are checked before anything is put in
place, and a damaged backup is refused whole. A backup directory named only
with digits is given as ./NAME.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !isLedgerSeq(args[0]) {
				return a.restoreBackup(cmd.Context(), args[0])
			}
			var seq int64
			if _, err := fmt.Sscan(args[0], &seq); err != nil || seq <= 0 {
				return usagef("ledger-seq must be a positive number, as mnemo ledger shows")
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				ids, err := svc.Restore(cmd.Context(), a.scope(), seq, "cli")
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(ids)
				}
				fmt.Fprintf(a.stdout, "restored %s\n", textutil.Count(len(ids), "memory", "memories"))
				return nil
			})
		},
	}
}

func (a *app) ledgerCommand() *cobra.Command {
	var q mnemo.LedgerQuery
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "List the agent's lifecycle events, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				es, total, err := svc.Ledger(cmd.Context(), a.scope(), q)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(es)
				}
				for _, e := range es {
					fmt.Fprintf(a.stdout, "%d  %s  %-9s %-6s %12s  %s\n", e.Seq, e.At.Format(time.RFC3339), e.Action, e.Actor, textutil.Count(len(e.MemoryIDs), "memory", "memories"), e.Reason)
				}
				if total > len(es) {
					fmt.Fprintf(a.stdout, "(%d more: --offset %d)\n", total-len(es)-q.Offset, q.Offset+len(es))
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&q.Action, "action", "", "only this action: archive, retention, prune, reset, restore, delete, forget, clear, decay")
	f.StringVar(&q.MemoryID, "memory", "", "only entries naming this memory id")
	f.IntVarP(&q.Limit, "limit", "n", 50, "how many entries")
	f.IntVar(&q.Offset, "offset", 0, "entries to skip")
	return cmd
}

func (a *app) ingestCommand() *cobra.Command {
	var req lifecycle.IngestRequest
	cmd := &cobra.Command{
		Use:   "ingest <file.md|->",
		Short: "Extract identity, emotion, knowledge and event memories from markdown and store them",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var data []byte
			var err error
			if args[0] == "-" {
				data, err = io.ReadAll(io.LimitReader(a.stdin, 2<<20))
			} else {
				data, err = os.ReadFile(args[0])
				if req.Source == "" {
					req.Source = args[0]
				}
			}
			if err != nil {
				return usagef("ingest: %v", err)
			}
			req.Text = string(data)
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				res, err := svc.Ingest(cmd.Context(), a.scope(), req)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(res)
				}
				for _, it := range res.Items {
					fmt.Fprintf(a.stdout, "%-11s %-9s P%d %s  %s\n", it.Action, it.Type, it.Priority, it.Key, oneLine(it.Content))
				}
				fmt.Fprintf(a.stdout, "extracted %d, written %d, skipped %d\n", res.Extracted, res.Written, res.Skipped)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&req.Source, "source", "", "where the text came from (default: the file's path)")
	cmd.Flags().BoolVar(&req.DryRun, "dry-run", false, "show what would be extracted and write nothing")
	return cmd
}
