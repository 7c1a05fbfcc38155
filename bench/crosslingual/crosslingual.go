// Package crosslingual measures recall across languages (EMB-7): Chinese
// and English memories of a few agents, asked for in Chinese with the
// memory's words, in Chinese with none of them, and across the two
// languages. It reports hit@5 per kind of question, for `mnemo bench
// crosslingual` and the package's test.
package crosslingual

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/memory"
)

// Kind is a kind of question.
type Kind string

// The kinds of question.
const (
	// Control: a Chinese question that repeats words of its Chinese memory.
	Control Kind = "zh→zh shared words"
	// Paraphrase: a Chinese question that shares no two-character sequence
	// with its Chinese memory.
	Paraphrase Kind = "zh→zh paraphrase"
	// ZhEn: a Chinese question of an English memory.
	ZhEn Kind = "zh→en"
	// EnZh: an English question of a Chinese memory.
	EnZh Kind = "en→zh"
)

// Kinds are the kinds in the order reports list them.
var Kinds = []Kind{Control, Paraphrase, ZhEn, EnZh}

// K is the cut-off of hit@K.
const K = 5

// Service is what the benchmark needs of a memory service.
type Service interface {
	Remember(ctx context.Context, scope mnemo.Scope, d mnemo.Draft) (mnemo.Memory, error)
	Surface(ctx context.Context, scope mnemo.Scope, q memory.Query) (memory.Result, error)
}

// Answer is how one question fared: the rank of its memory among the
// results (1-based), 0 when it was not in the first K.
type Answer struct {
	Question
	Rank int
	Top  []string // the keys of the first results
}

// Report is the outcome of a run.
type Report struct {
	Answers []Answer
}

// HitRate returns hit@K of the questions of kind k.
func (r Report) HitRate(k Kind) float64 {
	var n, hit int
	for _, a := range r.Answers {
		if a.Kind == k {
			n++
			if a.Rank > 0 {
				hit++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(hit) / float64(n)
}

// Run stores Memories in svc under tenant, one agent each, and asks every
// question.
func Run(ctx context.Context, svc Service, tenant string) (Report, error) {
	keys := map[string]string{} // memory ID → key
	for _, m := range Memories {
		text := m.Text
		got, err := svc.Remember(ctx, mnemo.Scope{TenantID: tenant, AgentID: m.Agent}, mnemo.Draft{Content: &text})
		if err != nil {
			return Report{}, fmt.Errorf("storing %s: %w", m.Key, err)
		}
		keys[got.ID] = m.Key
	}
	var r Report
	for _, q := range Questions {
		res, err := svc.Surface(ctx, mnemo.Scope{TenantID: tenant, AgentID: q.Agent}, memory.Query{Text: q.Text, Limit: K})
		if err != nil {
			return Report{}, fmt.Errorf("asking %q: %w", q.Text, err)
		}
		a := Answer{Question: q}
		for i, h := range res.Results {
			k := keys[h.ID]
			a.Top = append(a.Top, k)
			if k == q.Want && a.Rank == 0 {
				a.Rank = i + 1
			}
		}
		r.Answers = append(r.Answers, a)
	}
	return r, nil
}

// Print writes hit@K per kind, and with verbose every question's outcome.
func (r Report) Print(w io.Writer, verbose bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if verbose {
		for _, a := range r.Answers {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%v\n", a.Kind, a.Rank, a.Text, a.Top)
		}
	}
	fmt.Fprintf(tw, "kind\tquestions\thit@%d\n", K)
	for _, k := range Kinds {
		n := 0
		for _, a := range r.Answers {
			if a.Kind == k {
				n++
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f\n", k, n, r.HitRate(k))
	}
	return tw.Flush()
}
