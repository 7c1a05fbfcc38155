package events

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/cues"
	"github.com/mnemo-dev/mnemo/internal/statedoc"
	"github.com/mnemo-dev/mnemo/internal/textutil"
	"github.com/mnemo-dev/mnemo/security"
)

// The adaptive user profile (EVT-13).
//
// The profile of a scope's user lives in a state document (kind
// "profile", id "user"), so it is shared by every process on the store and
// its Version is the optimistic lock every writer passes: a write names the
// version it read and fails with ECONFLICT when another came first.
//
// Every interaction is recorded (RecordInteraction, or an appended event
// of one of ProfileOptions.InteractionTypes); the profile itself is
// rebuilt from the interactions seen since its last update on a schedule
// that backs off: every interaction for the first 100, then every 1st, 5th,
// 10th and 50th interaction for PerStage updates each (the "1 → 5 → 10 →
// 50" ladder), then weekly. An interaction that shows something new (an
// interest or a need the profile does not hold, found by rules or by the
// configured ProfileAnalyzer) updates it at once and resets the backoff to
// the ladder's first step. Schedule says where a scope stands.

const profileDocID = "user"

// Profile is what is known about a scope's user.
type Profile struct {
	Interests []string          `json:"interests,omitempty"`
	Needs     []string          `json:"needs,omitempty"`
	Traits    map[string]string `json:"traits,omitempty"`   // name, location, language, timezone
	Emotions  map[string]int    `json:"emotions,omitempty"` // how often each was seen
	UpdatedAt time.Time         `json:"updated_at,omitzero"`
}

// ProfileSchedule is where a profile stands in its update schedule.
type ProfileSchedule struct {
	Interactions int64 `json:"interactions"` // recorded in all
	Updates      int64 `json:"updates"`      // of the profile in all
	// Phase is "initial" (every interaction), "backoff" (every Every-th)
	// or "weekly".
	Phase        string    `json:"phase"`
	Stage        int       `json:"stage"`         // index in the ladder, in the backoff phase
	Every        int       `json:"every"`         // interactions per update; 0 when weekly
	StageUpdates int       `json:"stage_updates"` // updates made at this stage
	SinceUpdate  int       `json:"since_update"`  // interactions since the last update
	LastUpdate   time.Time `json:"last_update,omitzero"`
	// NextIn is how many more interactions bring the next update (0 when
	// weekly); NextAt is when the next weekly update is due.
	NextIn int       `json:"next_in,omitempty"`
	NextAt time.Time `json:"next_at,omitzero"`
	// Reason says why the last update happened: "initial", "backoff",
	// "weekly", "significant: ..." or "manual".
	Reason string `json:"reason,omitempty"`
}

// ProfileRecord is the stored profile with its schedule and the
// interactions waiting for the next update.
type ProfileRecord struct {
	Version  int64           `json:"version"`
	Profile  Profile         `json:"profile"`
	Schedule ProfileSchedule `json:"schedule"`
	Pending  []string        `json:"pending,omitempty"`
	// SecurityLevel is the highest level of the interactions the profile
	// was built from and of what it holds (SEC-11), by the memories'
	// classifier; a manual replacement starts it again from what it
	// holds. A record stored before levels were kept is classified when
	// read.
	SecurityLevel string `json:"security_level"`
}

// text is what a profile record holds that came from the user's words.
func (rec *ProfileRecord) text() string {
	parts := slices.Concat(rec.Pending, rec.Profile.Interests, rec.Profile.Needs)
	for _, k := range slices.Sorted(maps.Keys(rec.Profile.Traits)) {
		parts = append(parts, k+": "+rec.Profile.Traits[k])
	}
	return strings.Join(parts, "\n")
}

// classify raises the record's level to what it holds and what came in
// calls for (SEC-11).
func (rec *ProfileRecord) classify(in ...string) {
	level := security.ClassifyText(strings.Join(in, "\n"), cmp.Or(rec.SecurityLevel, mnemo.SecurityInternal))
	rec.SecurityLevel = security.ClassifyText(rec.text(), level)
}

// Conceal masks what a profile holds of the user's words — the pending
// interactions, interests, needs, traits and what a significant update
// found — when c may not read its level (SEC-8, SEC-11). The rest of the
// schedule and the emotions' counts stay.
func (rec *ProfileRecord) Conceal(c security.Clearance) {
	l := rec.SecurityLevel
	if !c.Conceals(l) {
		return
	}
	mask := func(list []string) []string {
		if list == nil {
			return nil
		}
		out := make([]string, len(list))
		for i, t := range list {
			out[i] = c.Field(l, t)
		}
		return out
	}
	rec.Pending, rec.Profile.Interests, rec.Profile.Needs = mask(rec.Pending), mask(rec.Profile.Interests), mask(rec.Profile.Needs)
	if what, ok := strings.CutPrefix(rec.Schedule.Reason, "significant: "); ok { // names the new interest or need
		rec.Schedule.Reason = "significant: " + c.Field(l, what)
	}
	if rec.Profile.Traits != nil {
		traits := make(map[string]string, len(rec.Profile.Traits))
		for k, v := range rec.Profile.Traits {
			traits[k] = c.Field(l, v)
		}
		rec.Profile.Traits = traits
	}
}

// ProfileFindings are what one interaction says about the user.
type ProfileFindings struct {
	Interests []string          `json:"interests"`
	Needs     []string          `json:"needs"`
	Traits    map[string]string `json:"traits,omitempty"`
	Emotion   string            `json:"emotion,omitempty"`
}

// ProfileAnalyzer reads interactions for a profile: an LLM.
type ProfileAnalyzer interface {
	AnalyzeProfile(ctx context.Context, texts []string) (ProfileFindings, error)
}

// ProfileOptions configure the adaptive profile.
type ProfileOptions struct {
	// Initial is how many interactions update the profile each (0: 100).
	Initial int
	// Ladder are the intervals of the backoff phase (none: 1, 5, 10, 50),
	// PerStage the updates made at each step (0: 10), Weekly the interval
	// after the ladder (0: 7 days).
	Ladder   []int
	PerStage int
	Weekly   time.Duration
	// Analyzer reads interactions when set; rules do otherwise, and when
	// it fails.
	Analyzer ProfileAnalyzer
	// InteractionTypes are event types that record an interaction when
	// appended (in the background); none: only RecordInteraction does.
	InteractionTypes []string
}

func (o ProfileOptions) withDefaults() ProfileOptions {
	if o.Initial <= 0 {
		o.Initial = 100
	}
	if len(o.Ladder) == 0 {
		o.Ladder = []int{1, 5, 10, 50}
	}
	if o.PerStage <= 0 {
		o.PerStage = 10
	}
	if o.Weekly <= 0 {
		o.Weekly = 7 * 24 * time.Hour
	}
	return o
}

// maxPending bounds the interactions kept for the next update.
const maxPending = 50

// Profile returns the scope's profile and schedule; a scope without one
// gets an empty record at version 0.
func (s *Service) Profile(ctx context.Context, scope mnemo.Scope) (ProfileRecord, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return ProfileRecord{}, err
	}
	doc, err := s.state.GetState(ctx, scope, mnemo.StateProfile, profileDocID)
	if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
		rec := ProfileRecord{}
		s.plan(&rec.Schedule)
		rec.classify()
		return rec, nil
	} else if err != nil {
		return ProfileRecord{}, err
	}
	var rec ProfileRecord
	if err := json.Unmarshal(doc.Body, &rec); err != nil {
		return ProfileRecord{}, fmt.Errorf("profile: %w", err)
	}
	rec.Version = doc.Version
	if rec.SecurityLevel == "" {
		rec.classify()
	}
	return rec, nil
}

// PutProfile replaces the profile as of version, the Version of the
// record it was read from (0: there is none yet), and returns the stored
// record. ECONFLICT when another writer changed it meanwhile: read it
// again and reapply.
func (s *Service) PutProfile(ctx context.Context, scope mnemo.Scope, version int64, p Profile) (ProfileRecord, error) {
	rec, err := s.Profile(ctx, scope)
	if err != nil {
		return ProfileRecord{}, err
	}
	if rec.Version != version {
		return ProfileRecord{}, mnemo.Errorf(mnemo.ECONFLICT, "the profile is at version %d, not %d: another writer changed it; read it again", rec.Version, version)
	}
	p.UpdatedAt = s.now().UTC()
	rec.Profile = p
	rec.Schedule.Reason = "manual"
	rec.SecurityLevel = ""
	rec.classify()
	return rec, s.putProfile(ctx, scope, &rec)
}

func (s *Service) putProfile(ctx context.Context, scope mnemo.Scope, rec *ProfileRecord) error {
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	v, err := s.state.PutState(ctx, scope, mnemo.StateDoc{Kind: mnemo.StateProfile, ID: profileDocID, Version: rec.Version, Body: body, UpdatedAt: s.now().UTC()})
	if mnemo.ErrorCode(err) == mnemo.ECONFLICT {
		return mnemo.Errorf(mnemo.ECONFLICT, "the profile changed since version %d was read: another writer came first; read it again", rec.Version)
	}
	if err != nil {
		return err
	}
	rec.Version = v
	return nil
}

// RecordInteraction counts one interaction of the scope's user with text,
// updates the profile when the schedule or a significant change says so,
// and returns the record and whether it updated. Concurrent writers of one
// profile are settled by its version: the loser reads again and retries.
func (s *Service) RecordInteraction(ctx context.Context, scope mnemo.Scope, text string) (ProfileRecord, bool, error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return ProfileRecord{}, false, err
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return ProfileRecord{}, false, mnemo.Errorf(mnemo.EINVALID, "an interaction needs its text")
	}
	if len(text) > mnemo.MaxEventData {
		return ProfileRecord{}, false, mnemo.Errorf(mnemo.ETOOLARGE, "an interaction's text is at most %d bytes", mnemo.MaxEventData)
	}
	opts := s.events.Profile
	// Read the text once, outside the retries: a model is slow.
	found := s.readInteraction(ctx, []string{text})
	defer s.locks.Lock(scope, mnemo.StateProfile, profileDocID)()
	for range statedoc.Retries {
		rec, err := s.Profile(ctx, scope)
		if err != nil {
			return ProfileRecord{}, false, err
		}
		now := s.now().UTC()
		sch := &rec.Schedule
		sch.Interactions++
		sch.SinceUpdate++
		rec.Pending = append(rec.Pending, textutil.TruncateRunes(text, 500))
		rec.classify(text)
		if len(rec.Pending) > maxPending {
			rec.Pending = rec.Pending[len(rec.Pending)-maxPending:]
		}
		news := significant(rec.Profile, found)
		var reason string
		switch {
		case news != "":
			reason = "significant: " + news
			sch.Phase, sch.Stage, sch.StageUpdates = "backoff", 0, 0
			if sch.Interactions <= int64(opts.Initial) {
				sch.Phase = "initial"
			}
		case sch.Phase == "" || sch.Phase == "initial":
			reason = "initial"
		case sch.Phase == "weekly":
			if now.Sub(sch.LastUpdate) >= opts.Weekly {
				reason = "weekly"
			}
		case sch.SinceUpdate >= opts.Ladder[min(sch.Stage, len(opts.Ladder)-1)]:
			reason = "backoff"
		}
		updated := reason != ""
		if updated {
			texts := rec.Pending
			f := found
			if len(texts) > 1 {
				f = s.readInteraction(ctx, texts)
			}
			applyFindings(&rec.Profile, f, now)
			rec.classify()
			rec.Pending = nil
			sch.Updates++
			sch.SinceUpdate = 0
			sch.LastUpdate = now
			sch.Reason = reason
			s.advance(sch)
		}
		s.plan(sch)
		err = s.putProfile(ctx, scope, &rec)
		if mnemo.ErrorCode(err) == mnemo.ECONFLICT {
			continue // another process came first: from its record again
		}
		if err != nil {
			return ProfileRecord{}, false, err
		}
		return rec, updated, nil
	}
	return ProfileRecord{}, false, mnemo.Errorf(mnemo.ECONFLICT, "the profile is being changed by too many writers at once; retry")
}

// advance moves the schedule after an update.
func (s *Service) advance(sch *ProfileSchedule) {
	opts := s.events.Profile
	switch sch.Phase {
	case "", "initial":
		sch.Phase = "initial"
		if sch.Interactions >= int64(opts.Initial) {
			sch.Phase, sch.Stage, sch.StageUpdates = "backoff", min(1, len(opts.Ladder)-1), 0
		}
	case "backoff":
		sch.StageUpdates++
		if sch.StageUpdates >= opts.PerStage {
			sch.Stage++
			sch.StageUpdates = 0
			if sch.Stage >= len(opts.Ladder) {
				sch.Phase, sch.Stage = "weekly", 0
			}
		}
	}
}

// plan fills the schedule's derived fields.
func (s *Service) plan(sch *ProfileSchedule) {
	opts := s.events.Profile
	if sch.Phase == "" {
		sch.Phase = "initial"
	}
	sch.NextAt = time.Time{}
	switch sch.Phase {
	case "initial":
		sch.Every, sch.NextIn = 1, 1
	case "backoff":
		sch.Every = opts.Ladder[min(sch.Stage, len(opts.Ladder)-1)]
		sch.NextIn = max(sch.Every-sch.SinceUpdate, 1)
	case "weekly":
		sch.Every, sch.NextIn = 0, 0
		sch.NextAt = sch.LastUpdate.Add(opts.Weekly)
	}
}

// readInteraction reads texts with the analyzer, or the rules.
func (s *Service) readInteraction(ctx context.Context, texts []string) ProfileFindings {
	if a := s.events.Profile.Analyzer; a != nil {
		f, err := a.AnalyzeProfile(ctx, texts)
		if err == nil {
			return f
		}
		s.log.Warn("the model could not read the interaction; rules did", "err", err)
	}
	return ProfileRules(texts)
}

// significant names what findings add to p: a new interest or need.
func significant(p Profile, f ProfileFindings) string {
	for _, i := range f.Interests {
		if !containsFold(p.Interests, i) {
			return "new interest " + i
		}
	}
	for _, n := range f.Needs {
		if !containsFold(p.Needs, n) {
			return "new need " + n
		}
	}
	return ""
}

func applyFindings(p *Profile, f ProfileFindings, now time.Time) {
	for _, i := range f.Interests {
		if !containsFold(p.Interests, i) {
			p.Interests = append(p.Interests, i)
		}
	}
	for _, n := range f.Needs {
		if !containsFold(p.Needs, n) {
			p.Needs = append(p.Needs, n)
		}
	}
	for k, v := range f.Traits {
		if p.Traits == nil {
			p.Traits = map[string]string{}
		}
		p.Traits[k] = v
	}
	if f.Emotion != "" && f.Emotion != "neutral" {
		if p.Emotions == nil {
			p.Emotions = map[string]int{}
		}
		p.Emotions[f.Emotion]++
	}
	p.UpdatedAt = now
}

var (
	interestPatterns = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bi(?:'m| am)? (?:really )?(?:like|love|enjoy|into|interested in|fascinated by|passionate about)\s+([\p{L}\p{N}][\p{L}\p{N} '-]{1,40}?)(?:[,.;!?]|\s+(?:and|but|because)\b|$)`),
		regexp.MustCompile(`(?:我(?:很|非常|特别)?(?:喜欢|热爱|爱|对)|我的爱好是)\s*([\p{Han}A-Za-z0-9]{1,12}?)(?:感兴趣|[，。,.!！\s]|$)`),
	}
	needPatterns = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bi (?:need|want|am looking for|'m looking for|have to find)\s+(?:a |an |the |to )?([\p{L}\p{N}][\p{L}\p{N} '-]{1,40}?)(?:[,.;!?]|\s+(?:and|but|because|for)\b|$)`),
		regexp.MustCompile(`(?:我(?:需要|想要|在找|要找))\s*([\p{Han}A-Za-z0-9]{1,12}?)(?:[，。,.!！\s]|$)`),
	}
)

// ProfileRules read interactions without a model: interests ("I love
// hiking", "我喜欢爬山"), needs ("I need a new laptop", "我需要一台电脑"),
// traits (name, location, language, timezone: the session rules') and
// the emotion of the last text.
func ProfileRules(texts []string) ProfileFindings {
	var f ProfileFindings
	add := func(list *[]string, v string) {
		v = strings.ToLower(strings.TrimSpace(v))
		if v != "" && !containsFold(*list, v) {
			*list = append(*list, v)
		}
	}
	for _, t := range texts {
		for _, re := range interestPatterns {
			for _, m := range re.FindAllStringSubmatch(t, 4) {
				add(&f.Interests, m[1])
			}
		}
		for _, re := range needPatterns {
			for _, m := range re.FindAllStringSubmatch(t, 4) {
				add(&f.Needs, m[1])
			}
		}
		for k, v := range cues.Variables(t) {
			if f.Traits == nil {
				f.Traits = map[string]string{}
			}
			f.Traits[k] = v
		}
		// As the rule turn analyzer reads a user's turn: neutral when no cue.
		e, ok := cues.Emotion(strings.ToLower(t))
		if !ok {
			e = "neutral"
		}
		f.Emotion = e
	}
	return f
}
