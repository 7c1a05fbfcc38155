package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/files"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/security"
	"github.com/mnemo-dev/mnemo/service"
)

// bar returns a progress bar on standard error when it is a terminal, and
// nil otherwise (pipes and tests get no bar).
func (a *app) bar(total int64, what string) *progressbar.ProgressBar {
	f, ok := a.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(f),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100_000_000),
	)
}

func (a *app) importCommand() *cobra.Command {
	var (
		keepScope bool
		from      string
	)
	cmd := &cobra.Command{
		Use:   "import <file.jsonl | -> | import --from FORMAT <file | dir | ->",
		Short: "Import memories from JSON Lines written by export, or history from another tool (--from)",
		Long: "Import memories from JSON Lines written by export. Every line is checked before anything is\n" +
			"stored, so a bad line stores nothing. Records go to --tenant/--agent unless --keep-scope.\n\n" +
			"With --from, import another tool's history (docs/IMPORT.md): chatgpt or claude (an export's\n" +
			"conversations.json), claude-code (~/.claude/projects), codex (~/.codex/sessions), mcp-memory\n" +
			"(the MCP memory server's memory.json). A directory is walked for that format's files. Importing\n" +
			"again stores only what is new.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from != "" {
				if keepScope {
					return usagef("--keep-scope is for JSON Lines written by export, not --from")
				}
				return a.importHistory(cmd, from, args[0])
			}
			var r io.Reader = a.stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return usagef("%v", err)
				}
				defer f.Close()
				r = f
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				opts := memory.ImportOptions{}
				if !keepScope {
					sc := a.scope()
					opts.Scope = &sc
				}
				if bar := a.bar(-1, "importing"); bar != nil {
					defer bar.Finish()
					opts.Progress = func(done int) { bar.Set(done) }
				}
				newIDs := map[string]string{}
				var order []string
				opts.OnNewID = func(old, new string) {
					newIDs[old] = new
					order = append(order, old)
				}
				n, err := svc.Import(cmd.Context(), r, opts)
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(map[string]any{"imported": n.Imported, "updated": n.Updated, "skipped": n.Skipped, "ids": newIDs})
				}
				fmt.Fprintf(a.stdout, "imported %d, updated %d, skipped %d\n", n.Imported, n.Updated, n.Skipped)
				if len(order) > 0 {
					fmt.Fprintf(a.stdout, "%s taken elsewhere in the store, stored under new ones (old new):\n", textutil.Count(len(order), "id", "ids"))
					for _, old := range order {
						fmt.Fprintf(a.stdout, "%s %s\n", old, newIDs[old])
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&keepScope, "keep-scope", false, "keep each record's own tenant_id and agent_id")
	cmd.Flags().StringVar(&from, "from", "", "import history of chatgpt, claude, claude-code, codex or mcp-memory")
	return cmd
}

func (a *app) exportCommand() *cobra.Command {
	var out, format string
	cmd := &cobra.Command{
		Use:   "export [--format tree DIR]",
		Short: "Export the agent's memories as JSON Lines (to standard output, or -o FILE), or as a directory to read with bash",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "jsonl":
				if len(args) > 0 {
					return usagef("export writes JSON Lines to standard output or -o FILE; give a directory with --format tree")
				}
			case "tree":
				if len(args) != 1 {
					return usagef("export --format tree needs a directory")
				}
				return a.exportTree(cmd, args[0])
			default:
				return usagef("--format must be jsonl or tree")
			}
			var w io.Writer = a.stdout
			var f *os.File
			if out != "" && out != "-" {
				var err error
				if f, err = os.Create(out); err != nil {
					return usagef("%v", err)
				}
				defer f.Close()
				w = f
			}
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				var progress func(done, total int)
				var bar = a.bar(0, "exporting")
				if bar != nil {
					defer bar.Finish()
					progress = func(done, total int) {
						bar.ChangeMax(total)
						bar.Set(done)
					}
				}
				n, err := svc.Export(cmd.Context(), a.scope(), w, progress)
				if err != nil {
					return err
				}
				if f != nil {
					if err := f.Sync(); err != nil {
						return err
					}
					fmt.Fprintf(a.stderr, "exported %d to %s\n", n, out)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	cmd.Flags().StringVar(&format, "format", "jsonl", "jsonl, or tree: log.jsonl, index/ and state.jsonl in a directory (seed 004's layout)")
	return cmd
}

// exportTree writes the agent's active memories as a memory root in dir.
func (a *app) exportTree(cmd *cobra.Command, dir string) error {
	if security.ClearanceFrom(cmd.Context()).Masks() {
		return mnemo.Errorf(mnemo.EFORBIDDEN, "an export is whole, and --mask reads confidential and restricted memories masked: export without it")
	}
	return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
		var ms []mnemo.Memory
		for off := 0; ; off += mnemo.MaxListLimit {
			page, _, err := svc.List(cmd.Context(), a.scope(), mnemo.ListQuery{Filter: mnemo.Filter{IncludeExpired: true},
				Order: mnemo.OrderOldest, Limit: mnemo.MaxListLimit, Offset: off, NoVectors: true, NoTotal: true})
			if err != nil {
				return err
			}
			ms = append(ms, page...)
			if len(page) < mnemo.MaxListLimit {
				break
			}
		}
		n, err := files.ExportTree(dir, ms)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "exported %s to %s (log.jsonl, index/, state.jsonl)\n", textutil.Count(n, "memory", "memories"), dir)
		return nil
	})
}
