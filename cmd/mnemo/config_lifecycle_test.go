package main

import (
	"testing"
	"time"
)

func TestLifecycleConfigValidate(t *testing.T) {
	t.Parallel()
	testSection(t, defaultLifecycleConfig, (*LifecycleConfig).validate, []sectionCase[LifecycleConfig]{
		{"type_quota", func(c *LifecycleConfig) { c.TypeQuota = map[string]int{"event": 100} }, ""},
		{"archive_below", func(c *LifecycleConfig) { c.ArchiveBelow = 1 }, "lifecycle.archive_below"},
		{"retention_days", func(c *LifecycleConfig) { c.RetentionDays = 0 }, "lifecycle"},
		{"compact_over", func(c *LifecycleConfig) { c.CompactOver = 1 }, "lifecycle"},
		{"every", func(c *LifecycleConfig) { c.Every = time.Second }, "lifecycle"},
		{"grace", func(c *LifecycleConfig) { c.Grace = time.Minute }, "lifecycle"},
		{"type_quota zero", func(c *LifecycleConfig) { c.TypeQuota = map[string]int{"event": 0} }, "lifecycle.type_quota.event"},
	})
}
