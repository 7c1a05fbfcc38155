package main

import (
	"testing"
	"time"
)

func TestBackupConfigValidate(t *testing.T) {
	testSection(t, defaultBackupConfig, (*BackupConfig).validate, []sectionCase[BackupConfig]{
		{"scheduled", func(c *BackupConfig) { c.Every, c.Dir = time.Hour, "/backups" }, ""},
		{"every negative", func(c *BackupConfig) { c.Every = -time.Hour }, "backup.every"},
		{"every too often", func(c *BackupConfig) { c.Every, c.Dir = time.Second, "/backups" }, "backup.every"},
		{"keep none", func(c *BackupConfig) { c.Keep = 0 }, "backup.keep"},
		{"no dir", func(c *BackupConfig) { c.Every = time.Hour }, "backup.dir"},
	})
}
