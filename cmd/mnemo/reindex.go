package main

import (
	"fmt"

	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/spf13/cobra"
)

func (a *app) reindexCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Re-embed every memory with the configured embedder",
		Long: "Re-embed every memory of every agent with the configured embedder (embedding.provider), after\n" +
			"a change of model or dimension, or to make every vector again with the same one. Every stored\n" +
			"vector is dropped first; memories stay findable\n" +
			"by the lexical index meanwhile, and an interrupted reindex carries on where it stopped the\n" +
			"next time the store is opened.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withService(cmd.Context(), func(svc *service.Mnemo) error {
				bar := a.bar(-1, "embedding")
				n := 0
				err := svc.Reindex(cmd.Context(), func(done, total int) {
					n = done
					if bar != nil {
						bar.ChangeMax(total)
						bar.Set(done)
					}
				})
				if bar != nil {
					bar.Finish()
				}
				if err != nil {
					return err
				}
				if a.asJSON {
					return a.printJSON(map[string]int{"embedded": n})
				}
				fmt.Fprintf(a.stdout, "re-embedded %s\n", textutil.Count(n, "memory", "memories"))
				return nil
			})
		},
	}
}
