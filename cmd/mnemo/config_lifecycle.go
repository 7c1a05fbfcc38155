package main

import "time"

// LifecycleConfig is the lifecycle section: reflect, the sleep cycle
// (LIFE-1, LIFE-2, LIFE-5, LIFE-9), and how often serve runs it.
type LifecycleConfig struct {
	ArchiveBelow       float64        `yaml:"archive_below"`        // tidy: vitality under this is archived (0.1)
	RetentionDays      int            `yaml:"retention_days"`       // 365
	RetentionMinAccess int            `yaml:"retention_min_access"` // 3
	MaxEntries         int            `yaml:"max_entries"`          // 10,000 active memories per agent
	EvictByConfidence  bool           `yaml:"evict_by_confidence"`  // LIFE-7's eviction order
	CompactOver        int            `yaml:"compact_over"`         // a tag with more active memories is merged (50)
	TypeQuota          map[string]int `yaml:"type_quota"`           // govern: at most this many active memories of a type
	Every              time.Duration  `yaml:"every"`                // serve runs reflect for every agent this often (24h; 0 in the file means the default)
	Grace              time.Duration  `yaml:"grace"`                // archived memories restorable this long (720h)
	Schedule           *bool          `yaml:"schedule"`             // serve runs reflect on its own (default true)
}

func defaultLifecycleConfig() LifecycleConfig {
	return LifecycleConfig{ArchiveBelow: 0.1, RetentionDays: 365, RetentionMinAccess: 3, MaxEntries: 10000,
		Every: 24 * time.Hour, Grace: 30 * 24 * time.Hour, CompactOver: 50}
}

// validate checks the lifecycle section.
func (c *LifecycleConfig) validate() error {
	switch {
	case c.ArchiveBelow < 0 || c.ArchiveBelow >= 1:
		return &ConfigError{"lifecycle.archive_below", "must be from 0 to below 1"}
	case c.RetentionDays < 1 || c.RetentionMinAccess < 0 || c.MaxEntries < 1 || c.CompactOver < 2:
		return &ConfigError{"lifecycle", "retention_days and max_entries must be at least 1, compact_over at least 2, retention_min_access not negative"}
	case c.Every < time.Minute || c.Grace < time.Hour:
		return &ConfigError{"lifecycle", "every must be at least 1m and grace at least 1h"}
	}
	for typ, n := range c.TypeQuota {
		if n < 1 {
			return &ConfigError{"lifecycle.type_quota." + typ, "must be at least 1"}
		}
	}
	return nil
}
