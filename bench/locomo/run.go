package locomo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo/temporal"
)

// System is the memory system under evaluation.
type System interface {
	// AddSession stores a session's turns for one agent (one agent per
	// conversation), each turn under the key "/turn/<dia_id>".
	AddSession(ctx context.Context, agent, session string, at time.Time, turns []Turn) error
	// Search returns the keys of the top limit memories for query, judged
	// at now.
	Search(ctx context.Context, agent, query string, now time.Time, limit int) ([]string, error)
}

// OccurredSearcher is a System that also says when each result happened
// (its occurred window, REC-24).
type OccurredSearcher interface {
	SearchOccurred(ctx context.Context, agent, query string, now time.Time, limit int) ([]string, []temporal.Window, error)
}

// Ks are the cut-offs reported.
var Ks = []int{5, 10, 20}

// Scores are means over questions: hit@k (any evidence turn in the top k)
// and recall@k (the fraction of evidence turns in the top k).
type Scores struct {
	Questions int             `json:"questions"`
	Hit       map[int]float64 `json:"hit"`
	Recall    map[int]float64 `json:"recall"`
}

// Report is the outcome of a run.
type Report struct {
	Conversations int             `json:"conversations"`
	Turns         int             `json:"turns"`
	All           Scores          `json:"all"`
	ByCategory    map[int]*Scores `json:"by_category"`
	// Dated is, over the temporal questions whose gold answer names a date
	// ("7 May 2023", "The week before 9 June 2023", "2022"), how many
	// there are and the share of them with a top-5 result whose occurred
	// window holds that date or lies within it (REC-24).
	DatedQuestions int     `json:"dated_questions"`
	DatedAt5       float64 `json:"dated_at5"`
	// NamingTime scores the questions whose text names a time ("in May
	// 2023", "last week", "the week before 9 June"), as temporal.Query
	// finds one: REC-25's class, whatever the category.
	NamingTime *Scores `json:"naming_time,omitempty"`
	// Latency of Search calls.
	P50, P95 time.Duration `json:"-"`
	// IngestTime is the time spent in AddSession.
	IngestTime time.Duration `json:"-"`
}

// CategoryNames are LoCoMo's question categories.
var CategoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// Run feeds every conversation to sys and asks every question of
// categories 1–4 that has evidence.
func Run(ctx context.Context, convs []Conversation, sys System) (Report, error) {
	rep := Report{ByCategory: map[int]*Scores{}}
	var lat []time.Duration
	maxK := Ks[len(Ks)-1]
	for _, c := range convs {
		agent := "locomo-" + c.SampleID
		start := time.Now()
		for _, s := range c.Sessions {
			if err := sys.AddSession(ctx, agent, fmt.Sprintf("session_%d", s.N), s.Time, s.Turns); err != nil {
				return rep, fmt.Errorf("%s session %d: %w", c.SampleID, s.N, err)
			}
			rep.Turns += len(s.Turns)
		}
		rep.IngestTime += time.Since(start)
		rep.Conversations++
		now := c.LastTime()
		for _, qa := range c.QA {
			if qa.Category < 1 || qa.Category > 4 || len(qa.Evidence) == 0 {
				continue
			}
			t0 := time.Now()
			var keys []string
			var occ []temporal.Window
			var err error
			if osr, ok := sys.(OccurredSearcher); ok {
				keys, occ, err = osr.SearchOccurred(ctx, agent, qa.Question, now, maxK)
			} else {
				keys, err = sys.Search(ctx, agent, qa.Question, now, maxK)
			}
			lat = append(lat, time.Since(t0))
			if err != nil {
				return rep, fmt.Errorf("%s %q: %w", c.SampleID, qa.Question, err)
			}
			cat := rep.ByCategory[qa.Category]
			if cat == nil {
				cat = newScores()
				rep.ByCategory[qa.Category] = cat
			}
			score(&rep.All, keys, qa.Evidence)
			score(cat, keys, qa.Evidence)
			if temporal.Query(qa.Question, now).Found {
				if rep.NamingTime == nil {
					rep.NamingTime = newScores()
				}
				score(rep.NamingTime, keys, qa.Evidence)
			}
			if gold, ok := GoldDate(qa, now); ok && qa.Category == 2 && occ != nil {
				rep.DatedQuestions++
				for _, w := range occ[:min(5, len(occ))] {
					if w.Valid() && (w.Contains(gold) || gold.Contains(w)) {
						rep.DatedAt5++
						break
					}
				}
			}
		}
	}
	if rep.DatedQuestions > 0 {
		rep.DatedAt5 /= float64(rep.DatedQuestions)
	}
	finish(&rep.All)
	if rep.NamingTime != nil {
		finish(rep.NamingTime)
	}
	for _, s := range rep.ByCategory {
		finish(s)
	}
	rep.P50, rep.P95 = percentile(lat, 0.50), percentile(lat, 0.95)
	return rep, nil
}

// GoldDate is the window of a question's gold answer when the answer is a
// date and nothing else ("7 May 2023", "in 2022", "The week before 9 June
// 2023."), resolved against now.
func GoldDate(qa QA, now time.Time) (temporal.Window, bool) {
	var ans string
	if json.Unmarshal(qa.Answer, &ans) != nil {
		var n json.Number
		if json.Unmarshal(qa.Answer, &n) != nil {
			return temporal.Window{}, false
		}
		ans = n.String()
	}
	ans = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(ans), "."))
	for _, p := range []string{"on ", "in ", "during ", "around ", "by "} {
		if len(ans) > len(p) && strings.EqualFold(ans[:len(p)], p) {
			ans = ans[len(p):]
		}
	}
	es := temporal.Extract(ans, now)
	if len(es) != 1 || !strings.EqualFold(es[0].Text, ans) {
		return temporal.Window{}, false
	}
	return es[0].Window, true
}

func newScores() *Scores { return &Scores{Hit: map[int]float64{}, Recall: map[int]float64{}} }

// score adds one question's outcome (sums; finish turns them into means).
func score(s *Scores, keys, evidence []string) {
	if s.Hit == nil {
		*s = *newScores()
	}
	s.Questions++
	want := map[string]bool{}
	for _, e := range evidence {
		want[e] = true
	}
	for _, k := range Ks {
		found := 0
		seen := map[string]bool{}
		for _, key := range keys[:min(k, len(keys))] {
			id := strings.TrimPrefix(key, "/turn/")
			if want[id] && !seen[id] {
				seen[id] = true
				found++
			}
		}
		if found > 0 {
			s.Hit[k]++
		}
		s.Recall[k] += float64(found) / float64(len(want))
	}
}

func finish(s *Scores) {
	if s.Questions == 0 {
		return
	}
	for _, k := range Ks {
		s.Hit[k] /= float64(s.Questions)
		s.Recall[k] /= float64(s.Questions)
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// WriteText writes the report as a table. Timings are left out when
// withTimes is false, so the rest can be compared with a golden file.
func (r Report) WriteText(w io.Writer, withTimes bool) {
	fmt.Fprintf(w, "LoCoMo retrieval: %d conversations, %d turns, %d questions (categories 1-4)\n\n",
		r.Conversations, r.Turns, r.All.Questions)
	fmt.Fprintf(w, "%-12s %5s  %6s %6s %6s  %6s %6s %6s\n", "category", "n", "hit@5", "hit@10", "hit@20", "rec@5", "rec@10", "rec@20")
	row := func(name string, s *Scores) {
		fmt.Fprintf(w, "%-12s %5d  %6.3f %6.3f %6.3f  %6.3f %6.3f %6.3f\n", name, s.Questions,
			s.Hit[5], s.Hit[10], s.Hit[20], s.Recall[5], s.Recall[10], s.Recall[20])
	}
	cats := make([]int, 0, len(r.ByCategory))
	for c := range r.ByCategory {
		cats = append(cats, c)
	}
	sort.Ints(cats)
	for _, c := range cats {
		row(fmt.Sprintf("%d %s", c, CategoryNames[c]), r.ByCategory[c])
	}
	all := r.All
	row("all", &all)
	if r.NamingTime != nil {
		row("names a time", r.NamingTime)
	}
	if r.DatedQuestions > 0 {
		fmt.Fprintf(w, "\ntemporal questions naming a date: %d; a top-5 result's occurred holds it: %.3f\n", r.DatedQuestions, r.DatedAt5)
	}
	if withTimes {
		fmt.Fprintf(w, "\nrecall latency p50 %s, p95 %s; ingest %s\n",
			r.P50.Round(10*time.Microsecond), r.P95.Round(10*time.Microsecond), r.IngestTime.Round(time.Millisecond))
	}
}
