package main

import (
	"strings"
	"testing"
)

// TestRecallSaysHowWellItMatched checks the CLI's side of API-17 and
// API-18: each result shows its match; a query about nothing known says
// that only the nearest are shown, and --min-match weak leaves them out; a
// misspelt agent gets a one-line notice naming the near one, not a silent
// "no memories found".
func TestRecallSaysHowWellItMatched(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runner(t, dir)
	for _, c := range []string{"The espresso machine is in the kitchen", "Deploys happen on Tuesdays", "The user prefers Python for data work"} {
		r("--agent", "assistant", "remember", c)
	}
	code, out, errs := run(t, dir, "", "--agent", "assistant", "recall", "where is the espresso machine?")
	if code != 0 || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "strong") || errs != "" {
		t.Errorf("a question answered: exit %d\n%s\nstderr %q; want the first result strong", code, out, errs)
	}
	code, out, errs = run(t, dir, "", "--agent", "assistant", "recall", "weather on Mars")
	if code != 0 || !strings.Contains(errs, "no relevant memory") || strings.Contains(out, "strong") || strings.Contains(out, "weak") {
		t.Errorf("weather on Mars: exit %d\n%s\nstderr %q; want only matches of none, and that said", code, out, errs)
	}
	if out := r("--agent", "assistant", "recall", "--min-match", "weak", "weather on Mars"); out != "no memories found (best match: none)\n" {
		t.Errorf("--min-match weak: %q", out)
	}
	code, out, errs = run(t, dir, "", "--agent", "asistant", "recall", "deploy day")
	if code != 0 || out != "no memories found\n" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `agent "asistant" has no memories`) || !strings.Contains(errs, `did you mean "assistant"?`) {
		t.Errorf("a misspelt agent: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs = run(t, dir, "", "--agent", "assistant", "recall", "--min-match", "great", "x"); code != 2 {
		t.Errorf("--min-match great: exit %d, %s", code, errs)
	}
}
