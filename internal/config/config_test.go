package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
)

// clearEnv unsets the variables that change what a config resolves to.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{"STATE_DIRECTORY", "SLACK_BOT_TOKEN", "WATCHER_CONFIG"} {
		t.Setenv(k, "")
	}
}

func mustParse(t *testing.T, yml string) *Config {
	t.Helper()
	cfg, err := Parse([]byte(yml), filepath.Join(t.TempDir(), "config.yaml"))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return cfg
}

func TestExampleConfig(t *testing.T) {
	clearEnv(t)
	path := filepath.Join("..", "..", "config.example.yaml")
	cfg, err := Load(path)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	if got := len(cfg.Sources); got < 15 {
		t.Errorf("got %d sources, want at least 15", got)
	}
	if got, want := cfg.Database, filepath.Join("..", "..", "watcher.db"); got != want {
		t.Errorf("Database: got %q, want %q (beside the config)", got, want)
	}
	if got, want := cfg.Listen, DefaultListen; got != want {
		t.Errorf("Listen: got %q, want %q", got, want)
	}
	if got, want := cfg.HTTP.UserAgent, DefaultUserAgent(); got != want {
		t.Errorf("UserAgent: got %q, want %q", got, want)
	}
	if got, want := cfg.HTTP.MaxBody, int64(32<<20); got != want {
		t.Errorf("MaxBody: got %d, want %d", got, want)
	}
	if got, want := cfg.Retention.RawSnapshots, 90*24*time.Hour; got != want {
		t.Errorf("RawSnapshots: got %v, want %v", got, want)
	}
	if cfg.SlackConfigured() {
		t.Errorf("SlackConfigured: got true, want false without SLACK_BOT_TOKEN")
	}
	for _, s := range cfg.Sources {
		if s.Timeout != 20*time.Second || s.FailureThreshold != 3 || s.Schedule == "" {
			t.Errorf("source %s: got timeout %v, failure_threshold %d, schedule %q; want inherited 20s, 3, non-empty",
				s.Name, s.Timeout, s.FailureThreshold, s.Schedule)
		}
		if _, err := ParseSchedule(s.Schedule); err != nil {
			t.Errorf("source %s: schedule %q: %v", s.Name, s.Schedule, err)
		}
		if s.Kind != "auto" && !slices.Contains(fetch.Kinds(), s.Kind) {
			t.Errorf("source %s: got kind %q, want auto or a provider that exists (%v)", s.Name, s.Kind, fetch.Kinds())
		}
	}
	if s := cfg.Source("github"); s == nil || s.Schedule != DefaultSchedule || !s.Maintenance {
		t.Errorf("github: got %+v, want the default schedule and maintenance on", s)
	}
	if s := cfg.Source("cloudflare"); s == nil || s.Maintenance {
		t.Errorf("cloudflare: got %+v, want maintenance off", s)
	}
	if s := cfg.Source("twingate"); s == nil || !reflect.DeepEqual(s.Components, []string{"Authentication", "Connector Heartbeat"}) || s.MinImpact != model.ImpactMinor {
		t.Errorf("twingate: got %+v, want its components and min_impact minor", s)
	}
}

func TestDefaults(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	cfg, err := Parse([]byte("sources:\n  - {name: acme, url: https://status.acme.test}\n"), filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Database:    filepath.Join(dir, "watcher.db"),
		Listen:      "127.0.0.1:8080",
		OnFirstPoll: "open",
		Defaults:    Defaults{Schedule: "@every 2m", Timeout: 20 * time.Second, FailureThreshold: 3, Maintenance: true, ComponentChanges: "notify", OpenInterval: 30 * time.Second, MaintenanceReminder: time.Hour},
		HTTP: HTTP{
			UserAgent:   "statuswatch/" + Version + " (+https://github.com/statuswatch/statuswatch)",
			MaxBody:     32 << 20,
			Concurrency: 32,
			PerHost:     4,
		},
		Retention:   Retention{RawSnapshots: 90 * 24 * time.Hour},
		Correlation: Correlation{Window: 30 * time.Minute},
		Slack:       Slack{MaxQueueAge: 24 * time.Hour},
		Sources: []Source{{
			Name: "acme", URL: "https://status.acme.test", Kind: "auto", Schedule: "@every 2m",
			Timeout: 20 * time.Second, Maintenance: true, FailureThreshold: 3, ComponentChanges: "notify",
			OpenInterval: 30 * time.Second, MaintenanceReminder: time.Hour,
		}},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got\n%+v\nwant\n%+v", cfg, want)
	}
}

func TestEmptyConfig(t *testing.T) {
	clearEnv(t)
	for _, in := range []string{"", "# nothing\n", "---\n", "~\n"} {
		cfg, err := Parse([]byte(in), "")
		if err != nil {
			t.Errorf("Parse(%q): got error %v, want defaults", in, err)
			continue
		}
		if cfg.Listen != DefaultListen || cfg.Database != "watcher.db" || len(cfg.Sources) != 0 {
			t.Errorf("Parse(%q): got listen %q, database %q, %d sources; want the defaults", in, cfg.Listen, cfg.Database, len(cfg.Sources))
		}
	}
}

func TestInheritance(t *testing.T) {
	clearEnv(t)
	// defaults come after sources on purpose: order in the file does not matter.
	cfg := mustParse(t, `
sources:
  - name: plain
    url: https://a.test
  - name: own
    url: https://b.test
    schedule: "0 * * * *"
    timeout: 1m
    failure_threshold: 1
    maintenance: true
  - name: off
    url: https://c.test
    maintenance: false
defaults:
  schedule: "@every 5m"
  timeout: 45s
  failure_threshold: 7
  maintenance: false
`)
	tests := []struct {
		name      string
		schedule  string
		timeout   time.Duration
		threshold int
		maint     bool
	}{
		{"plain", "@every 5m", 45 * time.Second, 7, false},
		{"own", "0 * * * *", time.Minute, 1, true},
		{"off", "@every 5m", 45 * time.Second, 7, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := cfg.Source(tt.name)
			if s == nil {
				t.Fatalf("Source(%q): got nil", tt.name)
			}
			if s.Schedule != tt.schedule || s.Timeout != tt.timeout || s.FailureThreshold != tt.threshold || s.Maintenance != tt.maint {
				t.Errorf("got schedule %q timeout %v threshold %d maintenance %v; want %q %v %d %v",
					s.Schedule, s.Timeout, s.FailureThreshold, s.Maintenance, tt.schedule, tt.timeout, tt.threshold, tt.maint)
			}
		})
	}

	t.Run("component_changes", func(t *testing.T) {
		cfg := mustParse(t, "defaults:\n  component_changes: archive\nsources:\n"+
			"  - {name: a, url: 'https://a.test'}\n  - {name: b, url: 'https://b.test', component_changes: notify}\n")
		if a, b := cfg.Source("a").ComponentChanges, cfg.Source("b").ComponentChanges; a != "archive" || b != "notify" {
			t.Errorf("got a %q, b %q; want archive (inherited), notify (its own)", a, b)
		}
		cfg = mustParse(t, "sources:\n  - {name: a, url: 'https://a.test'}\n")
		if got := cfg.Source("a").ComponentChanges; got != "notify" {
			t.Errorf("default: got %q, want notify", got)
		}
	})

	t.Run("maintenance false with default true", func(t *testing.T) {
		cfg := mustParse(t, "sources:\n  - {name: a, url: 'https://a.test', maintenance: false}\n  - {name: b, url: 'https://b.test'}\n")
		if got := cfg.Source("a").Maintenance; got {
			t.Errorf("a: got maintenance %v, want false", got)
		}
		if got := cfg.Source("b").Maintenance; !got {
			t.Errorf("b: got maintenance %v, want true", got)
		}
	})
}

func TestSourceAndModel(t *testing.T) {
	clearEnv(t)
	cfg := mustParse(t, `
slack:
  token: xoxb-1
  channel: "#status"
sources:
  - name: acme
    title: ACME
    url: https://status.acme.test/
    kind: statuspage
    paused: true
    components: [API, "Web UI"]
    min_impact: major
    channel: "#acme"
    headers:
      Authorization: Bearer abc
    endpoints:
      incidents: http://127.0.0.1:9/incidents.json
`)
	s := cfg.Source("acme")
	if s == nil {
		t.Fatal("Source(acme): got nil")
	}
	if cfg.Source("nope") != nil {
		t.Errorf("Source(nope): got non-nil, want nil")
	}
	if !s.Paused || s.MinImpact != model.ImpactMajor || s.Channel != "#acme" || !reflect.DeepEqual(s.Components, []string{"API", "Web UI"}) {
		t.Errorf("got %+v", s)
	}
	got := s.Model()
	want := model.Source{
		Name:        "acme",
		Title:       "ACME",
		URL:         "https://status.acme.test/",
		Kind:        "statuspage",
		Maintenance: true,
		Endpoints:   map[string]string{"incidents": "http://127.0.0.1:9/incidents.json"},
		Headers:     map[string]string{"Authorization": "Bearer abc"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Model: got %+v, want %+v", got, want)
	}
	got.Endpoints["incidents"] = "changed"
	if s.Endpoints["incidents"] == "changed" {
		t.Errorf("Model shares its Endpoints map with the config")
	}
	if !cfg.SlackConfigured() {
		t.Errorf("SlackConfigured: got false, want true with a token")
	}
}

func TestValues(t *testing.T) {
	clearEnv(t)
	cfg := mustParse(t, `
database: data/archive.db
listen: ""
base_url: https://watch.example.test/
on_first_poll: none
http:
  user_agent: acme-watch/1
  max_body: 512KiB
  concurrency: 8
  per_host: 2
  post_quantum: true
retention:
  raw_snapshots: 1d12h
slack:
  webhook_url: https://hooks.slack.test/services/T/B/X
  api_url: http://127.0.0.1:9/api
  max_queue_age: 2d
web:
  allow_remote: yes
`)
	checks := []struct {
		name      string
		got, want any
	}{
		{"database", filepath.Base(filepath.Dir(cfg.Database)) + "/" + filepath.Base(cfg.Database), "data/archive.db"},
		{"database is beside the config", filepath.IsAbs(cfg.Database), true},
		{"listen", cfg.Listen, ""},
		{"base_url", cfg.BaseURL, "https://watch.example.test"},
		{"on_first_poll", cfg.OnFirstPoll, "none"},
		{"user_agent", cfg.HTTP.UserAgent, "acme-watch/1"},
		{"max_body", cfg.HTTP.MaxBody, int64(512 << 10)},
		{"concurrency", cfg.HTTP.Concurrency, 8},
		{"per_host", cfg.HTTP.PerHost, 2},
		{"post_quantum", cfg.HTTP.PostQuantum, true},
		{"raw_snapshots", cfg.Retention.RawSnapshots, 36 * time.Hour},
		{"webhook_url", cfg.Slack.WebhookURL.Value(), "https://hooks.slack.test/services/T/B/X"},
		{"api_url", cfg.Slack.APIURL, "http://127.0.0.1:9/api/"},
		{"max_queue_age", cfg.Slack.MaxQueueAge, 48 * time.Hour},
		{"allow_remote", cfg.Web.AllowRemote, true},
		{"slack configured", cfg.SlackConfigured(), true},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestDatabaseDefault(t *testing.T) {
	tests := []struct {
		name     string
		stateDir string
		yml      string
		want     string // relative to the config's directory unless absolute
	}{
		{"beside the config", "", "", "watcher.db"},
		{"state directory", "/var/lib/watcher", "", "/var/lib/watcher/watcher.db"},
		{"first of several state directories", "/var/lib/watcher:/var/lib/other", "", "/var/lib/watcher/watcher.db"},
		{"explicit absolute", "/var/lib/watcher", "database: /srv/w.db\n", "/srv/w.db"},
		{"explicit relative", "", "database: w.db\n", "w.db"},
		{"from the environment", "/state", "database: ${STATE_DIRECTORY}/x.db\n", "/state/x.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("STATE_DIRECTORY", tt.stateDir)
			dir := t.TempDir()
			cfg, err := Parse([]byte(tt.yml), filepath.Join(dir, "config.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if !filepath.IsAbs(want) {
				want = filepath.Join(dir, want)
			}
			if cfg.Database != want {
				t.Errorf("got %q, want %q", cfg.Database, want)
			}
		})
	}
}

func TestDefaultPath(t *testing.T) {
	t.Run("WATCHER_CONFIG", func(t *testing.T) {
		t.Setenv("WATCHER_CONFIG", "/x/y.yaml")
		if got := DefaultPath(); got != "/x/y.yaml" {
			t.Errorf("got %q, want /x/y.yaml", got)
		}
	})
	t.Run("fallback", func(t *testing.T) {
		t.Setenv("WATCHER_CONFIG", "")
		want := "config.yaml"
		if _, err := os.Stat("/etc/watcher/config.yaml"); err == nil {
			want = "/etc/watcher/config.yaml"
		}
		if got := DefaultPath(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func TestLoadMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.yaml")
	_, err := Load(path)
	if err == nil {
		t.Fatal("got nil error, want one")
	}
	if want := "config " + path + ": no such file or directory (start from config.example.yaml; -config or $WATCHER_CONFIG names another file)"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

func TestExpand(t *testing.T) {
	t.Setenv("WATCH_A", "alpha")
	t.Setenv("WATCH_EMPTY", "")
	t.Setenv("WATCH_INJECT", "x\nlisten: 0.0.0.0:80\nfoo: [")
	os.Unsetenv("WATCH_UNSET")
	tests := []struct {
		in, want string
	}{
		{"plain", "plain"},
		{"${WATCH_A}", "alpha"},
		{"pre-${WATCH_A}-post", "pre-alpha-post"},
		{"${WATCH_A}${WATCH_A}", "alphaalpha"},
		{"${WATCH_UNSET}", ""},
		{"${WATCH_EMPTY}x", "x"},
		{"$WATCH_A", "$WATCH_A"},
		{"pa$$word", "pa$$word"},
		{"$${WATCH_A}", "${WATCH_A}"},
		{"cost: $5", "cost: $5"},
		{"${WATCH_INJECT}", "x\nlisten: 0.0.0.0:80\nfoo: ["},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := expand(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"${", "${WATCH_A", "${}", "${1X}", "${A B}"} {
		t.Run("bad "+bad, func(t *testing.T) {
			if got, err := expand(bad); err == nil {
				t.Errorf("got %q, want an error", got)
			}
		})
	}

	t.Run("in a config", func(t *testing.T) {
		clearEnv(t)
		t.Setenv("SLACK_BOT_TOKEN", "xoxb-from-env")
		t.Setenv("WATCH_URL", "https://status.acme.test")
		t.Setenv("WATCH_CONC", "")
		cfg := mustParse(t, `
slack: {token: "${SLACK_BOT_TOKEN}", channel: "#c"}
http: {concurrency: "${WATCH_CONC}"}
sources:
  - name: acme
    url: ${WATCH_URL}
    title: ${WATCH_A} ${WATCH_UNSET}!
    headers: {X-Token: "${WATCH_A}"}
    components: ["${WATCH_INJECT}"]
`)
		if got := cfg.Slack.Token.Value(); got != "xoxb-from-env" {
			t.Errorf("token: got %q, want xoxb-from-env", got)
		}
		if got := cfg.Sources[0].URL; got != "https://status.acme.test" {
			t.Errorf("url: got %q", got)
		}
		if got := cfg.Sources[0].Title; got != "alpha !" {
			t.Errorf("title: got %q, want %q", got, "alpha !")
		}
		if got := cfg.Sources[0].Headers["X-Token"].Value(); got != "alpha" {
			t.Errorf("header: got %q, want alpha", got)
		}
		if got := cfg.HTTP.Concurrency; got != DefaultConcurrency {
			t.Errorf("concurrency from an empty variable: got %d, want the default %d", got, DefaultConcurrency)
		}
		if got := cfg.Sources[0].Components; len(got) != 1 || got[0] != os.Getenv("WATCH_INJECT") {
			t.Errorf("components: got %q, want the variable's value verbatim", got)
		}
		if cfg.Listen != DefaultListen {
			t.Errorf("listen: got %q; an environment value must not inject YAML", cfg.Listen)
		}
	})
}

func TestSecretFiles(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("token", "xoxb-file\n")
	write("hook", "https://hooks.slack.test/services/S\r\n")
	write("bearer", "bearer-file")
	write("pass", "hunter2\n\n")
	t.Setenv("CREDENTIALS_DIRECTORY", dir)

	cfg, err := Parse([]byte(`
slack:
  token_file: token
  channel: "#c"
web:
  auth:
    bearer_token_file: ${CREDENTIALS_DIRECTORY}/bearer
    basic: {user: admin, password_file: pass}
sources:
  - name: acme
    url: https://status.acme.test
    webhook_url_file: hook
`), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct{ name, got, want string }{
		{"slack.token_file", cfg.Slack.Token.Value(), "xoxb-file"},
		{"web.auth.bearer_token_file", cfg.Web.Auth.BearerToken.Value(), "bearer-file"},
		{"web.auth.basic.password_file", cfg.Web.Auth.Basic.Password.Value(), "hunter2"},
		{"sources[0].webhook_url_file", cfg.Sources[0].WebhookURL.Value(), "https://hooks.slack.test/services/S"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}

	t.Run("webhook_url_file", func(t *testing.T) {
		cfg, err := Parse([]byte("slack:\n  webhook_url_file: hook\n"), filepath.Join(dir, "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.Slack.WebhookURL.Value(); got != "https://hooks.slack.test/services/S" {
			t.Errorf("got %q", got)
		}
	})
}

func TestLargeConfig(t *testing.T) {
	clearEnv(t)
	var b strings.Builder
	b.WriteString("sources:\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "  - name: vendor-%d\n    url: https://status.vendor-%d.test\n    schedule: '*/5 * * * *'\n", i, i)
		b.WriteString("    components: [API, Web, Webhooks, Git Operations, Actions, Packages, Pages, Codespaces, Copilot, Issues]\n")
		b.WriteString("    headers: {X-A: a, X-B: b, X-C: c}\n    min_impact: minor\n    maintenance: false\n")
	}
	cfg := mustParse(t, b.String())
	if got := len(cfg.Sources); got != 2000 {
		t.Errorf("got %d sources, want 2000", got)
	}
	if s := cfg.Source("vendor-1999"); s == nil || len(s.Components) != 10 {
		t.Errorf("vendor-1999: got %+v", s)
	}
}

func TestParseWithoutPath(t *testing.T) {
	clearEnv(t)
	_, err := Parse([]byte("listen: [a\n"), "")
	if want := "config (line 1): did not find expected ',' or ']'"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

// TestFirstPollModes: on_first_poll takes the archive's first-poll policies, by their
// names there, and nothing else.
func TestFirstPollModes(t *testing.T) {
	for _, mode := range []string{archive.FirstPollOpen, archive.FirstPollNone, archive.FirstPollAll} {
		cfg := mustParse(t, "on_first_poll: "+mode+"\n")
		if got := cfg.OnFirstPoll; got != mode {
			t.Errorf("got %q, want %q", got, mode)
		}
	}
	if got, want := mustParse(t, "").OnFirstPoll, archive.FirstPollOpen; got != want {
		t.Errorf("default: got %q, want %q", got, want)
	}
	_, err := Parse([]byte("on_first_poll: some\n"), "")
	want := fmt.Sprintf("must be one of %s, %s, %s", archive.FirstPollOpen, archive.FirstPollNone, archive.FirstPollAll)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
}
