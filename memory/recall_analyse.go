package memory

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/analysis"
	"github.com/mnemo-dev/mnemo/entity"
	"github.com/mnemo-dev/mnemo/rank"
	"github.com/mnemo-dev/mnemo/security"
	"github.com/mnemo-dev/mnemo/temporal"
)

// checkQuery validates q and fills in its defaults; it returns the ranking
// profile q names and the time it is judged at.
func (s *Service) checkQuery(scope mnemo.Scope, q *Query) (profile rank.Profile, now time.Time, err error) {
	if err := mnemo.CheckScope(scope); err != nil {
		return rank.Profile{}, time.Time{}, err
	}
	if strings.TrimSpace(q.Text) == "" {
		return rank.Profile{}, time.Time{}, mnemo.Errorf(mnemo.EINVALID, "query is empty")
	}
	if q.Limit < 0 {
		return rank.Profile{}, time.Time{}, mnemo.Errorf(mnemo.EINVALID, "limit must not be negative")
	}
	if q.Limit == 0 {
		q.Limit = s.defLimit
	}
	if q.Limit > s.maxLimit {
		return rank.Profile{}, time.Time{}, mnemo.Errorf(mnemo.EINVALID, "limit %d is over the maximum of %d", q.Limit, s.maxLimit)
	}
	if err := checkHops(q.TraverseHops); err != nil {
		return rank.Profile{}, time.Time{}, err
	}
	if q.MinMatch != "" && !rank.ValidMatch(q.MinMatch) {
		return rank.Profile{}, time.Time{}, mnemo.Errorf(mnemo.EINVALID, "min_match must be none, weak or strong, got %q", q.MinMatch)
	}
	profile = s.profile
	if q.Profile != "" {
		p, ok := rank.Profiles()[q.Profile]
		if !ok {
			return rank.Profile{}, time.Time{}, mnemo.Errorf(mnemo.EINVALID, "unknown profile %q", q.Profile)
		}
		profile = p
	}
	if err := mnemo.CheckTime("now", q.Now); err != nil { // TIME-1
		return rank.Profile{}, time.Time{}, err
	}
	now = q.Now
	if now.IsZero() {
		now = s.now()
	}
	now = now.UTC()
	q.Filter.Now = now
	if err := q.Filter.Check(s.now()); err != nil {
		return rank.Profile{}, time.Time{}, err
	}
	return profile, now, nil
}

// analyse is recall's first stage: the time the query names (REC-25) and
// the people it asks about (REC-28), whose words leave the text the
// indexes search, and the index terms of what is left, with the session
// topic's (REC-15).
func (s *Service) analyse(ctx context.Context, r *recall, res *Result) error {
	r.q.Filter = security.ClearanceFrom(ctx).TimeFilter(r.q.Filter)
	r.sq, r.lq = r.q, r.q
	if !s.noTimeWho {
		r.asked = temporal.Query(r.q.Text, r.now)
		if !r.asked.Found {
			// A time placed by another event: "the day after the
			// wedding" (anchor.go).
			if a, ok := s.anchorTime(ctx, r); ok {
				r.asked = a
			}
		}
		r.who = entity.Query(r.q.Text)     // the people it asks about (REC-28)
		r.said = entity.Speakers(r.q.Text) // and who said what it asks for
	}
	if r.asked.Found {
		// Its time leaves the text searched, and its subject and the
		// scaffolding of a question the words the lexical index searches
		// (REC-31, asked.go): the embedder reads the sentence whole. With
		// no words of its own left, it is led by its time.
		topic, own := questionTopic(r.asked.Text, r.who)
		if s.analyzer.Query(own).Empty() {
			r.timeLed, r.sq.Text, r.lq.Text = true, "", ""
		} else {
			r.sq.Text, r.lq.Text = r.asked.Text, topic
		}
	}
	if !r.asked.Found && isQuestion(r.lq.Text) {
		// "Can you remind me what I told you about…": the asking is
		// no part of what is asked about (REC-31).
		if lt := withoutAsking(r.lq.Text); !s.analyzer.Query(lt).Empty() {
			r.lq.Text = lt
		}
	}
	if r.q.Explain && (r.asked.Found || r.asked.When) {
		asked := r.asked
		res.Time = &asked
	}
	if r.q.Explain {
		res.Who = r.who
	}
	var err error
	r.aq, r.topic, err = s.analyseText(ctx, r.scope, r.lq, res)
	return err
}

// analyseText turns q's text into index terms and prefixes, with the words
// of the session's topic added; topic holds those words (nil without one).
// res learns the topic, and the terms when q asks for an explanation.
func (s *Service) analyseText(ctx context.Context, scope mnemo.Scope, q Query, res *Result) (aq analysis.Query, topic map[string]bool, err error) {
	aq = s.analyzer.Query(q.Text)
	if q.Session != "" {
		if sessionTopic := q.SessionTopic; sessionTopic != "" {
			res.Topic = sessionTopic
			topic = make(map[string]bool)
			for _, t := range s.analyzer.Query(sessionTopic).Terms {
				topic[t] = true
				if !slices.Contains(aq.Terms, t) {
					aq.Terms = append(aq.Terms, t)
				}
			}
		}
	}
	if q.Explain {
		res.Terms, res.Prefixes = aq.Terms, aq.Prefixes
	}
	return aq, topic, nil
}
