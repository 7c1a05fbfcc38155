package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/importers"
	"github.com/mnemo-dev/mnemo/service"
)

// importHistory is `mnemo import --from FORMAT FILE|DIR|-` (IMP-1): another
// tool's history, read whole and checked before anything is stored
// (IMP-3), then stored with a line of progress on standard error at most
// every second.
func (a *app) importHistory(cmd *cobra.Command, from, path string) error {
	f, err := importers.ParseFormat(from)
	if err != nil {
		return usagef("%s", mnemo.ErrorMessage(err))
	}
	var (
		h     *importers.History
		files = 1
	)
	if path == "-" {
		h, err = importers.Read(f, "stdin", a.stdin)
	} else {
		h, files, err = importers.ReadPath(f, path)
	}
	var se *importers.SyntaxError
	switch {
	case errors.As(err, &se):
		return usagef("%v; nothing imported", se)
	case err != nil:
		return usagef("%s", mnemo.ErrorMessage(err))
	}
	if f == importers.MCPMemory {
		fmt.Fprintf(a.stderr, "read %d entities and %d relations from %d file(s)\n", len(h.Entities), len(h.Relations), files)
	} else {
		fmt.Fprintf(a.stderr, "read %d conversations, %d messages from %d file(s)\n", len(h.Conversations), h.Messages(), files)
	}
	return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
		last := time.Now()
		res, err := importers.Import(cmd.Context(), svc, a.scope(), f, h, importers.Options{
			Limits: svc.Limits(),
			Progress: func(p importers.Progress) {
				if p.Done < p.Total && time.Since(last) < time.Second {
					return
				}
				last = time.Now()
				fmt.Fprintf(a.stderr, "%d/%d: %d messages, %d memories stored, %d skipped\n", p.Done, p.Total, p.Messages, p.Memories, p.Skipped)
			},
		})
		if err != nil {
			return err
		}
		if a.asJSON {
			return a.printJSON(res)
		}
		printImportResult(a.stdout, res)
		return nil
	})
}

func printImportResult(w io.Writer, r importers.Result) {
	fmt.Fprintf(w, "imported %d messages in %d conversations, %d memories of %d entities, %d links; skipped %d already imported\n",
		r.Messages, r.Conversations, r.Memories, r.Entities, r.Links, r.Skipped)
}
