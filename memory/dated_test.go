package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
	"github.com/mnemo-dev/mnemo/service"
)

// dated is a memory's text and when it was written.
type dated struct {
	at   time.Time
	text string
}

// asked is a question and the index of the memory that answers it.
type asked struct {
	text string
	want int
}

// rememberAt writes each memory of ms in scope at its time, on clock c,
// and returns their ids.
func rememberAt(t *testing.T, svc *service.Mnemo, c *clock, scope mnemo.Scope, ms []dated) []string {
	t.Helper()
	ids := make([]string, len(ms))
	for i, m := range ms {
		if !m.at.IsZero() {
			c.T = m.at
		}
		got, err := svc.Remember(context.Background(), scope, mnemo.Draft{Content: str(m.text)})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = got.ID
	}
	return ids
}

// firstAnswers fails t for each question whose recall in scope does not
// answer first with the memory it wants.
func firstAnswers(t *testing.T, svc *service.Mnemo, scope mnemo.Scope, ms []dated, ids []string, qs []asked) {
	t.Helper()
	for _, q := range qs {
		res, err := svc.Recall(context.Background(), scope, memory.Query{Text: q.text, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || res.Results[0].ID != ids[q.want] {
			first := "nothing"
			if len(res.Results) > 0 {
				first = res.Results[0].Content
			}
			t.Errorf("%q: first %q, want %q", q.text, first, ms[q.want].text)
		}
	}
}
