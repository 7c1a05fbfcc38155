package agentcontext

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"

	"github.com/mnemo-dev/mnemo/internal/ids"
	"github.com/mnemo-dev/mnemo/internal/statedoc"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/security"
)

// Trigger is what started a run (CTX-2): its type, such as cron,
// webhook, message or signal, and its payload.
type Trigger struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// text is the trigger as a prompt and a query see it.
func (t Trigger) text() string {
	if len(t.Payload) == 0 {
		return t.Type
	}
	return t.Type + ": " + plainJSON(t.Payload)
}

// RunOptions open a run.
type RunOptions struct {
	// ID names the run; empty means a new UUIDv7.
	ID      string  `json:"run_id,omitempty"`
	Trigger Trigger `json:"trigger"`
	// Focus is what the run should attend to (a tag or a sentence).
	Focus string `json:"focus,omitempty"`
	// TokenLimit bounds the short-term memory; 0 is the configured limit
	// (2,000 by default).
	TokenLimit int `json:"token_limit,omitempty"`
}

// Run is a run's short-term memory (CTX-1 … CTX-7), as a prompt builder
// takes it: a fixed part (trigger, focus, injected instructions) that is
// never compacted, one sentence for each older round, and the last rounds
// whole. Tokens counts the text of every part, not the JSON around it.
type Run struct {
	ID           string         `json:"run_id"`
	Trigger      Trigger        `json:"trigger"`
	Focus        string         `json:"focus,omitempty"`
	Instructions []Instruction  `json:"instructions,omitempty"`
	Earlier      []RoundSummary `json:"earlier,omitempty"`
	// Omitted counts the oldest rounds whose summaries were dropped too,
	// when even the summaries no longer fitted.
	Omitted    int       `json:"omitted_rounds,omitempty"`
	Rounds     []Round   `json:"rounds"`
	Tokens     int       `json:"tokens"`
	TokenLimit int       `json:"token_limit"`
	Notes      []string  `json:"notes,omitempty"` // what compaction cut, and why
	OpenedAt   time.Time `json:"opened_at"`
	UpdatedAt  time.Time `json:"updated_at"`

	FixedTokens int `json:"fixed_tokens"` // trigger, focus and instructions
	NextRound   int `json:"next_round"`

	// SecurityLevel is the highest level of everything the run was given
	// (SEC-11): its trigger and focus (TriggerLevel), instructions, calls
	// and responses, by the memories' classifier. Each part keeps its
	// own, so that a masking key reads the rest of the run; none goes
	// down. A run stored before levels were kept is classified when read.
	SecurityLevel string `json:"security_level"`
	TriggerLevel  string `json:"trigger_security_level"`
}

// Instruction is a temporary instruction injected into a run (CTX-7):
// it stays in the fixed part until the run closes.
type Instruction struct {
	Text          string    `json:"text"`
	At            time.Time `json:"at"`
	Tokens        int       `json:"tokens"`
	SecurityLevel string    `json:"security_level"`
}

// Round is one function-call round: the call, and what the model said
// after it. A round with no call holds what the model said before the
// first one.
type Round struct {
	N         int       `json:"n"`
	Call      *ToolCall `json:"call,omitempty"`
	Responses []string  `json:"responses,omitempty"`
	Tokens    int       `json:"tokens"`
	// Cut is set when compaction shortened the round's output to fit.
	Cut bool `json:"cut,omitempty"`
	// SecurityLevel is the highest level of the round's call and
	// responses, as they were recorded (SEC-11).
	SecurityLevel string `json:"security_level"`
}

// ToolCall is one function call and its result.
type ToolCall struct {
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input,omitempty"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// RoundSummary is an older round reduced to one sentence.
type RoundSummary struct {
	N       int    `json:"n"`
	Summary string `json:"summary"`
	Tokens  int    `json:"tokens"`
	By      string `json:"by"` // "extractive" or "llm"
	// SecurityLevel is its round's at least (SEC-12): a sentence cut from
	// a secret may no longer look like one.
	SecurityLevel string `json:"security_level"`
}

// summaryTokens bounds the one sentence of a compacted round.
const summaryTokens = 40

// maxNotes bounds the notes a run keeps: the latest.
const maxNotes = 16

// OpenRun starts a run's short-term memory.
func (s *Service) OpenRun(ctx context.Context, scope mnemo.Scope, o RunOptions) (Run, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return Run{}, err
	}
	id, err := mnemo.CheckID("run_id", o.ID, true)
	if err != nil {
		return Run{}, err
	}
	if id == "" {
		id = ids.New()
	}
	trigger, err := s.checkTrigger(o.Trigger)
	if err != nil {
		return Run{}, err
	}
	if utf8.RuneCountInString(o.Focus) > 1000 {
		return Run{}, mnemo.Errorf(mnemo.ETOOLARGE, "focus is over 1,000 characters")
	}
	limit, err := tokenLimit(o.TokenLimit, s.opts.RunTokenLimit, 100, "a run")
	if err != nil {
		return Run{}, err
	}
	open, err := s.state.ListState(ctx, scope, mnemo.StateRun)
	if err != nil {
		return Run{}, err
	}
	if len(open) >= s.opts.MaxRuns {
		return Run{}, mnemo.Errorf(mnemo.ETOOLARGE, "%d runs are open for this agent, the limit: close one first", len(open))
	}
	now := s.now().UTC()
	r := Run{
		ID: id, Trigger: trigger, Focus: strings.TrimSpace(o.Focus),
		Rounds: []Round{}, TokenLimit: limit, OpenedAt: now, UpdatedAt: now, NextRound: 1,
	}
	r.FixedTokens = s.tok.Count(r.Trigger.text()) + s.tok.Count(r.Focus)
	if err := r.checkFixed(); err != nil {
		return Run{}, err
	}
	r.classify()
	r.Tokens = r.FixedTokens
	body, err := json.Marshal(r)
	if err != nil {
		return Run{}, err
	}
	if _, err := s.state.PutState(ctx, scope, mnemo.StateDoc{Kind: mnemo.StateRun, ID: id, Body: body, UpdatedAt: now}); err != nil {
		if mnemo.ErrorCode(err) == mnemo.ECONFLICT {
			return Run{}, mnemo.Errorf(mnemo.ECONFLICT, "run %q is already open", id)
		}
		return Run{}, err
	}
	return r, nil
}

// checkFixed keeps the part that is never compacted to half the budget, so
// that the rounds always have room.
func (r *Run) checkFixed() error {
	if r.FixedTokens > r.TokenLimit/2 {
		return mnemo.Errorf(mnemo.ETOOLARGE, "the trigger, focus and instructions are %d tokens, over half the run's limit of %d", r.FixedTokens, r.TokenLimit)
	}
	return nil
}

// checkStep validates the JSON of a call's input or output, or a trigger's
// payload: well-formed and within MaxStepBytes. Text that is not JSON is
// kept as a JSON string.
func (s *Service) checkStep(field string, raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if len(raw) > s.opts.MaxStepBytes {
		return nil, mnemo.Errorf(mnemo.ETOOLARGE, "%s is %d bytes, the limit is %d", field, len(raw), s.opts.MaxStepBytes)
	}
	if err := mnemo.CheckJSONDepth(field, raw); err != nil {
		return nil, err
	}
	if !json.Valid(raw) {
		return nil, mnemo.Errorf(mnemo.EINVALID, "%s is not valid JSON", field)
	}
	return raw, nil
}

// GetRun returns a run's short-term memory: the structured JSON a prompt
// builder renders (CTX-5), or ENOTFOUND.
func (s *Service) GetRun(ctx context.Context, scope mnemo.Scope, id string) (Run, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return Run{}, err
	}
	r, _, err := statedoc.Get[Run](ctx, s.state, scope, mnemo.StateRun, id)
	if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
		return Run{}, mnemo.Errorf(mnemo.ENOTFOUND, "no open run %q", id)
	}
	r.classify()
	return r, err
}

// ListRuns returns the agent's open runs, most recently changed first,
// without their rounds.
func (s *Service) ListRuns(ctx context.Context, scope mnemo.Scope) ([]Run, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	docs, err := s.state.ListState(ctx, scope, mnemo.StateRun)
	if err != nil {
		return nil, err
	}
	runs := make([]Run, 0, len(docs))
	for _, d := range docs {
		var r Run
		if err := json.Unmarshal(d.Body, &r); err != nil {
			return nil, fmt.Errorf("run %q: %w", d.ID, err)
		}
		r.classify()
		r.Rounds, r.Earlier = nil, nil
		runs = append(runs, r)
	}
	return runs, nil
}

// CloseRun ends a run: its short-term memory is removed (CTX-6) and
// returned as it was last.
func (s *Service) CloseRun(ctx context.Context, scope mnemo.Scope, id string) (Run, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return Run{}, err
	}
	defer s.locks.Lock(scope, mnemo.StateRun, id)()
	for range statedoc.Retries {
		r, doc, err := statedoc.Get[Run](ctx, s.state, scope, mnemo.StateRun, id)
		if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
			return Run{}, mnemo.Errorf(mnemo.ENOTFOUND, "no open run %q", id)
		} else if err != nil {
			return Run{}, err
		}
		ok, err := s.state.DeleteState(ctx, scope, mnemo.StateRun, id, doc.Version)
		if mnemo.ErrorCode(err) == mnemo.ECONFLICT {
			continue
		} else if err != nil {
			return Run{}, err
		}
		if !ok {
			return Run{}, mnemo.Errorf(mnemo.ENOTFOUND, "no open run %q", id)
		}
		r.classify()
		return r, nil
	}
	return Run{}, mnemo.Errorf(mnemo.ECONFLICT, "run %q is being changed by too many writers at once; retry", id)
}

// RecordCall adds a function call and its result as a new round.
func (s *Service) RecordCall(ctx context.Context, scope mnemo.Scope, runID string, call ToolCall) (Run, error) {
	name := strings.TrimSpace(call.Name)
	if name == "" || len(name) > 128 {
		return Run{}, mnemo.Errorf(mnemo.EINVALID, "call name must be 1 to 128 bytes")
	}
	in, err := s.checkStep("input", call.Input)
	if err != nil {
		return Run{}, err
	}
	out, err := s.checkStep("output", call.Output)
	if err != nil {
		return Run{}, err
	}
	if len(call.Error) > s.opts.MaxStepBytes {
		return Run{}, mnemo.Errorf(mnemo.ETOOLARGE, "error is %d bytes, the limit is %d", len(call.Error), s.opts.MaxStepBytes)
	}
	c := ToolCall{Name: name, Input: in, Output: out, Error: call.Error}
	return s.changeRun(ctx, scope, runID, func(r *Run) error {
		rd := Round{N: r.NextRound, Call: &c}
		r.NextRound++
		rd.Tokens = s.roundTokens(&rd)
		r.Rounds = append(r.Rounds, rd)
		return nil
	})
}

// RecordResponse adds the model's intermediate response to the latest
// round (or, before any call, to a round of its own).
func (s *Service) RecordResponse(ctx context.Context, scope mnemo.Scope, runID, text string) (Run, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Run{}, mnemo.Errorf(mnemo.EINVALID, "response is empty")
	}
	if len(text) > s.opts.MaxStepBytes {
		return Run{}, mnemo.Errorf(mnemo.ETOOLARGE, "response is %d bytes, the limit is %d", len(text), s.opts.MaxStepBytes)
	}
	return s.changeRun(ctx, scope, runID, func(r *Run) error {
		if len(r.Rounds) == 0 {
			r.Rounds = append(r.Rounds, Round{N: r.NextRound})
			r.NextRound++
		}
		last := &r.Rounds[len(r.Rounds)-1]
		last.Responses = append(last.Responses, text)
		last.Tokens = s.roundTokens(last)
		return nil
	})
}

// Inject adds a temporary instruction to a run (CTX-7: a signal
// trigger's). It is never compacted; over half the run's budget is
// ETOOLARGE.
func (s *Service) Inject(ctx context.Context, scope mnemo.Scope, runID, text string) (Run, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return Run{}, mnemo.Errorf(mnemo.EINVALID, "instruction is empty")
	}
	if utf8.RuneCountInString(text) > 2000 {
		return Run{}, mnemo.Errorf(mnemo.ETOOLARGE, "instruction is over 2,000 characters")
	}
	n := s.tok.Count(text)
	return s.changeRun(ctx, scope, runID, func(r *Run) error {
		r.Instructions = append(r.Instructions, Instruction{Text: text, At: s.now().UTC(), Tokens: n})
		r.FixedTokens += n
		return r.checkFixed()
	})
}

// changeRun applies fn to a run, compacts it to its budget and stores it.
func (s *Service) changeRun(ctx context.Context, scope mnemo.Scope, id string, fn func(r *Run) error) (Run, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return Run{}, err
	}
	defer s.locks.Lock(scope, mnemo.StateRun, id)()
	r, err := statedoc.Update(ctx, s.state, scope, mnemo.StateRun, id, false, s.now, func(r *Run, _ bool) (bool, error) {
		if err := fn(r); err != nil {
			return false, err
		}
		r.classify() // before compaction: a round's sentence takes its level
		s.compact(ctx, r)
		r.classify()
		r.UpdatedAt = s.now().UTC()
		return true, nil
	})
	if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
		return Run{}, mnemo.Errorf(mnemo.ENOTFOUND, "no open run %q", id)
	}
	return r, err
}

// roundTokens counts a round's text.
func (s *Service) roundTokens(rd *Round) int {
	n := 0
	if c := rd.Call; c != nil {
		// A JSON string counts as its text, as a prompt shows it.
		n += s.tok.Count(c.Name) + s.tok.Count(plainJSON(c.Input)) + s.tok.Count(plainJSON(c.Output)) + s.tok.Count(c.Error)
	}
	for _, t := range rd.Responses {
		n += s.tok.Count(t)
	}
	return n
}

// compact brings a run within its token limit by the sliding window of
// CTX-4: the fixed part stays; once over the limit, the rounds
// older than the last KeepRounds become one sentence each; if the sentences do not fit either,
// the oldest are dropped and counted; if the kept rounds alone are over,
// their outputs are cut, oldest first. Everything cut is noted.
func (s *Service) compact(ctx context.Context, r *Run) {
	total := func() int {
		n := r.FixedTokens
		for _, e := range r.Earlier {
			n += e.Tokens
		}
		for _, rd := range r.Rounds {
			n += rd.Tokens
		}
		return n
	}
	defer func() { r.Tokens = total() }()
	if total() <= r.TokenLimit {
		return
	}
	// Over the limit: every round but the last KeepRounds becomes one
	// sentence, so that the window has room again for a while.
	for len(r.Rounds) > s.opts.KeepRounds {
		old := r.Rounds[0]
		r.Rounds = r.Rounds[1:]
		r.Earlier = append(r.Earlier, s.summarizeRound(ctx, r, &old))
	}
	dropped := 0
	for total() > r.TokenLimit && len(r.Earlier) > 0 {
		r.Earlier = r.Earlier[1:]
		r.Omitted++
		dropped++
	}
	if dropped > 0 {
		r.note(fmt.Sprintf("the summaries of %d older rounds were dropped to stay within %d tokens", dropped, r.TokenLimit))
	}
	for i := range r.Rounds {
		over := total() - r.TokenLimit
		if over <= 0 {
			break
		}
		s.cutRound(r, &r.Rounds[i], over)
	}
	// Rounds that still do not fit (many long responses in one round, say)
	// become sentences too, oldest first; then the oldest sentences go.
	// The fixed part is at most half the limit and a sentence far less, so
	// this ends within the limit.
	for total() > r.TokenLimit && len(r.Rounds) > 0 {
		old := r.Rounds[0]
		r.Rounds = r.Rounds[1:]
		r.Earlier = append(r.Earlier, s.summarizeRound(ctx, r, &old))
		r.note(fmt.Sprintf("round %d did not fit even cut and was reduced to one sentence", old.N))
	}
	for total() > r.TokenLimit && len(r.Earlier) > 0 {
		r.Earlier = r.Earlier[1:]
		r.Omitted++
	}
}

// cutRound shortens a kept round's output, then its input and responses,
// by about over tokens, leaving each at least a few tokens.
func (s *Service) cutRound(r *Run, rd *Round, over int) {
	const keep = 16
	before := rd.Tokens
	cut := func(text string) (string, bool) {
		n := s.tok.Count(text)
		if n <= keep || over <= 0 {
			return text, false
		}
		const marker = 16 // the tokens of the note appended to the cut text
		to := max(keep, n-over-marker)
		short, ok := s.tok.Truncate(text, to)
		if !ok {
			return text, false
		}
		over -= n - s.tok.Count(short)
		return short + fmt.Sprintf(" … [cut: %d of %d tokens kept]", to, n), true
	}
	if c := rd.Call; c != nil {
		if t, ok := cut(plainJSON(c.Output)); ok {
			c.Output, _ = json.Marshal(t)
			rd.Cut = true
		}
		if t, ok := cut(plainJSON(c.Input)); ok {
			c.Input, _ = json.Marshal(t)
			rd.Cut = true
		}
	}
	for i := range rd.Responses {
		if t, ok := cut(rd.Responses[i]); ok {
			rd.Responses[i] = t
			rd.Cut = true
		}
	}
	rd.Tokens = s.roundTokens(rd)
	if rd.Tokens < before {
		r.note(fmt.Sprintf("round %d was cut from %d to %d tokens to stay within %d", rd.N, before, rd.Tokens, r.TokenLimit))
	}
}

func (r *Run) note(s string) {
	r.Notes = append(r.Notes, s)
	if len(r.Notes) > maxNotes {
		r.Notes = r.Notes[len(r.Notes)-maxNotes:]
	}
}

// summarizeRound reduces a round to one sentence: by the configured
// Summarizer, or extractively.
func (s *Service) summarizeRound(ctx context.Context, r *Run, rd *Round) RoundSummary {
	if sum := s.opts.Summarizer; sum != nil {
		text, err := sum.Summarize(ctx, roundText(rd), summaryTokens)
		text = textutil.OneLine(text)
		if err == nil && text != "" {
			text, _ = s.tok.Truncate(text, summaryTokens)
			return RoundSummary{N: rd.N, Summary: text, Tokens: s.tok.Count(text), By: "llm", SecurityLevel: rd.SecurityLevel}
		}
		s.log.Warn("round summary failed, using the extractive sentence", "run", r.ID, "round", rd.N, "err", err)
		r.note(fmt.Sprintf("round %d: the summarizer failed, an extractive sentence was used", rd.N))
	}
	text := extractiveSentence(rd)
	if short, cut := s.tok.Truncate(text, summaryTokens); cut {
		text = short + "…"
	}
	return RoundSummary{N: rd.N, Summary: text, Tokens: s.tok.Count(text), By: "extractive", SecurityLevel: rd.SecurityLevel}
}

// classify raises the level of each part of the run to what its text
// calls for, and the run's to the highest (SEC-11). A part classified
// before keeps its level at least, even once compaction cut its text.
func (r *Run) classify() {
	raise := func(level *string, texts ...string) string {
		*level = security.ClassifyText(strings.Join(texts, "\n"), cmp.Or(*level, mnemo.SecurityInternal))
		return *level
	}
	levels := []string{raise(&r.TriggerLevel, r.Trigger.text(), r.Focus)}
	for i := range r.Instructions {
		levels = append(levels, raise(&r.Instructions[i].SecurityLevel, r.Instructions[i].Text))
	}
	for i := range r.Earlier {
		levels = append(levels, raise(&r.Earlier[i].SecurityLevel, r.Earlier[i].Summary))
	}
	for i := range r.Rounds {
		levels = append(levels, raise(&r.Rounds[i].SecurityLevel, roundText(&r.Rounds[i])))
	}
	r.SecurityLevel = mnemo.Highest(append(levels, r.SecurityLevel)...)
}

// Conceal masks each part of a run c may not read at its level (SEC-8,
// SEC-11): the trigger's payload and the focus, instructions, a call's
// input, output and error, responses, the sentences of older rounds. The
// rest of the run, its counts and notes stay.
func (r *Run) Conceal(c security.Clearance) {
	if l := r.TriggerLevel; c.Conceals(l) {
		r.Trigger.Payload, r.Focus = c.JSON(l, r.Trigger.Payload), c.Field(l, r.Focus)
	}
	r.Instructions = slices.Clone(r.Instructions)
	for i := range r.Instructions {
		in := &r.Instructions[i]
		in.Text = c.Field(in.SecurityLevel, in.Text)
	}
	r.Earlier = slices.Clone(r.Earlier)
	for i := range r.Earlier {
		e := &r.Earlier[i]
		e.Summary = c.Field(e.SecurityLevel, e.Summary)
	}
	r.Rounds = slices.Clone(r.Rounds)
	for i := range r.Rounds {
		rd := &r.Rounds[i]
		l := rd.SecurityLevel
		if !c.Conceals(l) {
			continue
		}
		if call := rd.Call; call != nil {
			rd.Call = &ToolCall{Name: call.Name, Input: c.JSON(l, call.Input), Output: c.JSON(l, call.Output), Error: c.Field(l, call.Error)}
		}
		responses := make([]string, len(rd.Responses))
		for j, t := range rd.Responses {
			responses[j] = c.Field(l, t)
		}
		rd.Responses = responses
	}
}

// roundText is a round as a summarizer reads it.
func roundText(rd *Round) string {
	var b strings.Builder
	if c := rd.Call; c != nil {
		fmt.Fprintf(&b, "Called %s with %s.\n", c.Name, plainJSON(c.Input))
		if c.Error != "" {
			fmt.Fprintf(&b, "It failed: %s\n", c.Error)
		}
		if len(c.Output) > 0 {
			fmt.Fprintf(&b, "Result: %s\n", plainJSON(c.Output))
		}
	}
	for _, t := range rd.Responses {
		fmt.Fprintf(&b, "The assistant said: %s\n", t)
	}
	return b.String()
}

// extractiveSentence is a round in one sentence without a model: the call,
// the first sentence of its result (or its error) and of what was said.
func extractiveSentence(rd *Round) string {
	var parts []string
	if c := rd.Call; c != nil {
		call := "called " + c.Name
		if in := textutil.Clip(textutil.OneLine(plainJSON(c.Input)), 60); in != "" {
			call += "(" + in + ")"
		}
		switch {
		case c.Error != "":
			call += " and it failed: " + textutil.Clip(textutil.FirstSentence(c.Error), 80)
		case len(c.Output) > 0:
			call += " → " + textutil.Clip(textutil.FirstSentence(plainJSON(c.Output)), 100)
		}
		parts = append(parts, call)
	}
	if len(rd.Responses) > 0 {
		parts = append(parts, "said: "+textutil.Clip(textutil.FirstSentence(rd.Responses[len(rd.Responses)-1]), 100))
	}
	return fmt.Sprintf("Round %d: %s.", rd.N, strings.TrimRight(strings.Join(parts, "; "), "."))
}

// plainJSON renders JSON for reading: a string as its text, anything else
// compact.
func plainJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	return string(raw)
}

// SweepRuns closes every run, of every agent, unchanged for RunIdle: runs
// whose agent never closed them. It returns how many it closed.
func (s *Service) SweepRuns(ctx context.Context) (int, error) {
	n := 0
	for {
		docs, err := s.state.IdleState(ctx, mnemo.StateRun, s.now().Add(-s.opts.RunIdle), 256)
		if err != nil {
			return n, err
		}
		swept := 0
		for _, d := range docs {
			ok, err := s.state.DeleteState(ctx, d.Scope, mnemo.StateRun, d.ID, d.Version)
			switch {
			case mnemo.ErrorCode(err) == mnemo.ECONFLICT: // it changed meanwhile: in use
			case err != nil:
				return n, err
			case ok:
				swept++
				s.log.Info("closed an abandoned run", "tenant", d.Scope.TenantID, "agent", d.Scope.AgentID, "run", d.ID, "idle_since", d.UpdatedAt)
			}
		}
		n += swept
		if len(docs) < 256 || swept == 0 {
			return n, nil
		}
	}
}
