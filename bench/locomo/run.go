package locomo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo/memory"
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

// MatchSearcher is a System that also says how well each answer matched
// its question (API-17).
type MatchSearcher interface {
	SearchMatch(ctx context.Context, agent, query string, now time.Time, limit int, explain bool) (Answer, error)
}

// Answer is a MatchSearcher's answer: the keys of the results, their
// occurred windows, and how well the answer matched.
type Answer struct {
	Keys       []string
	Occurred   []temporal.Window
	Match      string  // strong, weak or none
	MatchScore float64 // the best result's probability of answering
	TopScore   float64 // the first result's score, 0 without one
	// Features are each result's match features and probability, when
	// asked for (explain).
	Features []json.RawMessage
	// Trace is where the server spent the answer's time, when it says.
	Trace *memory.Trace
}

// Options are a run's settings.
type Options struct {
	// Features, when set, receives a JSON line per question: its category,
	// the answer's match, and each result's match features and whether it
	// is an evidence turn, for calibrating the match model.
	Features io.Writer
	// PerRequest is how many turns an HTTPSystem sends a request (0: a
	// session in one); the caller sets it on the system it makes.
	PerRequest int
	// NamesInText writes each turn's speaker into its text ("Caroline:
	// …") and sends no name, as harnesses that know only roles do; the
	// caller sets it on the system it makes.
	NamesInText bool
	// Settle, when set, waits after a conversation is fed, before it is
	// asked, for the work its server does in the background (vectors made
	// again, REC-36), so that every run asks the same memories; its time
	// is the ingest's.
	Settle func(context.Context) error
}

// Ks are the cut-offs reported.
var Ks = []int{5, 10, 20}

// Scores are means over questions: hit@k (any evidence turn in the top k)
// and recall@k (the fraction of evidence turns in the top k).
type Scores struct {
	Questions int             `json:"questions"`
	Hit       map[int]float64 `json:"hit"`
	Recall    map[int]float64 `json:"recall"`
	// SessionHit is the share of questions with an evidence turn's
	// session among the sessions of the top k: whether the search found
	// where it was said, if not what.
	SessionHit map[int]float64 `json:"session_hit"`
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
	// AnswerMessages scores, for conversations fed as chats (AsChat), the
	// messages that hold the answer: those of the evidence turns with a
	// word of the gold answer (answerMessages), counted each, not by
	// their turn. What an agent reading the results needs is the message
	// that says it, not another of its turn.
	AnswerMessages *Scores `json:"answer_messages,omitempty"`
	// Match measures the answer's match (API-17), when the system says
	// it: the answerable questions against the adversarial ones.
	Match *MatchReport `json:"match,omitempty"`
	// PerConversation is the same figures for each conversation, in the
	// order run: a change that lifts the mean by one conversation alone
	// is told from one that lifts most of them (QUAL-5).
	PerConversation []ConversationReport `json:"per_conversation"`
	// Latency of Search calls.
	P50, P95 time.Duration `json:"-"`
	// Stages and TailStages are the median of each recall stage over all
	// the questions and over the slowest 5 % (by latency), when the
	// system traces its answers; Rest is what the latency holds beyond
	// the recall itself (HTTP, JSON, the client).
	Stages, TailStages Stages `json:"-"`
	// IngestTime is the time spent in AddSession.
	IngestTime time.Duration `json:"-"`
	// QuestionCPU is the process's CPU time (user and system) while the
	// questions were asked, over the questions asked: the recall's own
	// cost, with the client's and the server's HTTP, where the system
	// runs in the process. Other jobs on the machine disturb it less than
	// the latency. Zero where the process's CPU time is not read.
	QuestionCPU time.Duration `json:"-"`
}

// ConversationReport is one conversation's share of a Report.
type ConversationReport struct {
	Sample         string          `json:"sample"`
	All            Scores          `json:"all"`
	ByCategory     map[int]*Scores `json:"by_category"`
	Match          *MatchReport    `json:"match,omitempty"`
	AnswerMessages *Scores         `json:"answer_messages,omitempty"`
}

// MatchReport is how well an answer's match (API-17) tells the questions
// the conversation answers (categories 1–4 with evidence) from those it
// does not (category 5, adversarial: asked of the wrong person, their
// evidence the turn that misleads).
type MatchReport struct {
	Answerable   int `json:"answerable"`
	Unanswerable int `json:"unanswerable"`
	// AUROC of the answer's match_score: the chance that an answerable
	// question scores above an unanswerable one (0.5 is a coin); and
	// TopScoreAUROC, that of the first result's score, for comparison.
	AUROC         float64 `json:"auroc"`
	TopScoreAUROC float64 `json:"top_score_auroc"`
	// Levels counts the answers of each level: answerable, unanswerable.
	Levels map[string][2]int `json:"levels"`

	answerable, unanswerable []float64
	topA, topU               []float64
}

// CategoryNames are LoCoMo's question categories.
var CategoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// Run feeds every conversation to sys and asks every question of
// categories 1–4 that has evidence; when sys says how well its answers
// matched, the adversarial questions (category 5) too, for that alone.
func Run(ctx context.Context, convs []Conversation, sys System) (Report, error) {
	return RunWith(ctx, convs, sys, Options{})
}

// RunWith is Run with options.
func RunWith(ctx context.Context, convs []Conversation, sys System, o Options) (Report, error) {
	rep := Report{ByCategory: map[int]*Scores{}}
	ms, matching := sys.(MatchSearcher)
	if matching {
		rep.Match = &MatchReport{Levels: map[string][2]int{}}
	}
	var lat []time.Duration
	var traces []*memory.Trace
	var cpu time.Duration
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
		if o.Settle != nil {
			if err := o.Settle(ctx); err != nil {
				return rep, fmt.Errorf("%s: %w", c.SampleID, err)
			}
		}
		rep.IngestTime += time.Since(start)
		rep.Conversations++
		conv := ConversationReport{Sample: c.SampleID, ByCategory: map[int]*Scores{}}
		if matching {
			conv.Match = &MatchReport{Levels: map[string][2]int{}}
		}
		now := c.LastTime()
		messages := c.messagesByTurn()
		cpu0 := cpuTime()
		for _, qa := range c.QA {
			answerable := qa.Category >= 1 && qa.Category <= 4 && len(qa.Evidence) > 0
			if !answerable && !(matching && qa.Category == 5) {
				continue
			}
			t0 := time.Now()
			var keys []string
			var occ []temporal.Window
			var err error
			switch osr, ok := sys.(OccurredSearcher); {
			case matching:
				var a Answer
				a, err = ms.SearchMatch(ctx, agent, qa.Question, now, maxK, o.Features != nil)
				keys, occ = a.Keys, a.Occurred
				traces = append(traces, a.Trace)
				if err == nil {
					rep.Match.add(a, answerable)
					conv.Match.add(a, answerable)
					if o.Features != nil {
						err = writeFeatures(o.Features, c.SampleID, qa, a)
					}
				}
			case ok:
				keys, occ, err = osr.SearchOccurred(ctx, agent, qa.Question, now, maxK)
			default:
				keys, err = sys.Search(ctx, agent, qa.Question, now, maxK)
			}
			lat = append(lat, time.Since(t0))
			if !matching {
				traces = append(traces, nil)
			}
			if err != nil {
				return rep, fmt.Errorf("%s %q: %w", c.SampleID, qa.Question, err)
			}
			if !answerable {
				continue
			}
			score(&rep.All, keys, qa.Evidence)
			score(category(rep.ByCategory, qa.Category), keys, qa.Evidence)
			score(&conv.All, keys, qa.Evidence)
			score(category(conv.ByCategory, qa.Category), keys, qa.Evidence)
			if temporal.Query(qa.Question, now).Found {
				if rep.NamingTime == nil {
					rep.NamingTime = newScores()
				}
				score(rep.NamingTime, keys, qa.Evidence)
			}
			if ids := answerMessages(qa, messages); len(ids) > 0 {
				for _, s := range []**Scores{&rep.AnswerMessages, &conv.AnswerMessages} {
					if *s == nil {
						*s = newScores()
					}
					scoreMessages(*s, keys, ids)
				}
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
		cpu += cpuTime() - cpu0
		finish(&conv.All)
		if conv.AnswerMessages != nil {
			finish(conv.AnswerMessages)
		}
		for _, s := range conv.ByCategory {
			finish(s)
		}
		if conv.Match != nil {
			conv.Match.finish()
		}
		rep.PerConversation = append(rep.PerConversation, conv)
	}
	if rep.DatedQuestions > 0 {
		rep.DatedAt5 /= float64(rep.DatedQuestions)
	}
	finish(&rep.All)
	if rep.NamingTime != nil {
		finish(rep.NamingTime)
	}
	if rep.AnswerMessages != nil {
		finish(rep.AnswerMessages)
	}
	for _, s := range rep.ByCategory {
		finish(s)
	}
	if rep.Match != nil {
		rep.Match.finish()
	}
	rep.P50, rep.P95 = percentile(lat, 0.50), percentile(lat, 0.95)
	if len(lat) > 0 {
		rep.QuestionCPU = cpu / time.Duration(len(lat))
	}
	rep.Stages = medians(lat, traces, 0)
	rep.TailStages = medians(lat, traces, rep.P95)
	return rep, nil
}

// Stages is the median time of each recall stage (memory.Trace) over a
// set of questions, and of what their latency held beyond the recall.
type Stages struct {
	memory.Trace
	Rest time.Duration
}

// medians is the median of each stage over the traced questions whose
// latency is at least cut.
func medians(lat []time.Duration, traces []*memory.Trace, cut time.Duration) Stages {
	var ts []*memory.Trace
	var rest []time.Duration
	for i, t := range traces {
		if t != nil && lat[i] >= cut {
			ts = append(ts, t)
			rest = append(rest, lat[i]-t.Total)
		}
	}
	if len(ts) == 0 {
		return Stages{}
	}
	med := func(f func(*memory.Trace) time.Duration) time.Duration {
		d := make([]time.Duration, len(ts))
		for i, t := range ts {
			d[i] = f(t)
		}
		return percentile(d, 0.5)
	}
	return Stages{
		Trace: memory.Trace{
			Analyse: med(func(t *memory.Trace) time.Duration { return t.Analyse }),
			Find:    med(func(t *memory.Trace) time.Duration { return t.Find }),
			Lexical: med(func(t *memory.Trace) time.Duration { return t.Lexical }),
			Embed:   med(func(t *memory.Trace) time.Duration { return t.Embed }),
			Vector:  med(func(t *memory.Trace) time.Duration { return t.Vector }),
			Fuse:    med(func(t *memory.Trace) time.Duration { return t.Fuse }),
			MMR:     med(func(t *memory.Trace) time.Duration { return t.MMR }),
			Access:  med(func(t *memory.Trace) time.Duration { return t.Access }),
			Links:   med(func(t *memory.Trace) time.Duration { return t.Links }),
			Total:   med(func(t *memory.Trace) time.Duration { return t.Total }),
		},
		Rest: percentile(rest, 0.5),
	}
}

func (s Stages) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }
	return fmt.Sprintf("analyse %s, find %s (lexical %s beside embed %s + vector %s), fuse %s, MMR and match %s; recall %s, HTTP and JSON %s ms",
		ms(s.Analyse), ms(s.Find), ms(s.Lexical), ms(s.Embed), ms(s.Vector), ms(s.Fuse), ms(s.MMR), ms(s.Total), ms(s.Rest))
}

func (m *MatchReport) add(a Answer, answerable bool) {
	n := m.Levels[a.Match]
	if answerable {
		m.Answerable++
		m.answerable = append(m.answerable, a.MatchScore)
		m.topA = append(m.topA, a.TopScore)
		n[0]++
	} else {
		m.Unanswerable++
		m.unanswerable = append(m.unanswerable, a.MatchScore)
		m.topU = append(m.topU, a.TopScore)
		n[1]++
	}
	m.Levels[a.Match] = n
}

func (m *MatchReport) finish() {
	m.AUROC, m.TopScoreAUROC = AUROC(m.answerable, m.unanswerable), AUROC(m.topA, m.topU)
}

// AUROC is the area under the ROC curve of scores that should rank pos
// above neg: the chance that a positive scores above a negative, ties
// counting half (the Mann-Whitney U statistic over their product).
func AUROC(pos, neg []float64) float64 {
	if len(pos) == 0 || len(neg) == 0 {
		return 0
	}
	type scored struct {
		s   float64
		pos bool
	}
	all := make([]scored, 0, len(pos)+len(neg))
	for _, s := range pos {
		all = append(all, scored{s, true})
	}
	for _, s := range neg {
		all = append(all, scored{s, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s < all[j].s })
	// The rank sum of the positives, ties given their mean rank.
	var rankSum float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].s == all[i].s {
			j++
		}
		mean := float64(i+j+1) / 2 // ranks i+1 .. j
		for k := i; k < j; k++ {
			if all[k].pos {
				rankSum += mean
			}
		}
		i = j
	}
	np, nn := float64(len(pos)), float64(len(neg))
	return (rankSum - np*(np+1)/2) / (np * nn)
}

// writeFeatures writes one question's line for Options.Features.
func writeFeatures(w io.Writer, sample string, qa QA, a Answer) error {
	evidence := map[string]bool{}
	for _, e := range qa.Evidence {
		evidence[e] = true
	}
	type result struct {
		Key      string          `json:"key"`
		Evidence bool            `json:"evidence"`
		Match    json.RawMessage `json:"match,omitempty"`
	}
	line := struct {
		Sample     string   `json:"sample"`
		Question   string   `json:"question"`
		Category   int      `json:"category"`
		Match      string   `json:"match"`
		MatchScore float64  `json:"match_score"`
		Results    []result `json:"results"`
	}{Sample: sample, Question: qa.Question, Category: qa.Category, Match: a.Match, MatchScore: a.MatchScore, Results: []result{}}
	for i, k := range a.Keys {
		r := result{Key: k, Evidence: qa.Category != 5 && evidence[TurnOf(k)]}
		if i < len(a.Features) {
			r.Match = a.Features[i]
		}
		line.Results = append(line.Results, r)
	}
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
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

// category is by's scores of category c, made on first use.
func category(by map[int]*Scores, c int) *Scores {
	s := by[c]
	if s == nil {
		s = newScores()
		by[c] = s
	}
	return s
}

func newScores() *Scores {
	return &Scores{Hit: map[int]float64{}, Recall: map[int]float64{}, SessionHit: map[int]float64{}}
}

// score adds one question's outcome (sums; finish turns them into means).
func score(s *Scores, keys, evidence []string) { scoreBy(s, keys, evidence, TurnOf) }

// scoreMessages adds to s how many of the messages ids are in keys' top
// k, each message counted, not its turn.
func scoreMessages(s *Scores, keys, ids []string) {
	scoreBy(s, keys, ids, func(key string) string { return strings.TrimPrefix(key, "/turn/") })
}

// scoreBy adds to s how many of want are among the dia_ids (idOf) of
// keys' top k.
func scoreBy(s *Scores, keys, want []string, idOf func(key string) string) {
	if s.Hit == nil {
		*s = *newScores()
	}
	s.Questions++
	wanted, sessions := map[string]bool{}, map[string]bool{}
	for _, e := range want {
		wanted[e], sessions[SessionOf(e)] = true, true
	}
	for _, k := range Ks {
		found := 0
		seen := map[string]bool{}
		session := false
		for _, key := range keys[:min(k, len(keys))] {
			id := idOf(key)
			session = session || sessions[SessionOf(id)]
			if wanted[id] && !seen[id] {
				seen[id] = true
				found++
			}
		}
		if found > 0 {
			s.Hit[k]++
		}
		if session {
			s.SessionHit[k]++
		}
		s.Recall[k] += float64(found) / float64(len(wanted))
	}
}

func finish(s *Scores) {
	if s.Questions == 0 {
		return
	}
	for _, k := range Ks {
		s.Hit[k] /= float64(s.Questions)
		s.Recall[k] /= float64(s.Questions)
		s.SessionHit[k] /= float64(s.Questions)
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
	fmt.Fprintf(w, "%-12s %5s  %6s %6s %6s  %6s %6s %6s  %7s\n", "category", "n", "hit@5", "hit@10", "hit@20", "rec@5", "rec@10", "rec@20", "sess@10")
	row := func(name string, s *Scores) {
		fmt.Fprintf(w, "%-12s %5d  %6.3f %6.3f %6.3f  %6.3f %6.3f %6.3f  %7.3f\n", name, s.Questions,
			s.Hit[5], s.Hit[10], s.Hit[20], s.Recall[5], s.Recall[10], s.Recall[20], s.SessionHit[10])
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
	if r.AnswerMessages != nil {
		row("answer msgs", r.AnswerMessages)
	}
	if r.DatedQuestions > 0 {
		fmt.Fprintf(w, "\ntemporal questions naming a date: %d; a top-5 result's occurred holds it: %.3f\n", r.DatedQuestions, r.DatedAt5)
	}
	if m := r.Match; m != nil {
		fmt.Fprintf(w, "\nmatch (API-17): %d answerable (categories 1-4), %d unanswerable (5): AUROC of match_score %.3f (of the first result's score %.3f)\n",
			m.Answerable, m.Unanswerable, m.AUROC, m.TopScoreAUROC)
		for _, l := range []string{"strong", "weak", "none"} {
			n := m.Levels[l]
			fmt.Fprintf(w, "  %-6s answerable %4d (%.3f)  unanswerable %4d (%.3f)\n", l, n[0], share(n[0], m.Answerable), n[1], share(n[1], m.Unanswerable))
		}
	}
	if len(r.PerConversation) > 1 {
		r.writePerConversation(w, cats)
	}
	if withTimes {
		fmt.Fprintf(w, "\nrecall latency p50 %s, p95 %s; ingest %s\n",
			r.P50.Round(10*time.Microsecond), r.P95.Round(10*time.Microsecond), r.IngestTime.Round(time.Millisecond))
		if r.QuestionCPU > 0 {
			fmt.Fprintf(w, "CPU a question (the process's user+sys while asking, client included): %s\n", r.QuestionCPU.Round(10*time.Microsecond))
		}
		if r.Stages.Total > 0 {
			fmt.Fprintf(w, "stages, medians: %s\n  of the slowest 5 %%: %s\n", r.Stages, r.TailStages)
		}
	}
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// writePerConversation writes hit@10 and recall@10 of each category and
// of all, and the match AUROC, a line per conversation.
func (r Report) writePerConversation(w io.Writer, cats []int) {
	fmt.Fprintf(w, "\nper conversation, hit@10 / rec@10:\n%-10s %4s", "sample", "n")
	for _, c := range cats {
		fmt.Fprintf(w, "  %-13s", CategoryNames[c])
	}
	fmt.Fprintf(w, "  %-13s", "all")
	if r.AnswerMessages != nil {
		fmt.Fprintf(w, "  %-13s", "answer msgs")
	}
	if r.Match != nil {
		fmt.Fprintf(w, "  %s", "AUROC")
	}
	fmt.Fprintln(w)
	for _, c := range r.PerConversation {
		fmt.Fprintf(w, "%-10s %4d", c.Sample, c.All.Questions)
		for _, k := range cats {
			if s := c.ByCategory[k]; s != nil {
				fmt.Fprintf(w, "  %.3f / %.3f", s.Hit[10], s.Recall[10])
			} else {
				fmt.Fprintf(w, "  %-13s", "-")
			}
		}
		fmt.Fprintf(w, "  %.3f / %.3f", c.All.Hit[10], c.All.Recall[10])
		if r.AnswerMessages != nil {
			if s := c.AnswerMessages; s != nil {
				fmt.Fprintf(w, "  %.3f / %.3f", s.Hit[10], s.Recall[10])
			} else {
				fmt.Fprintf(w, "  %-13s", "-")
			}
		}
		if c.Match != nil {
			fmt.Fprintf(w, "  %.3f", c.Match.AUROC)
		}
		fmt.Fprintln(w)
	}
}
