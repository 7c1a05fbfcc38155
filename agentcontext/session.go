package agentcontext

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-dev/mnemo"

	"github.com/mnemo-dev/mnemo/analysis"
	"github.com/mnemo-dev/mnemo/internal/cues"
	"github.com/mnemo-dev/mnemo/internal/statedoc"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/security"
)

// WorkingMemory is a session's working memory (CTX-8 … CTX-11): the state of the
// conversation now. It is created by the session's first message, updated
// by each, and deleted after SessionIdle without one.
type WorkingMemory struct {
	SessionID        string            `json:"session_id"`
	CurrentTopic     string            `json:"current_topic,omitempty"`
	ContextVariables map[string]string `json:"context_variables"`
	TurnCount        int               `json:"turn_count"`
	LastEmotion      string            `json:"last_emotion,omitempty"`
	// Facts are marked for long-term memory: written there when the
	// session is ended with archiving, or swept with ArchiveFacts.
	Facts     []string  `json:"facts,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	ExpiresAt time.Time `json:"expires_at"` // when the sweeper deletes it, unless a turn comes first

	// Topics weighs the keywords of recent turns; the heaviest are the
	// current topic.
	Topics map[string]float64 `json:"topic_weights,omitempty"`

	// SecurityLevel is the highest level of every turn the session had
	// and of what it keeps (SEC-11), by the memories' classifier: the
	// topic and variables are read from the turns, so a secret said once
	// keeps the session at its level until it ends. A session stored
	// before levels were kept is classified by what it keeps when read.
	SecurityLevel string `json:"security_level"`
}

// Turn is one message of a session.
type Turn struct {
	Role string `json:"role,omitempty"` // user (default) or assistant
	Text string `json:"text"`
	// Topic, Emotion and Variables, when given, are taken as they are
	// instead of read from Text; a variable set to "" is removed.
	Topic     string            `json:"topic,omitempty"`
	Emotion   string            `json:"emotion,omitempty"`
	Variables map[string]string `json:"variables,omitempty"`
	// Remember marks facts for long-term memory.
	Remember []string `json:"remember,omitempty"`
}

// TurnAnalysis is what a TurnAnalyzer reads from a turn.
type TurnAnalysis struct {
	Keywords  []string          // what the turn is about, most salient first
	Emotion   string            // "" when the turn shows none (assistant turns)
	Variables map[string]string // context variables it states
	Facts     []string          // facts the user asked to be remembered
}

// TurnAnalyzer reads a turn for working memory: an LLM when one is
// configured, RuleAnalyzer otherwise.
type TurnAnalyzer interface {
	AnalyzeTurn(ctx context.Context, wm *WorkingMemory, t Turn) (TurnAnalysis, error)
}

// Limits of working memory.
const (
	maxTurnChars   = 20000
	maxVariables   = 64
	maxVarChars    = 500
	maxFacts       = 64
	topicWords     = 3
	topicRetention = 0.6 // a keyword's weight kept per later turn
)

// AddTurn records a message of a session in its working memory, creating
// it on the first (turn_count 1), and returns it.
func (s *Service) AddTurn(ctx context.Context, scope mnemo.Scope, sessionID string, t Turn) (WorkingMemory, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return WorkingMemory{}, err
	}
	if _, err := mnemo.CheckID("session_id", sessionID, false); err != nil {
		return WorkingMemory{}, err
	}
	switch t.Role {
	case "":
		t.Role = "user"
	case "user", "assistant":
	default:
		return WorkingMemory{}, mnemo.Errorf(mnemo.EINVALID, "role must be user or assistant, not %q", t.Role)
	}
	if strings.TrimSpace(t.Text) == "" {
		return WorkingMemory{}, mnemo.Errorf(mnemo.EINVALID, "text is empty")
	}
	if utf8.RuneCountInString(t.Text) > maxTurnChars {
		return WorkingMemory{}, mnemo.Errorf(mnemo.ETOOLARGE, "text is over %d characters", maxTurnChars)
	}
	if len(t.Variables) > maxVariables || len(t.Remember) > maxFacts {
		return WorkingMemory{}, mnemo.Errorf(mnemo.ETOOLARGE, "at most %d variables and %d facts in one turn", maxVariables, maxFacts)
	}
	for k, v := range t.Variables {
		if k == "" || utf8.RuneCountInString(k) > 64 || utf8.RuneCountInString(v) > maxVarChars {
			return WorkingMemory{}, mnemo.Errorf(mnemo.EINVALID, "variable %q: names are 1 to 64 characters, values at most %d", k, maxVarChars)
		}
	}
	for _, f := range t.Remember {
		if strings.TrimSpace(f) == "" || utf8.RuneCountInString(f) > s.mem.Limits().MaxContentChars {
			return WorkingMemory{}, mnemo.Errorf(mnemo.EINVALID, "a fact to remember must be 1 to %d characters", s.mem.Limits().MaxContentChars)
		}
	}
	// Analysed before the update, which may run more than once: an LLM is
	// asked once per turn. It sees the working memory as it was.
	cur, _, _ := statedoc.Get[WorkingMemory](ctx, s.state, scope, mnemo.StateSession, sessionID)
	an, err := s.opts.TurnAnalyzer.AnalyzeTurn(ctx, &cur, t)
	if err != nil {
		s.log.Warn("turn analysis failed, using the rules", "session", sessionID, "err", err)
		an, _ = RuleAnalyzer{}.AnalyzeTurn(ctx, nil, t)
	}
	defer s.locks.Lock(scope, mnemo.StateSession, sessionID)()
	now := s.now().UTC()
	first := false
	wm, err := statedoc.Update(ctx, s.state, scope, mnemo.StateSession, sessionID, true, s.now, func(wm *WorkingMemory, exists bool) (bool, error) {
		if exists && !now.Before(wm.ExpiresAt) {
			exists = false // idle past its time and not yet swept: a new session
		}
		if !exists {
			n, err := s.countSessions(ctx, scope)
			if err != nil {
				return false, err
			}
			if n >= s.opts.MaxSessions {
				return false, mnemo.Errorf(mnemo.ETOOLARGE, "%d sessions have working memory for this agent, the limit: end one first", n)
			}
			*wm = WorkingMemory{SessionID: sessionID, CreatedAt: now}
			first = true
		}
		wm.apply(t, an)
		wm.classify(t)
		wm.TurnCount++
		wm.UpdatedAt, wm.ExpiresAt = now, now.Add(s.opts.SessionIdle)
		return true, nil
	})
	if err != nil {
		return WorkingMemory{}, err
	}
	if first {
		s.log.Debug("working memory created", "session", sessionID)
	}
	return wm.public(), nil
}

func (s *Service) countSessions(ctx context.Context, scope mnemo.Scope) (int, error) {
	docs, err := s.state.ListState(ctx, scope, mnemo.StateSession)
	return len(docs), err
}

// apply folds a turn's analysis, and what the caller set, into wm.
func (wm *WorkingMemory) apply(t Turn, an TurnAnalysis) {
	if wm.ContextVariables == nil {
		wm.ContextVariables = map[string]string{}
	}
	if wm.Topics == nil {
		wm.Topics = map[string]float64{}
	}
	for k, w := range wm.Topics {
		if w *= topicRetention; w < 0.2 {
			delete(wm.Topics, k)
		} else {
			wm.Topics[k] = w
		}
	}
	if t.Topic != "" {
		// Set by the caller: it replaces what was detected.
		clear(wm.Topics)
		wm.CurrentTopic = textutil.OneLine(t.Topic)
		wm.Topics[strings.ToLower(wm.CurrentTopic)] = 100
	} else {
		for i, k := range an.Keywords {
			if topicFillers[strings.ToLower(k)] {
				continue
			}
			// Names (capitalised words) say more of a topic than other
			// words; the first keywords of a turn count a little more.
			w := 1 + 0.1*float64(len(an.Keywords)-i)
			if r, _ := utf8.DecodeRuneInString(k); unicode.IsUpper(r) {
				w += 0.5
			}
			wm.Topics[strings.ToLower(k)] += w
		}
		wm.CurrentTopic = wm.topic()
	}
	switch {
	case t.Emotion != "":
		wm.LastEmotion = t.Emotion
	case t.Role == "user" && an.Emotion != "":
		wm.LastEmotion = an.Emotion
	}
	for k, v := range an.Variables {
		wm.ContextVariables[k] = v
	}
	for k, v := range t.Variables {
		if v == "" {
			delete(wm.ContextVariables, k)
		} else {
			wm.ContextVariables[k] = v
		}
	}
	for _, f := range slices.Concat(an.Facts, t.Remember) {
		if f = strings.TrimSpace(f); f != "" && !slices.Contains(wm.Facts, f) && len(wm.Facts) < maxFacts {
			wm.Facts = append(wm.Facts, f)
		}
	}
	if len(wm.ContextVariables) > maxVariables {
		// Keep the variables bounded: drop the alphabetically last. Rare:
		// only a caller setting many at once gets here.
		keys := slices.Sorted(maps.Keys(wm.ContextVariables))
		for _, k := range keys[maxVariables:] {
			delete(wm.ContextVariables, k)
		}
	}
}

// topicFillers are conversational words that are keywords to the
// analyser but never what a conversation is about.
var topicFillers = map[string]bool{
	"name": true, "called": true, "call": true, "planning": true, "plan": true, "want": true, "wants": true,
	"like": true, "need": true, "think": true, "know": true, "tell": true, "please": true, "remember": true,
	"thanks": true, "thank": true, "hello": true, "hi": true, "hey": true, "okay": true, "ok": true, "sure": true,
	"yes": true, "maybe": true, "really": true, "going": true, "get": true, "got": true, "make": true, "help": true,
}

// topic is the heaviest keywords, heaviest first.
func (wm *WorkingMemory) topic() string {
	type kw struct {
		k string
		w float64
	}
	var kws []kw
	for k, w := range wm.Topics {
		if w >= 1 {
			kws = append(kws, kw{k, w})
		}
	}
	slices.SortFunc(kws, func(a, b kw) int {
		if a.w != b.w {
			if a.w > b.w {
				return -1
			}
			return 1
		}
		return strings.Compare(a.k, b.k)
	})
	var out []string
	for _, k := range kws[:min(topicWords, len(kws))] {
		out = append(out, k.k)
	}
	return strings.Join(out, " ")
}

// text is what a working memory keeps that a turn's text can put there.
func (wm *WorkingMemory) text() string {
	parts := slices.Concat([]string{wm.CurrentTopic}, wm.Facts, slices.Sorted(maps.Keys(wm.Topics)))
	for _, k := range slices.Sorted(maps.Keys(wm.ContextVariables)) {
		parts = append(parts, k+": "+wm.ContextVariables[k])
	}
	return strings.Join(parts, "\n")
}

// classify raises the session's level to what turn t and what the session
// now keeps call for (SEC-11); it never lowers it.
func (wm *WorkingMemory) classify(t Turn) {
	in := slices.Concat([]string{t.Text, t.Topic}, t.Remember, slices.Collect(maps.Values(t.Variables)))
	level := security.ClassifyText(strings.Join(in, "\n"), cmp.Or(wm.SecurityLevel, mnemo.SecurityInternal))
	wm.SecurityLevel = security.ClassifyText(wm.text(), level)
}

// Conceal masks what a session keeps — its topic, the values of its
// variables, its facts — when c may not read its level (SEC-8, SEC-11).
// Its counts, times and emotion stay.
func (wm *WorkingMemory) Conceal(c security.Clearance) {
	l := wm.SecurityLevel
	if !c.Conceals(l) {
		return
	}
	wm.CurrentTopic = c.Field(l, wm.CurrentTopic)
	vars := make(map[string]string, len(wm.ContextVariables))
	for k, v := range wm.ContextVariables {
		vars[k] = c.Field(l, v)
	}
	wm.ContextVariables = vars
	facts := make([]string, len(wm.Facts))
	for i, f := range wm.Facts {
		facts[i] = c.Field(l, f)
	}
	wm.Facts, wm.Topics = facts, nil
}

// public is the working memory as callers see it, without the weights,
// with its level (SEC-11: one stored without is classified now).
func (wm WorkingMemory) public() WorkingMemory {
	if wm.SecurityLevel == "" {
		wm.SecurityLevel = security.ClassifyText(wm.text(), mnemo.SecurityInternal)
	}
	wm.Topics = nil
	if wm.ContextVariables == nil {
		wm.ContextVariables = map[string]string{}
	}
	return wm
}

// GetWorkingMemory returns a session's working memory (API-10: GET
// /memory/working/{session_id}), or ENOTFOUND when there is none or it has
// been idle past its time.
func (s *Service) GetWorkingMemory(ctx context.Context, scope mnemo.Scope, sessionID string) (WorkingMemory, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return WorkingMemory{}, err
	}
	wm, _, err := statedoc.Get[WorkingMemory](ctx, s.state, scope, mnemo.StateSession, sessionID)
	if mnemo.ErrorCode(err) == mnemo.ENOTFOUND || err == nil && !s.now().Before(wm.ExpiresAt) {
		return WorkingMemory{}, mnemo.Errorf(mnemo.ENOTFOUND, "no working memory for session %q", sessionID)
	}
	if err != nil {
		return WorkingMemory{}, err
	}
	return wm.public(), nil
}

// ListSessions returns the agent's sessions with working memory, most
// recently active first.
func (s *Service) ListSessions(ctx context.Context, scope mnemo.Scope) ([]WorkingMemory, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return nil, err
	}
	docs, err := s.state.ListState(ctx, scope, mnemo.StateSession)
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := []WorkingMemory{}
	for _, d := range docs {
		var wm WorkingMemory
		if err := json.Unmarshal(d.Body, &wm); err != nil {
			return nil, fmt.Errorf("session %q: %w", d.ID, err)
		}
		if now.Before(wm.ExpiresAt) {
			out = append(out, wm.public())
		}
	}
	return out, nil
}

// SessionEnd reports an ended session.
type SessionEnd struct {
	WorkingMemory WorkingMemory `json:"working_memory"`
	// Archived are the memories written from the session's facts.
	Archived []string `json:"archived,omitempty"`
}

// EndSession deletes a session's working memory, first writing its marked
// facts to long-term memory when archive is set.
func (s *Service) EndSession(ctx context.Context, scope mnemo.Scope, sessionID string, archive bool) (SessionEnd, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return SessionEnd{}, err
	}
	return s.endSession(ctx, scope, sessionID, 0, archive)
}

// endSession deletes a session's working memory if it is still at version
// (0: any), archiving its facts first when asked. The facts are written
// before the delete, so that a crash between the two writes them twice at
// worst (as the same key: once), never loses them.
func (s *Service) endSession(ctx context.Context, scope mnemo.Scope, sessionID string, version int64, archive bool) (SessionEnd, error) {
	defer s.locks.Lock(scope, mnemo.StateSession, sessionID)()
	for range statedoc.Retries {
		wm, doc, err := statedoc.Get[WorkingMemory](ctx, s.state, scope, mnemo.StateSession, sessionID)
		if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
			return SessionEnd{}, mnemo.Errorf(mnemo.ENOTFOUND, "no working memory for session %q", sessionID)
		} else if err != nil {
			return SessionEnd{}, err
		}
		if version != 0 && doc.Version != version {
			return SessionEnd{}, mnemo.Errorf(mnemo.ECONFLICT, "session %q had a turn meanwhile", sessionID)
		}
		end := SessionEnd{WorkingMemory: wm.public()}
		if archive && len(wm.Facts) > 0 {
			drafts := make([]mnemo.Draft, len(wm.Facts))
			for i, f := range wm.Facts {
				key := fmt.Sprintf("/session/%s/fact/%d", url.PathEscape(sessionID), i+1)
				drafts[i] = mnemo.Draft{Content: &f, Key: key, Type: mnemo.TypeFact, SessionID: sessionID,
					Source: json.RawMessage(`"auto:session"`), Tags: []string{"session-fact"}}
			}
			ms, err := s.mem.RememberUnguarded(ctx, scope, drafts)
			if err != nil {
				return SessionEnd{}, fmt.Errorf("archiving the facts of session %q: %w", sessionID, err)
			}
			for _, m := range ms {
				end.Archived = append(end.Archived, m.ID)
			}
		}
		ok, err := s.state.DeleteState(ctx, scope, mnemo.StateSession, sessionID, doc.Version)
		if mnemo.ErrorCode(err) == mnemo.ECONFLICT {
			if version != 0 {
				return SessionEnd{}, err
			}
			continue
		} else if err != nil {
			return SessionEnd{}, err
		}
		if !ok {
			return SessionEnd{}, mnemo.Errorf(mnemo.ENOTFOUND, "no working memory for session %q", sessionID)
		}
		return end, nil
	}
	return SessionEnd{}, mnemo.Errorf(mnemo.ECONFLICT, "session %q is being changed by too many writers at once; retry", sessionID)
}

// SweepSessions deletes the working memory of every session, of every
// agent, idle past SessionIdle, archiving marked facts when ArchiveFacts is
// set, and returns how many it deleted. A session that has a turn while it
// is being swept is kept.
func (s *Service) SweepSessions(ctx context.Context) (int, error) {
	n := 0
	for {
		// Idle for SessionIdle or longer, as GetWorkingMemory judges it.
		docs, err := s.state.IdleState(ctx, mnemo.StateSession, s.now().Add(-s.opts.SessionIdle+time.Nanosecond), 256)
		if err != nil {
			return n, err
		}
		swept := 0
		for _, d := range docs {
			_, err := s.endSession(ctx, d.Scope, d.ID, d.Version, s.opts.ArchiveFacts)
			switch mnemo.ErrorCode(err) {
			case "":
				swept++
			case mnemo.ECONFLICT, mnemo.ENOTFOUND: // a turn came, or another sweeper was first
			default:
				return n, err
			}
		}
		n += swept
		if len(docs) < 256 || swept == 0 {
			return n, nil
		}
	}
}

// RuleAnalyzer reads turns without a model: keywords for the topic,
// emotion from cue words (English and Chinese), and variables and facts
// from a few sentence patterns ("my name is …", "remember that …").
type RuleAnalyzer struct{}

// AnalyzeTurn implements TurnAnalyzer.
func (RuleAnalyzer) AnalyzeTurn(_ context.Context, _ *WorkingMemory, t Turn) (TurnAnalysis, error) {
	an := TurnAnalysis{Keywords: analysis.New().Keywords(t.Text, 5)}
	if t.Role != "user" {
		return an, nil
	}
	an.Emotion = "neutral"
	if e, ok := cues.Emotion(strings.ToLower(t.Text)); ok {
		an.Emotion = e
	}
	an.Variables = cues.Variables(t.Text)
	an.Facts = cues.Facts(t.Text)
	return an, nil
}
