package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/bench/locomo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/sqlite"
)

func (a *app) benchCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run a benchmark",
	}
	var profile string
	loc := &cobra.Command{
		Use:   "locomo <locomo.json>",
		Short: "Recall quality on LoCoMo: hit@k and recall@k of the evidence turns, and recall latency",
		Long: "Starts a server on a fresh temporary store, feeds each conversation through POST /v1/messages\n" +
			"(one agent per conversation, one session per LoCoMo session, key /turn/<dia_id>), asks every\n" +
			"question of categories 1-4 through POST /v1/surface with now = the last session's time, and\n" +
			"prints hit@5/10/20 and recall@5/10/20 of the evidence turns and the latency of each call.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			convs, err := locomo.Load(f)
			f.Close()
			if err != nil {
				return usagef("%v", err)
			}
			if profile != "" {
				if _, ok := rank.Profiles()[profile]; !ok {
					return usagef("unknown profile %q", profile)
				}
			}
			rep, err := runLocomo(cmd.Context(), convs, profile)
			if err != nil {
				return err
			}
			if a.asJSON {
				return a.printJSON(map[string]any{"report": rep, "p50_ms": ms(rep.P50), "p95_ms": ms(rep.P95), "ingest_ms": ms(rep.IngestTime)})
			}
			rep.WriteText(a.stdout, true)
			return nil
		},
	}
	loc.Flags().StringVar(&profile, "profile", "", "ranking profile (default: the server's, seed001)")
	cmd.AddCommand(loc)
	return cmd
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// runLocomo evaluates a fresh embedded store served over loopback HTTP.
func runLocomo(ctx context.Context, convs []locomo.Conversation, profile string) (locomo.Report, error) {
	dir, err := os.MkdirTemp("", "mnemo-locomo-*")
	if err != nil {
		return locomo.Report{}, err
	}
	defer os.RemoveAll(dir)
	db, err := sqlite.Open(ctx, filepath.Join(dir, "mnemo.db"), sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		return locomo.Report{}, err
	}
	defer db.Close()
	srv := mhttp.NewServer(mnemo.New(db, mnemo.Options{}), mhttp.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return locomo.Report{}, err
	}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	sys := &locomo.HTTPSystem{BaseURL: fmt.Sprintf("http://%s", ln.Addr()), Profile: profile}
	return locomo.Run(ctx, convs, sys)
}
