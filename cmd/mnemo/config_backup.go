package main

import "time"

// BackupConfig is the backup section: serve's scheduled backups and their
// retention (OPS-14).
type BackupConfig struct {
	Every time.Duration `yaml:"every"` // serve backs the store up this often; 0 (the default) never
	Keep  int           `yaml:"keep"`  // the newest this many scheduled backups are kept (7)
	Dir   string        `yaml:"dir"`   // where scheduled backups go; required with every
}

func defaultBackupConfig() BackupConfig { return BackupConfig{Keep: 7} }

// validate checks the backup section.
func (c *BackupConfig) validate() error {
	switch {
	case c.Every < 0 || c.Every > 0 && c.Every < time.Minute:
		return &ConfigError{"backup.every", "must be 0 (no scheduled backups) or at least 1m"}
	case c.Keep < 1:
		return &ConfigError{"backup.keep", "must be at least 1"}
	case c.Every > 0 && c.Dir == "":
		return &ConfigError{"backup.dir", "is required with backup.every: a directory for the backups, best on another disk than the data"}
	}
	return nil
}
