package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// recallPathCommand is recall_path (MEM-9): the memories under a key
// prefix, in key order, and with --traverse-hops what links lead to.
func (a *app) recallPathCommand() *cobra.Command {
	var limit, hops int
	cmd := &cobra.Command{
		Use:   "recall-path <prefix>",
		Short: "List the memories under a key prefix, in key order, and what they link to (--traverse-hops)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				res, err := svc.RecallPathLinked(cmd.Context(), a.scope(), args[0], limit, hops)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(res)
				}
				a.printMemories(res.Memories)
				printLinked(a.stdout, res.Linked)
				fmt.Fprintf(a.stderr, "%d of %d under %s, %d linked\n", len(res.Memories), res.Total, res.Prefix, len(res.Linked))
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.IntVarP(&limit, "limit", "n", 50, "how many memories and linked nodes in all")
	f.IntVar(&hops, "traverse-hops", 0, fmt.Sprintf("follow links from the memories found, up to this many (0 to %d)", memory.MaxTraverseHops))
	return cmd
}

// printLinked prints what links led to, one a line: the memory or event,
// then why it is there.
func printLinked(w io.Writer, ls []memory.Linked) {
	if len(ls) == 0 {
		return
	}
	fmt.Fprintln(w, "linked:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i := range ls {
		l := &ls[i]
		if m := l.Memory; m != nil {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", m.ID, m.Key, label(m), l.Reason)
		} else if e := l.Event; e != nil {
			fmt.Fprintf(tw, "  %s\tevent %s\t%s\t%s\n", e.ID, e.Type, e.TS.Format(time.RFC3339), l.Reason)
		}
	}
	tw.Flush()
}
