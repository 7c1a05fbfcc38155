package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/importers"
	"github.com/mnemo-dev/mnemo/internal/textutil"
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
		// A path that is not there or not readable, or a directory
		// without the format's files: the user's to fix.
		var me *mnemo.Error
		if errors.As(err, &me) {
			return usagef("%s", me.Message)
		}
		return usagef("%v", err)
	}
	what := textutil.Count(len(h.Conversations), "conversation", "conversations") + ", " + textutil.Count(h.Messages(), "message", "messages")
	if f == importers.MCPMemory {
		what = textutil.Count(len(h.Entities), "entity", "entities") + ", " + textutil.Count(len(h.Relations), "relation", "relations")
	}
	fmt.Fprintf(a.stderr, "read %s from %s\n", what, textutil.Count(files, "file", "files"))
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
		var pe *importers.PartialError
		if errors.As(err, &pe) {
			// Said whole: what it stopped at, why, and what it stored (IMP-3).
			return mnemo.Errorf(mnemo.ErrorCode(pe.Err), "%s", pe.Error())
		}
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
	var parts []string
	if r.Messages > 0 || r.Memories == 0 {
		parts = append(parts, textutil.Count(r.Messages, "message", "messages")+" in "+textutil.Count(r.Conversations, "conversation", "conversations"))
	}
	if r.Memories > 0 || r.Links > 0 {
		parts = append(parts, textutil.Count(r.Memories, "memory", "memories")+" of "+textutil.Count(r.Entities, "entity", "entities")+", "+textutil.Count(r.Links, "link", "links"))
	}
	fmt.Fprintf(w, "imported %s; %d already imported\n", strings.Join(parts, ", "), r.Skipped)
}
