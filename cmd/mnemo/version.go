package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// What a release build stamps into the binary with the linker (API-20), e.g.
//
//	go build -ldflags "-X main.buildVersion=v1.2.0 -X main.buildCommit=$(git rev-parse HEAD) -X main.buildDate=$(date -u +%FT%TZ)" ./cmd/mnemo
//
// Left empty, each comes from the build information Go records: the
// module's version (go install …@v1.2.0), and the commit and its time
// when built in a clone.
var (
	buildVersion string
	buildCommit  string
	buildDate    string
)

// buildInfo is what `mnemo version` reports.
type buildInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	Date    string `json:"date,omitempty"`
	// Modified is set when the commit's tree had uncommitted changes.
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// readBuildInfo is the binary's version, commit and date: the linker's
// values where set, else Go's build information.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: "dev"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.Go = bi.GoVersion
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			b.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.Date = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	if buildVersion != "" {
		b.Version = buildVersion
	}
	if buildCommit != "" {
		b.Commit, b.Modified = buildCommit, false
	}
	if buildDate != "" {
		b.Date = buildDate
	}
	return b
}

// version is the binary's version, as the servers report it.
func version() string { return readBuildInfo().Version }

// String is the one line `mnemo version` and `mnemo --version` print:
// "mnemo v1.2.0 (commit 0123abcd…, 2026-11-20T10:00:00Z, go1.26.8)".
func (b buildInfo) String() string {
	var about []string
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if b.Modified {
			c += ", modified"
		}
		about = append(about, "commit "+c)
	}
	if b.Date != "" {
		about = append(about, b.Date)
	}
	if b.Go != "" {
		about = append(about, b.Go)
	}
	s := "mnemo " + b.Version
	if len(about) > 0 {
		s += " (" + strings.Join(about, ", ") + ")"
	}
	return s
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit and the date it was built from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b := readBuildInfo()
			if a.asJSON {
				return a.printJSON(b)
			}
			fmt.Fprintln(a.stdout, b)
			return nil
		},
	}
}
