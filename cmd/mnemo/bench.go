package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/bench/crosslingual"
	"github.com/mnemo-dev/mnemo/bench/locomo"
	"github.com/mnemo-dev/mnemo/bench/scale"
	mhttp "github.com/mnemo-dev/mnemo/http"
	"github.com/mnemo-dev/mnemo/postgres"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/service"
	"github.com/mnemo-dev/mnemo/sqlite"
	"github.com/schollz/progressbar/v3"
)

func (a *app) benchCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run a benchmark",
	}
	var profile, conversations, features, cpuProfile string
	var asChat, namesInText, inShorthand bool
	var perRequest int
	loc := &cobra.Command{
		Use:   "locomo <locomo.json>",
		Short: "Recall quality on LoCoMo: hit@k and recall@k of the evidence turns, and recall latency",
		Long: "Starts a server on a fresh temporary store, feeds each conversation through POST /v1/messages\n" +
			"(one agent per conversation, one session per LoCoMo session, key /turn/<dia_id>), asks every\n" +
			"question of categories 1-4 through POST /v1/surface with now = the last session's time, and\n" +
			"prints hit@5/10/20 and recall@5/10/20 of the evidence turns and the latency of each call, with\n" +
			"the median of each recall stage (its trace) over all the questions and over the slowest 5 %; then\n" +
			"how well the answers' match (strong, weak, none) tells those questions from the adversarial ones\n" +
			"(category 5: asked of the wrong person), as the AUROC of match_score; then hit@10 and recall@10 of\n" +
			"each category and the AUROC for each conversation on its own. sess@10 is the share of questions\n" +
			"with an evidence turn's session among the sessions of the top 10.\n" +
			"--as-chat feeds each turn as people type in a chat app, a message a sentence (and the photo's\n" +
			"caption one of its own); a result counts for the turn its message came from, and the row\n" +
			"\"answer msgs\" counts the messages of the evidence turns that hold a word of the answer, each\n" +
			"on its own. --per-request n\n" +
			"sends n turns a request rather than a session in one, as an agent that writes each turn does.\n" +
			"--names-in-text writes each speaker's name into the turn's text (\"Caroline: …\") and sends no\n" +
			"name, as harnesses that know only roles do. --shorthand types each turn's words as people type\n" +
			"them in a chat (\"tmrw\", \"u\", \"gonna\"); the questions stay written out.\n" +
			"The file is LoCoMo's data/locomo10.json (github.com/snap-research/locomo) or a part of it;\n" +
			"--conversations dev is the project's dev split (conv-26, conv-30, conv-41, conv-44, conv-48).\n" +
			"The store is --store sqlite (a temporary file) or postgres (a temporary schema of\n" +
			"store.postgres.dsn, else of $MNEMO_TEST_PGVECTOR_DSN or $MNEMO_TEST_PG_DSN, dropped after).",
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
			if conversations == "dev" {
				conversations = strings.Join(locomo.DevSplit, ",")
			}
			if convs, err = locomo.Select(convs, conversations); err != nil {
				return usagef("--conversations: %v", err)
			}
			if inShorthand {
				convs = locomo.InShorthand(convs)
			}
			if asChat {
				convs = locomo.AsChat(convs)
			}
			if profile != "" {
				if _, ok := rank.Profiles()[profile]; !ok {
					return usagef("unknown profile %q", profile)
				}
			}
			storeName := a.cfg.Store.Backend
			switch storeName {
			case BackendSQLite, BackendPostgres:
			default:
				return usagef("--store: the benchmark runs on sqlite or postgres, got %q", storeName)
			}
			if perRequest < 0 {
				return usagef("--per-request: want a count of turns, or 0 for a session a request, got %d", perRequest)
			}
			o := locomo.Options{PerRequest: perRequest, NamesInText: namesInText}
			if features != "" {
				f, err := os.Create(features)
				if err != nil {
					return usagef("--match-features: %v", err)
				}
				defer f.Close()
				o.Features = f
			}
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return usagef("--cpuprofile: %v", err)
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				defer pprof.StopCPUProfile()
			}
			rep, err := runLocomo(cmd.Context(), convs, profile, storeName, string(a.cfg.Store.Postgres.DSN), &a.cfg, o)
			if err != nil {
				return err
			}
			if a.asJSON {
				return a.printJSON(map[string]any{"report": rep, "p50_ms": ms(rep.P50), "p95_ms": ms(rep.P95), "ingest_ms": ms(rep.IngestTime), "cpu_ms_per_question": ms(rep.QuestionCPU)})
			}
			rep.WriteText(a.stdout, true)
			return nil
		},
	}
	loc.Flags().IntVar(&perRequest, "per-request", 0, "turns a request (default: a session in one)")
	loc.Flags().BoolVar(&asChat, "as-chat", false, "feed each turn as chat messages, one a sentence")
	loc.Flags().BoolVar(&namesInText, "names-in-text", false, `write each speaker's name into the text ("Caroline: …") and send no name`)
	loc.Flags().BoolVar(&inShorthand, "shorthand", false, `type each turn's words in chat shorthand ("tmrw", "u", "gonna")`)
	loc.Flags().StringVar(&conversations, "conversations", "", "which conversations: sample ids and zero-based positions or ranges (conv-26,0-2), or dev (default: all)")
	// --store postgres benchmarks a temporary schema of store.postgres.dsn
	// ($MNEMO_POSTGRES_DSN), or of the test servers scripts/pgservers.sh
	// starts when that is unset: $MNEMO_TEST_PGVECTOR_DSN, else
	// $MNEMO_TEST_PG_DSN.
	loc.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		getenv := a.getenv
		defer func() { a.getenv = getenv }()
		a.getenv = func(k string) string {
			v := getenv(k)
			if k == "MNEMO_POSTGRES_DSN" && v == "" {
				v = cmp.Or(getenv("MNEMO_TEST_PGVECTOR_DSN"), getenv("MNEMO_TEST_PG_DSN"))
			}
			return v
		}
		return cmd.Root().PersistentPreRunE(cmd, args)
	}
	loc.Flags().StringVar(&profile, "profile", "", "ranking profile: hybrid (default), seed001, seed003, lexical or semantic")
	loc.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write the run's CPU profile to this file (the questions are under http.(*Server).search)")
	loc.Flags().StringVar(&features, "match-features", "", "write each question's match and its results' match features to this file (JSON lines), to calibrate the match model")
	sc := a.benchScaleCommand()
	sc.PersistentPreRunE = loc.PersistentPreRunE // the same DSN fallback
	cmd.AddCommand(loc, sc, a.benchCrossLingualCommand(), a.benchMatchFitCommand())
	return cmd
}

func (a *app) benchMatchFitCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "matchfit <features.jsonl>",
		Short: "Fit the match model (API-17) to `bench locomo --match-features`, one conversation held out at a time",
		Long: "Reads the match features `bench locomo --match-features` wrote and, for each conversation in\n" +
			"turn, fits the match model's Answers weights on the others and prints the AUROC of match_score on\n" +
			"the one held out (categories 1-4 against 5), beside that of the shipped model; then the weights\n" +
			"fitted on every conversation, to put in rank.DefaultMatch.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			lines, err := locomo.ReadFeatures(f)
			f.Close()
			if err != nil {
				return usagef("%s: %v", args[0], err)
			}
			m := rank.DefaultMatch()
			w := a.stdout
			fmt.Fprintf(w, "%-10s %9s %9s\n", "held out", "shipped", "fitted")
			for _, fo := range locomo.CrossValidate(lines, m) {
				fmt.Fprintf(w, "%-10s %9.3f %9.3f\n", fo.Sample, fo.Before, fo.After)
			}
			fit := locomo.FitMatch(lines, m)
			fmt.Fprintf(w, "%-10s %9.3f %9.3f  (fitted on all: not a measure)\n", "all", locomo.MatchAUROC(lines, m), locomo.MatchAUROC(lines, fit))
			b, err := json.Marshal(fit)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "fitted on all: %s\n", b)
			return nil
		},
	}
}

func (a *app) benchCrossLingualCommand() *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "crosslingual",
		Short: "Recall across Chinese and English: hit@5 per kind of question (EMB-7)",
		Long: "Stores the everyday memories of bench/crosslingual (three agents, Chinese and English, with\n" +
			"distractors that share a question's words) in a temporary store with the configured embedder,\n" +
			"asks its questions and prints hit@5 per kind: Chinese questions that repeat the memory's words,\n" +
			"Chinese paraphrases that share no two characters with it, Chinese questions of English memories\n" +
			"and English questions of Chinese ones. -v lists every question with its memory's rank.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			dir, err := os.MkdirTemp("", "mnemo-crosslingual-*")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			db, err := sqlite.Open(ctx, filepath.Join(dir, "mnemo.db"), sqlite.Options{Synchronous: "NORMAL"})
			if err != nil {
				return err
			}
			doc, query, _, err := a.cfg.embedders(nil)
			if err != nil {
				db.Close()
				return err
			}
			svc := service.New(db, service.Options{Embedder: doc, QueryEmbedder: query})
			defer svc.Close()
			r, err := crosslingual.Run(ctx, svc, "bench")
			if err != nil {
				return err
			}
			return r.Print(cmd.OutOrStdout(), verbose)
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list every question, its memory's rank and the first results")
	return cmd
}

func (a *app) benchScaleCommand() *cobra.Command {
	var cfg scale.Config
	cmd := &cobra.Command{
		Use:   "scale",
		Short: "Latency, index build, reopen and memory at N memories in one agent",
		Long: "Generates N memories in one agent (English sentences from the built-in embedder's vocabulary)\n" +
			"under --dir, kept for later runs: with the built-in embedder, a bulk load acknowledged before\n" +
			"the vectors (its rate, the first recall right after it, the background embedding's rate). Then\n" +
			"bulk loads through HTTP as a user posts them (--bulk memories, 500 a batch, the Write Guard on,\n" +
			"into a scratch store beside it), sync and async, in memories/s and per CPU-second. Then\n" +
			"measures: ANN index build and save, reopen (open, load the index, first recall), hybrid recall\n" +
			"p50/p95 with the median of each stage (analyse, lexical, query embedding, vector, fusion, MMR,\n" +
			"access record), recall quiet and beside a writer, ANN recall@10 against exact search, the peak RSS\n" +
			"of each stage (bulk load, ANN build, serving; Linux) and of the whole run.\n" +
			"With --store postgres the generated store is copied (vectors and ids kept, indexes built after\n" +
			"the load) into a temporary schema of store.postgres.dsn, else $MNEMO_TEST_PGVECTOR_DSN or\n" +
			"$MNEMO_TEST_PG_DSN, dropped after, and recall and ANN recall@10 are measured there.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.N < 1 {
				return usagef("--n must be at least 1")
			}
			if cfg.Dir == "" {
				cfg.Dir = filepath.Join(os.TempDir(), "mnemo-scale")
			}
			cfg.Log = a.stderr
			switch a.cfg.Store.Backend {
			case BackendSQLite:
			case BackendPostgres:
				// The generated SQLite store, copied into a temporary
				// schema (PG-1).
				cfg.Postgres = string(a.cfg.Store.Postgres.DSN)
				if cfg.Postgres == "" {
					return usagef("--store postgres: set store.postgres.dsn ($MNEMO_POSTGRES_DSN)")
				}
			default:
				return usagef("--store: the benchmark runs on sqlite or postgres, got %q", a.cfg.Store.Backend)
			}
			var (
				bar   *progressbar.ProgressBar
				stage string
			)
			cfg.Progress = func(st string, done, total int) {
				if st != stage {
					if bar != nil {
						bar.Finish()
					}
					stage, bar = st, a.bar(int64(total), st)
				}
				if bar != nil {
					bar.Set(done)
				}
			}
			defer func() {
				if bar != nil {
					bar.Finish()
				}
			}()
			rep, err := scale.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			if a.asJSON {
				return a.printJSON(rep)
			}
			rep.WriteText(a.stdout)
			return nil
		},
	}
	cmd.Flags().IntVar(&cfg.N, "n", 100_000, "memories in the store")
	cmd.Flags().StringVar(&cfg.Dir, "dir", "", "where the generated store is kept (default: $TMPDIR/mnemo-scale)")
	cmd.Flags().IntVar(&cfg.Queries, "queries", 500, "recall queries timed")
	cmd.Flags().BoolVar(&cfg.ReuseIndex, "reuse-index", false, "load the ANN index an earlier run saved instead of building it again")
	cmd.Flags().IntVar(&cfg.SearchEffort, "ef", 0, "ANN search effort (efSearch); 0 is the store's default, by the index's size (512 up to 200k vectors, 1024 from 800k)")
	cmd.Flags().StringVar(&cfg.Embedder, "embedder", scale.EmbedderBuiltin, "builtin (the default configuration: GloVe + USE-Lite, 612 d, loaded with async embedding) or glove (100 d, embedded on write)")
	cmd.Flags().IntVar(&cfg.Bulk, "bulk", 10_000, "memories posted through HTTP (POST /v1/memories/batch, 500 a request, the Write Guard on) into a scratch SQLite store beside the generated one, embedded before each answer and then with async_embedding; -1: not measured (nor with --store postgres)")
	cmd.Flags().IntVar(&cfg.WriteBatch, "write-batch", 500, "memories a writer posts every second while recall is timed again beside it; -1: not measured")
	return cmd
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// runLocomo evaluates a fresh store served over loopback HTTP: an embedded
// one in a temporary file, or PostgreSQL in a temporary schema of dsn (REC-10, PG-6).
func runLocomo(ctx context.Context, convs []locomo.Conversation, profile, storeName, dsn string, cfg *Config, o locomo.Options) (locomo.Report, error) {
	reps, err := runLocomoProfiles(ctx, convs, []string{profile}, storeName, dsn, cfg, o)
	if err != nil {
		return locomo.Report{}, err
	}
	return reps[0], nil
}

// stored is a locomo.System over conversations already stored: it asks,
// and adds nothing.
type stored struct{ *locomo.HTTPSystem }

func (stored) AddSession(context.Context, string, string, time.Time, []locomo.Turn) error { return nil }

// runLocomoProfiles is runLocomo asking the questions once with each of
// profiles, of one store fed once (asking, by surface, stores nothing).
// The first profile asks each conversation's questions right after it is
// fed, as runLocomo does; a later one asks of the store holding every
// conversation, with its indexes caught up, so its figures may differ a
// little from its own runLocomo's.
func runLocomoProfiles(ctx context.Context, convs []locomo.Conversation, profiles []string, storeName, dsn string, cfg *Config, o locomo.Options) ([]locomo.Report, error) {
	var db mnemo.Store
	switch storeName {
	case "postgres":
		var b [6]byte
		rand.Read(b[:])
		schema := "mnemo_locomo_" + hex.EncodeToString(b[:])
		// One connection: PGlite serves one session, and the benchmark
		// asks one question at a time anyway.
		pg, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, MaxConns: 1})
		if err != nil {
			return nil, err
		}
		defer func() { // after the service has closed the store
			ctx := context.WithoutCancel(ctx)
			conn, err := pgx.Connect(ctx, dsn)
			if err == nil {
				_, err = conn.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`)
				conn.Close(ctx)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "mnemo bench: dropping schema %s: %v\n", schema, err)
			}
		}()
		db = pg
	default:
		dir, err := os.MkdirTemp("", "mnemo-locomo-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if db, err = sqlite.Open(ctx, filepath.Join(dir, "mnemo.db"), sqlite.Options{Synchronous: "NORMAL"}); err != nil {
			return nil, err
		}
	}
	doc, query, _, err := cfg.embedders(nil)
	if err != nil {
		db.Close()
		return nil, err
	}
	// Vectors are made on write, so that every turn is searchable by
	// meaning when the questions come, whatever the provider.
	svc := service.New(db, service.Options{Embedder: doc, QueryEmbedder: query})
	defer svc.Close()
	o.Settle = svc.WaitEmbedded
	// No request timeout: the benchmark's own server does bounded work,
	// which on a loaded machine may take any time (QUAL-3).
	srv := mhttp.NewServer(svc, mhttp.Options{Timeout: -1})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	reps := make([]locomo.Report, len(profiles))
	for i, profile := range profiles {
		var sys locomo.System = &locomo.HTTPSystem{BaseURL: fmt.Sprintf("http://%s", ln.Addr()), Profile: profile, PerRequest: o.PerRequest, NamesInText: o.NamesInText}
		if i > 0 {
			sys = stored{sys.(*locomo.HTTPSystem)}
		}
		if reps[i], err = locomo.RunWith(ctx, convs, sys, o); err != nil {
			return nil, err
		}
	}
	return reps, nil
}
