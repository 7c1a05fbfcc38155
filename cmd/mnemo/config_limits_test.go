package main

import "testing"

func TestLimitsConfigValidate(t *testing.T) {
	t.Parallel()
	testSection(t, defaultLimitsConfig, (*LimitsConfig).validate, []sectionCase[LimitsConfig]{
		{"untrusted", func(c *LimitsConfig) { c.Untrusted = "/untrusted" }, ""},
		{"untrusted relative", func(c *LimitsConfig) { c.Untrusted = "untrusted" }, "limits.untrusted"},
		{"untrusted root", func(c *LimitsConfig) { c.Untrusted = "/" }, "limits.untrusted"},
		{"max_content_chars", func(c *LimitsConfig) { c.MaxContentChars = 0 }, "limits.max_content_chars"},
		{"max_message_chars", func(c *LimitsConfig) { c.MaxMessageChars = 0 }, "limits.max_message_chars"},
		{"max_data_bytes", func(c *LimitsConfig) { c.MaxDataBytes = 0 }, "limits.max_data_bytes"},
		{"max_tags", func(c *LimitsConfig) { c.MaxTags = -1 }, "limits.max_tags"},
		{"max_batch", func(c *LimitsConfig) { c.MaxBatch = 0 }, "limits.max_batch"},
	})
}

func TestRecallConfigValidate(t *testing.T) {
	t.Parallel()
	testSection(t, defaultRecallConfig, (*RecallConfig).validate, []sectionCase[RecallConfig]{
		{"default at max", func(c *RecallConfig) { c.DefaultLimit = c.MaxLimit }, ""},
		{"default over max", func(c *RecallConfig) { c.DefaultLimit = c.MaxLimit + 1 }, "recall.default_limit"},
		{"default_limit", func(c *RecallConfig) { c.DefaultLimit = 0 }, "recall.default_limit"},
		{"max_limit", func(c *RecallConfig) { c.MaxLimit = 0 }, "recall.max_limit"},
	})
}
