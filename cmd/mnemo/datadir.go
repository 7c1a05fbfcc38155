package main

import (
	"path/filepath"
	"runtime"
)

// defaultDataDir is where the store lives when nothing says otherwise
// (API-16): one directory per user, the platform's place for an
// application's data, so that the CLI, `mnemo mcp` and `mnemo serve` use
// the same store from whichever directory they start in.
//
//	Linux and other Unix: $XDG_DATA_HOME/mnemo, else ~/.local/share/mnemo
//	macOS:                ~/Library/Application Support/mnemo
//	Windows:              %LocalAppData%\mnemo
func defaultDataDir(getenv func(string) string) (string, error) {
	switch runtime.GOOS {
	case "windows":
		for _, v := range []string{"LocalAppData", "AppData"} {
			if d := getenv(v); d != "" {
				return filepath.Join(d, "mnemo"), nil
			}
		}
		return "", &ConfigError{"data", "%LocalAppData% is not set, so there is no per-user data directory: choose one with --data or $MNEMO_DATA"}
	case "darwin", "ios":
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, "Library", "Application Support", "mnemo"), nil
		}
	default:
		// The XDG Base Directory spec ignores a relative $XDG_DATA_HOME.
		if x := getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
			return filepath.Join(x, "mnemo"), nil
		}
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, ".local", "share", "mnemo"), nil
		}
	}
	return "", &ConfigError{"data", "$HOME is not set, so there is no per-user data directory: choose one with --data or $MNEMO_DATA"}
}
