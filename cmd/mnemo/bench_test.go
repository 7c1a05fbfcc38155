package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/bench/locomo"
)

// locomoPath finds the LoCoMo data: $MNEMO_LOCOMO (locomo10.json or the
// dev split made from it), or shared/eval beside the repository (where the
// workplace and CI put the dev split).
func locomoPath() string {
	if p := os.Getenv("MNEMO_LOCOMO"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "..", "shared", "eval", "locomo-dev.json")
}

// TestLocomoQuality guards recall quality end to end (HTTP, analysis,
// SQLite FTS5, the built-in embedder, the ANN index, ranking) on the LoCoMo
// dev split. The default profile's floors (hit@5 0.75, hit@10 0.86,
// recall@10 0.80: every evidence turn of a question, and multi-hop
// questions have several; the match's AUROC 0.82) sit a little under the
// measured figures in docs/BENCHMARKS.md and well over plain BM25's hit@10
// of 0.637; the same conversations fed as chats, a message a sentence
// (REC-33), each speaker's name in its text and none sent (REC-35), typed
// in chat shorthand (REC-39), have theirs (hit@10 0.83, recall@10 0.76 by
// turn, 0.77 and 0.69 by the messages that hold the answer, AUROC 0.82).
// So a change that hurts quality fails here.
//
// It measures ranking, not concurrency, and the race detector slows the
// sentence encoder twentyfold: `make test` runs it in a step of its own,
// without -race. The data is not in the repository (CC BY-NC): without it
// the test skips with a message `make quality` repeats, and fails in CI
// (CI=true), which has it.
func TestLocomoQuality(t *testing.T) {
	if raceEnabled {
		t.Skip("runs without -race (make quality)")
	}
	f, err := os.Open(locomoPath())
	if err != nil {
		msg := fmt.Sprintf("QUALITY NOT CHECKED: LoCoMo data not found (%v); get data/locomo10.json from github.com/snap-research/locomo and set MNEMO_LOCOMO (README, \"Recall quality\")", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	convs, err := locomo.Load(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The full locomo10.json works too: keep the dev split.
	if convs, err = locomo.Select(convs, strings.Join(locomo.DevSplit, ",")); err != nil {
		t.Fatal(err)
	}
	floors := []struct {
		profile            string
		hit5, hit10, rec10 float64
		auroc              float64 // of the answers' match (API-17)
	}{{"", 0.75, 0.86, 0.80, 0.82}, {"lexical", 0.72, 0.79, 0, 0}}
	var profiles []string
	for _, tt := range floors {
		profiles = append(profiles, tt.profile)
	}
	cfg := defaultConfig()
	reps, err := runLocomoProfiles(context.Background(), convs, profiles, "sqlite", "", &cfg, locomo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range floors {
		rep := reps[i]
		if rep.All.Questions != 697 {
			t.Fatalf("asked %d questions, want 697", rep.All.Questions)
		}
		if got := rep.All.Hit[10]; got < tt.hit10 {
			t.Errorf("profile %q: hit@10 = %.3f, want ≥ %.2f", tt.profile, got, tt.hit10)
		}
		if got := rep.All.Recall[10]; got < tt.rec10 {
			t.Errorf("profile %q: recall@10 = %.3f, want ≥ %.2f", tt.profile, got, tt.rec10)
		}
		if got := rep.All.Hit[5]; got < tt.hit5 {
			t.Errorf("profile %q: hit@5 = %.3f, want ≥ %.2f", tt.profile, got, tt.hit5)
		}
		if rep.Match == nil || rep.Match.AUROC < tt.auroc {
			t.Errorf("profile %q: match AUROC = %+v, want ≥ %.2f", tt.profile, rep.Match, tt.auroc)
		}
		t.Logf("profile %q: hit@5 %.3f hit@10 %.3f recall@10 %.3f", tt.profile, rep.All.Hit[5], rep.All.Hit[10], rep.All.Recall[10])
	}
	// The same conversations as chats, a message a sentence (REC-33),
	// each speaker's name written into the text and none sent (REC-35),
	// typed in shorthand ("tmrw", "u", "pics") as chats are (REC-39).
	chat, err := runLocomoProfiles(context.Background(), locomo.AsChat(locomo.InShorthand(convs)), []string{""}, "sqlite", "", &cfg, locomo.Options{NamesInText: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := chat[0].All; got.Hit[10] < 0.83 || got.Recall[10] < 0.76 {
		t.Errorf("as chat: hit@10 %.3f, recall@10 %.3f; want ≥ 0.83 and ≥ 0.76", got.Hit[10], got.Recall[10])
	}
	// The messages that hold the answer, each counted (REC-38).
	if got := chat[0].AnswerMessages; got == nil || got.Hit[10] < 0.77 || got.Recall[10] < 0.69 {
		t.Errorf("as chat, the answer's messages: %+v; want hit@10 ≥ 0.77 and recall@10 ≥ 0.69", got)
	}
	if m := chat[0].Match; m == nil || m.AUROC < 0.82 {
		t.Errorf("as chat: match AUROC = %+v, want ≥ 0.82", m)
	}
	t.Logf("as chat: hit@10 %.3f recall@10 %.3f", chat[0].All.Hit[10], chat[0].All.Recall[10])
	if m := chat[0].AnswerMessages; m != nil {
		t.Logf("as chat, the answer's messages: hit@10 %.3f recall@10 %.3f", m.Hit[10], m.Recall[10])
	}
}

// TestBenchLocomoConversations runs `bench locomo` on a part of a file, and
// refuses a selection the file does not have.
func TestBenchLocomoConversations(t *testing.T) {
	tiny := filepath.Join("..", "..", "bench", "locomo", "testdata", "tiny.json")
	dir := t.TempDir()
	code, out, errs := run(t, dir, "", "bench", "locomo", "--conversations", "tiny-1", "--profile", "lexical", tiny)
	if code != 0 || !strings.Contains(out, "hit@") {
		t.Fatalf("bench locomo --conversations tiny-1: exit %d: %s %s", code, out, errs)
	}
	for _, sel := range []string{"1", "conv-99", "2-1"} {
		code, _, errs := run(t, dir, "", "bench", "locomo", "--conversations", sel, tiny)
		if code != 2 || !strings.Contains(errs, "--conversations") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("--conversations %s: exit %d, %q; want exit 2 and one line", sel, code, errs)
		}
	}
	// As chat messages, a message a request: the same questions, and the
	// tiny file's five turns as seven messages.
	code, out, errs = run(t, dir, "", "bench", "locomo", "--as-chat", "--per-request", "1", "--names-in-text", "--profile", "lexical", tiny)
	if code != 0 || !strings.Contains(out, "7 turns, 3 questions") || !strings.Contains(out, "sess@10") {
		t.Fatalf("bench locomo --as-chat --per-request 1: exit %d: %s %s", code, out, errs)
	}
	code, _, errs = run(t, dir, "", "bench", "locomo", "--per-request", "-1", tiny)
	if code != 2 || !strings.Contains(errs, "--per-request") {
		t.Errorf("--per-request -1: exit %d, %q; want exit 2 naming the flag", code, errs)
	}
}

// TestBenchCrossLingual runs `mnemo bench crosslingual` with the default
// embedder and with embedding off: a row per kind of question, and hit@5
// across languages only with the embedder (EMB-7).
func TestBenchCrossLingual(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		provider string
		crossing bool
	}{
		{"builtin", true},
		{"none", false},
	} {
		setenv(t, "MNEMO_EMBEDDING", tt.provider)
		code, out, errs := run(t, t.TempDir(), "", "bench", "crosslingual")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.provider, code, errs)
		}
		for _, kind := range []string{"zh→zh shared words", "zh→zh paraphrase", "zh→en", "en→zh"} {
			i := strings.Index(out, kind+" ")
			if i < 0 {
				t.Fatalf("%s: no row %q in\n%s", tt.provider, kind, out)
			}
			f := strings.Fields(out[i+len(kind):])
			if len(f) < 2 {
				t.Fatalf("%s: row %q incomplete in\n%s", tt.provider, kind, out)
			}
			if crossing := f[1] != "0.00"; strings.HasPrefix(kind, "zh→en") && crossing != tt.crossing {
				t.Errorf("%s: %s hit@5 %s", tt.provider, kind, f[1])
			}
		}
	}
}
