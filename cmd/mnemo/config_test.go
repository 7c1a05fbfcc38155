package main

import (
	"go.yaml.in/yaml/v3"

	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// fakeEnv is an environment of kv, with a home directory unless kv says
// otherwise: the per-user data directory is under it.
func fakeEnv(kv map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := kv[k]; ok || k != "HOME" {
			return v
		}
		return "/home/test"
	}
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
		"unknown_field":    "line 2: colour: unknown key",
		"typo_key":         "typo_key.bad.yml: line 3: recall.default_limt: unknown key (did you mean recall.default_limit?)",
		"typo_nested":      "line 4: auth.keys[0].secrt: unknown key (did you mean auth.keys[0].secret?)",
		"untrusted":        "limits.untrusted",
		"events_strict":    "events.known_types",
		"synchronous":      "sqlite.synchronous",
		"limit_over_max":   "recall.default_limit",
		"unset_env":        "MNEMO_UNSET_VAR",
		"bad_hash":         "hash",
		"bad_scope":        "scopes",
		"no_tenant":        "tenant",
		"bad_duration":     "forever",
		"tokenizer":        "context.tokenizer",
		"run_token_limit":  "context.run_token_limit",
		"archive_below":    "lifecycle.archive_below",
		"type_quota":       "lifecycle.type_quota.event",
		"llm_no_model":     "base_url and model go together",
		"llm_bad_url":      "llm.base_url",
		"store_backend":    "store.backend",
		"postgres_no_dsn":  "store.postgres.dsn",
		"postgres_bad_dsn": "store.postgres.dsn",
		"read_dsn":         "store.postgres.read_dsn[0]",

		"tenants_unknown_db": `store.postgres.tenants.acme: names database "us", which store.postgres.databases does not list`,
		"tenants_duplicate":  `file: line 9: mapping key "acme" already defined at line 8`,
		"tenants_same_dsn":   "store.postgres.databases.eu: is the same database as store.postgres.dsn",
		"tenants_hash":       `store.postgres.hash[1]: names database "us"`,
		"pool_size":          "store.postgres.pool_size",
		"partitions":         "store.postgres.partitions",
		"ef_search":          "store.postgres.ef_search",
		"spool_key":          "spool",
		"failover_after":     "store.postgres.failover_after",
		"files_history":      "store.files.history",
		"min_successes":      "events.tasks.min_successes",

		"text_relations_queue": "events.text_relations.queue",
		"text_relations_on":    "line 3: events.text_relations.on: unknown key",
		"profile_ladder":       "events.profile.ladder[1]",
		"profile_weekly":       "events.profile.weekly",
		"vectors_keep_for":     "events.vectors.keep_for",
		"media_modality":       "events.vectors.media.smell",
		"media_no_model":       "events.vectors.media.audio: base_url and model are required",
		"media_bad_url":        "events.vectors.media.image",
		"webhook_attempts":     "events.webhook.attempts",
		"relation_pairs":       "events.relations.pairs",
		"backup_no_dir":        "backup.dir",
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".bad.yml")
		_, err := loadConfig(f, fakeEnv(nil), nil)
		if err == nil || !strings.Contains(err.Error(), want[name]) {
			t.Errorf("%s: error %v, want one naming %q", name, err, want[name])
		}
	}
}

// The events section reaches every option of the event layers.
func TestLoadConfigEvents(t *testing.T) {
	path := filepath.Join("testdata", "config", "events.yml")
	if _, err := loadConfig(path, fakeEnv(nil), nil); err == nil || !strings.Contains(err.Error(), "MNEMO_TEST_MEDIA_KEY") {
		t.Fatalf("unset media key: %v", err)
	}
	c, err := loadConfig(path, fakeEnv(map[string]string{"MNEMO_TEST_MEDIA_KEY": "media-s3cret"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.eventOptions()
	if err != nil {
		t.Fatal(err)
	}
	if !o.Strict || len(o.KnownTypes) != 2 || o.ColdAfter != 720*time.Hour {
		t.Errorf("strict, types, cold: %+v", o)
	}
	if r := o.Rules; r.Temporal || !slices.Equal(r.RetrySuffixes, []string{"Again"}) || len(r.StartSuffixes) == 0 ||
		!slices.Equal(r.Pairs["DeployDone"], []string{"DeployBegun"}) {
		t.Errorf("rules = %+v", r)
	}
	if tr := o.TextRelations; !tr.On || tr.Queue != 128 {
		t.Errorf("text relations = %+v", tr)
	}
	if p := o.Profile; !slices.Equal(p.InteractionTypes, []string{"user.message"}) || p.Initial != 20 ||
		!slices.Equal(p.Ladder, []int{2, 4}) || p.PerStage != 3 || p.Weekly != 24*time.Hour {
		t.Errorf("profile = %+v", p)
	}
	v := o.Vectors
	if v.Off || v.KeepFor != 240*time.Hour || v.KeepAccessed != 5 || len(v.Media) != 1 || v.Media["image"] == nil ||
		v.Media["image"].Model() != "openai:clip" || v.Media["image"].Dimension() != 512 {
		t.Errorf("vectors = %+v", v)
	}
	if w := c.webhookOptions(); w.Attempts != 2 || w.Backoff != 50*time.Millisecond || w.MaxBackoff != time.Second ||
		w.Client == nil || w.Client.Timeout != 3*time.Second {
		t.Errorf("webhook = %+v", w)
	}
	// Nothing set: the library's defaults.
	def := defaultConfig()
	if o, err := def.eventOptions(); err != nil || o.Rules == nil || !o.Rules.Temporal || o.TextRelations.On ||
		o.Vectors.Media != nil || o.Profile.InteractionTypes != nil {
		t.Errorf("default event options = %+v, %v", o, err)
	}
	if w := def.webhookOptions(); w.Client != nil || w.Attempts != 0 {
		t.Errorf("default webhook = %+v", w)
	}
	// The media key is a secret.
	t.Setenv("MNEMO_TEST_MEDIA_KEY", "media-s3cret")
	abs, _ := filepath.Abs(path)
	for _, args := range [][]string{{"--config", abs, "config"}, {"--config", abs, "--json", "config"}} {
		code, out, errs := run(t, t.TempDir(), "", args...)
		if code != 0 || strings.Contains(out, "media-s3cret") || !strings.Contains(out, "clip") {
			t.Fatalf("%v: %d %s %s", args, code, out, errs)
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

// The store section: file, environment and flag, in that order of
// precedence; the DSN is a secret.
func TestLoadConfigStore(t *testing.T) {
	path := filepath.Join("testdata", "config", "store_postgres.yml")
	dsn := "postgres://mnemo:pw@db.internal:5432/mnemo?sslmode=require"
	c, err := loadConfig(path, fakeEnv(map[string]string{"MNEMO_TEST_DSN": dsn}), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Store.Postgres
	if c.Store.Backend != BackendPostgres || string(p.DSN) != dsn || p.PoolSize != 8 || p.EfSearch != 200 || !p.RLS ||
		p.Schema != "mnemo_app" || p.Partitions != 16 || c.spoolDir() != "/var/spool/mnemo" || p.FailoverAfter != 1500*time.Millisecond || p.ProbeEvery != 3*time.Second {
		t.Fatalf("store = %+v", c.Store)
	}
	if r := p.ReadDSN.strings(); len(r) != 2 || r[1] != "postgres://mnemo@replica-2:5432/mnemo" || r[0] != "postgres://mnemo:replicapw@replica-1:5432/mnemo" || p.ReadYourWrites != 3*time.Second || p.ReplicaMaxLag != 20*time.Second {
		t.Fatalf("replicas = %v %v %v", r, p.ReadYourWrites, p.ReplicaMaxLag)
	}
	if !p.routed() || string(p.Databases["eu"]) != "postgres://mnemo:eupw@db-eu:5432/mnemo" || p.Tenants["acme"] != "eu" || p.Tenants["globex"] != DefaultDatabase || !slices.Equal(p.Hash, []string{"default", "eu"}) {
		t.Fatalf("tenants = %v %v", p.Databases, p.Tenants)
	}
	var one PostgresConfig
	if err := yaml.Unmarshal([]byte("read_dsn: postgres://r/m"), &one); err != nil || len(one.ReadDSN) != 1 {
		t.Fatalf("one read_dsn: %v %v", one.ReadDSN, err)
	}
	if def := defaultConfig(); def.Store.Backend != BackendSQLite || def.spoolDir() != filepath.Join(def.Data, "spool") || def.filesRoot() != filepath.Join(def.Data, "files") {
		t.Fatalf("defaults: %+v", def.Store)
	}
	env := fakeEnv(map[string]string{"MNEMO_TEST_DSN": dsn, "MNEMO_STORE": "files", "MNEMO_FILES_ROOT": "/srv/memory"})
	if c, err = loadConfig(path, env, nil); err != nil || c.Store.Backend != BackendFiles || c.filesRoot() != "/srv/memory" {
		t.Fatalf("from the environment: %+v %v", c.Store, err)
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("store", "", "")
	fs.Parse([]string{"--store", "memory"})
	if c, err = loadConfig(path, env, fs); err != nil || c.Store.Backend != BackendMemory {
		t.Fatalf("from a flag: %+v %v", c.Store, err)
	}
	fs = pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("store", "", "")
	fs.Parse([]string{"--store", "mysql"})
	if _, err = loadConfig("", fakeEnv(nil), fs); err == nil || !strings.Contains(err.Error(), "store.backend") {
		t.Fatalf("a bad flag: %v", err)
	}
	t.Setenv("MNEMO_TEST_DSN", dsn)
	abs, _ := filepath.Abs(path)
	for _, args := range [][]string{{"--config", abs, "config"}, {"--config", abs, "--json", "config"}} {
		code, out, errs := run(t, t.TempDir(), "", args...)
		if code != 0 || strings.Contains(out, "pw@") || !strings.Contains(out, "mnemo_app") || !strings.Contains(out, "acme") {
			t.Fatalf("%v: %d %s %s", args, code, out, errs)
		}
	}
}

// TestReadmeConfig: the documented example config (docs/DEPLOY.md) loads,
// its commented-out secrets needing no variable.
func TestReadmeConfig(t *testing.T) {
	var docs strings.Builder
	for _, f := range readmeFiles {
		b, err := os.ReadFile(filepath.Join("..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	_, rest, ok := strings.Cut(docs.String(), "```yaml\n# mnemo.yml")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no ```yaml block starting with # mnemo.yml in the README or its guides")
	}
	path := filepath.Join(t.TempDir(), "mnemo.yml")
	if err := os.WriteFile(path, []byte("# mnemo.yml"+block), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := loadConfig(path, fakeEnv(map[string]string{"MNEMO_KEY_SUPPORT": "s3cret-s3cret-s3cret"}), nil)
	if err != nil {
		t.Fatalf("README config: %v", err)
	}
	if c.Limits.Untrusted != "/untrusted" || c.Events.ColdAfter != 2160*time.Hour || c.Events.TextRelations.Queue != 4096 ||
		c.Events.Profile.Initial != 100 || c.Events.Vectors.KeepFor != 720*time.Hour || c.Events.Webhook.Attempts != 5 {
		t.Errorf("README config read as %+v %+v", c.Limits, c.Events)
	}
	if _, err := c.eventOptions(); err != nil {
		t.Errorf("README config's events: %v", err)
	}
}

func TestYAMLCommentAt(t *testing.T) {
	tests := []struct {
		line string
		want int
	}{
		{"a: 1 # note", 5},
		{"# all", 0},
		{"  # dsn: ${X}", 2},
		{"a: \"x # y\" # z", 11},
		{"a: 'x # y'", 10},
		{"a: b#c", 6},
		{"\ta: 1\t# c", 6},
	}
	for _, tt := range tests {
		if got := yamlCommentAt(tt.line); got != tt.want {
			t.Errorf("yamlCommentAt(%q) = %d, want %d", tt.line, got, tt.want)
		}
	}
}

// A typo'd MNEMO_* variable is not ignored in silence (OPS-9).
func TestEnvTypoWarns(t *testing.T) {
	warns := envTypos([]string{"MNEMO_DAAT=/srv/mnemo", "MNEMO_DATA=/x", "MNEMO_KEY_SUPPORT=s3cret", "MNEMO_TEST_PG_DSN=x", "PATH=/bin"})
	if len(warns) != 1 || !strings.Contains(warns[0], "MNEMO_DAAT") || !strings.Contains(warns[0], "did you mean MNEMO_DATA?") || !strings.Contains(warns[0], "MNEMO_STORE") {
		t.Fatalf("warnings: %q", warns)
	}
	a := newApp(strings.NewReader(""), io.Discard, new(bytes.Buffer))
	errs := a.stderr.(*bytes.Buffer)
	a.environ = func() []string { return []string{"MNEMO_AGNET=bot"} }
	if code := a.main(t.Context(), []string{"--data", t.TempDir(), "stats"}); code != 0 || !strings.Contains(errs.String(), "mnemo: warning: environment variable MNEMO_AGNET is not read by mnemo: did you mean MNEMO_AGENT?") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
