package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func fakeEnv(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestLoadConfigGood(t *testing.T) {
	env := fakeEnv(map[string]string{"MNEMO_TEST_KEY": "s3cret-s3cret-s3cret", "MNEMO_AGENT": "from-env"})
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("data", "", "")
	fs.String("agent", "", "")
	fs.String("tenant", "", "")
	fs.String("log-level", "", "")
	fs.Parse([]string{"--data", "/from/flag"})
	c, err := loadConfig(filepath.Join("testdata", "config", "good.yml"), env, fs)
	if err != nil {
		t.Fatal(err)
	}
	// Precedence: flag > env > file > default.
	if c.Data != "/from/flag" || c.Agent != "from-env" || c.Addr != "127.0.0.1:9000" || c.Tenant != "default" {
		t.Fatalf("precedence: %+v", c)
	}
	if c.SQLite.Synchronous != "NORMAL" || c.Limits.MaxContentChars != 4000 || c.Limits.MaxTags != 32 ||
		c.Recall.DefaultLimit != 8 || c.Recall.Profile != "lexical" || c.HTTP.Timeout != 10*time.Second ||
		len(c.Auth.Keys) != 2 || c.Auth.Keys[0].Secret != "s3cret-s3cret-s3cret" {
		t.Fatalf("config = %+v", c)
	}
	if r := c.taskRules(); r.MinSuccesses != 5 || r.TaskField != "job" || len(r.SuccessStatuses) != 2 || r.FailureSuffixes != nil {
		t.Fatalf("task rules = %+v", r)
	}
}

func TestLoadConfigBad(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "config", "*.bad.yml"))
	if len(files) == 0 {
		t.Fatal("no bad fixtures")
	}
	want := map[string]string{
		"unknown_field":   "colour",
		"synchronous":     "sqlite.synchronous",
		"limit_over_max":  "recall.default_limit",
		"unset_env":       "MNEMO_UNSET_VAR",
		"bad_hash":        "hash",
		"bad_scope":       "scopes",
		"no_tenant":       "tenant",
		"bad_duration":    "forever",
		"tokenizer":       "context.tokenizer",
		"run_token_limit": "context.run_token_limit",
		"archive_below":   "lifecycle.archive_below",
		"type_quota":      "lifecycle.type_quota.event",
		"llm_no_model":    "base_url and model go together",
		"llm_bad_url":     "llm.base_url",
		"min_successes":   "events.tasks.min_successes",
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".bad.yml")
		_, err := loadConfig(f, fakeEnv(nil), nil)
		if err == nil || !strings.Contains(err.Error(), want[name]) {
			t.Errorf("%s: error %v, want one naming %q", name, err, want[name])
		}
	}
}

func TestConfigCommandHidesSecrets(t *testing.T) {
	t.Setenv("MNEMO_TEST_KEY", "s3cret-s3cret-s3cret")
	path, _ := filepath.Abs(filepath.Join("testdata", "config", "good.yml"))
	for _, args := range [][]string{{"--config", path, "config"}, {"--config", path, "--json", "config"}} {
		code, out, errs := run(t, t.TempDir(), "", args...)
		if code != 0 || strings.Contains(out, "s3cret") || !strings.Contains(out, "<secret>") || !strings.Contains(out, "support-bot") {
			t.Fatalf("%v: %d %s %s", args, code, out, errs)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.yml")
	os.WriteFile(bad, []byte("nope: 1\n"), 0o644)
	if code, _, errs := run(t, t.TempDir(), "", "--config", bad, "stats"); code != 2 || !strings.Contains(errs, "nope") {
		t.Fatalf("bad config: %d %s", code, errs)
	}
}
