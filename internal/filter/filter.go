// Package filter judges a memory against a mnemo.Filter in Go, for the
// stores that filter in Go (inmem) and for the memories the memory
// service brings back from history; the SQL stores filter in SQL.
package filter

import (
	"slices"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/temporal"
)

// Match reports whether m passes f at now, as a store's List judges a
// live memory: a store that filters in Go uses it, and so does the
// Service for memories it brings back from history (REC-27). Expiry is
// judged by ExpiresAt; a store that expires data on its own clock checks
// that too.
func Match(f *mnemo.Filter, m *mnemo.Memory, now time.Time) bool {
	if len(f.Tags) > 0 {
		if f.AllTags {
			for _, t := range f.Tags {
				if !slices.Contains(m.Tags, t) {
					return false
				}
			}
		} else if !slices.ContainsFunc(f.Tags, func(t string) bool { return slices.Contains(m.Tags, t) }) {
			return false
		}
	}
	if len(f.Types) > 0 && !slices.Contains(f.Types, m.Type) {
		return false
	}
	if len(f.Categories) > 0 && !slices.Contains(f.Categories, m.Category) {
		return false
	}
	if f.SessionID != "" && m.SessionID != f.SessionID {
		return false
	}
	if f.KeyPrefix != "" && !mnemo.KeyUnder(m.Key, f.KeyPrefix) {
		return false
	}
	if f.OccurredAfter != nil || f.OccurredBefore != nil { // overlap (REC-25), with an occurrence (REC-30)
		if !temporal.OccurredOverlaps(m.OccurredOf(), temporal.FilterWindow(f)) {
			return false
		}
	}
	if len(f.NotIDs) > 0 && slices.Contains(f.NotIDs, m.ID) {
		return false
	}
	if f.Dated && m.OccurredOf().Source != mnemo.OccurredText && m.OccurredOf().Source != mnemo.OccurredWriter { // REC-29
		return false
	}
	if f.AsOf != nil { // what held then (REC-27)
		if m.CreatedAt.After(*f.AsOf) && m.OccurredOf().Start.After(*f.AsOf) || m.ValidTo != nil && !m.ValidTo.After(*f.AsOf) {
			return false
		}
	}
	if f.CreatedAfter != nil && m.CreatedAt.Before(*f.CreatedAfter) {
		return false
	}
	if f.CreatedBefore != nil && !m.CreatedAt.Before(*f.CreatedBefore) {
		return false
	}
	if f.MinConfidence > 0 && m.Confidence < f.MinConfidence {
		return false
	}
	if f.MinVitality > 0 && m.Vitality < f.MinVitality {
		return false
	}
	if f.Pinned && !m.Pinned {
		return false
	}
	if f.Unpinned && m.Pinned {
		return false
	}
	if len(f.SecurityLevels) > 0 && !slices.Contains(f.SecurityLevels, m.SecurityLevel) {
		return false
	}
	if !f.IncludeArchived && !f.ArchivedOnly && m.Archived {
		return false
	}
	if f.ArchivedOnly && !m.Archived {
		return false
	}
	if !f.IncludeExpired && m.ExpiresAt != nil && !now.Before(*m.ExpiresAt) {
		return false
	}
	return true
}
