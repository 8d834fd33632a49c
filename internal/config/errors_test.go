package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// src is a valid source entry for the error tests, two lines long.
const src = "sources:\n  - name: acme\n    url: https://status.acme.test\n"

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("xoxb-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notpem"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		yml  string
		want string
	}{
		// Structure.
		{"unknown top-level key", "listen: 127.0.0.1:1\nlistne: x\n",
			`listne (line 2): unknown key (did you mean "listen"?)`},
		{"unknown key far from any", "zzz: 1\n",
			`zzz (line 1): unknown key`},
		{"unknown key in a source", src + "    shedule: '@hourly'\n",
			`sources[0].shedule (line 4): unknown key (did you mean "schedule"?)`},
		{"unknown key in defaults", "defaults:\n  timeout: 1s\n  retries: 3\n",
			`defaults.retries (line 3): unknown key`},
		{"unknown key in web.auth.basic", "web:\n  auth:\n    basic:\n      username: a\n",
			`web.auth.basic.username (line 4): unknown key`},
		{"unknown key in slack", "slack:\n  tokenfile: /x\n",
			`slack.tokenfile (line 2): unknown key (did you mean "token_file"?)`},
		{"duplicate key", "listen: 127.0.0.1:1\nlisten: 127.0.0.1:2\n",
			`listen (line 2): duplicate key (first at line 1)`},
		{"root not a mapping", "- a\n- b\n",
			`config.yaml (line 1): expected a mapping, found a list`},
		{"section not a mapping", "http: 5\n",
			`http (line 1): expected a mapping, found a single value`},
		{"sources not a list", "sources:\n  name: acme\n",
			`sources (line 2): expected a list, found a mapping`},
		{"source not a mapping", "sources:\n  - acme\n",
			`sources[0] (line 2): expected a mapping with name and url, found a single value`},
		{"scalar expected", "listen: [a, b]\n",
			`listen (line 1): expected a single value, found a list`},
		{"syntax error", "listen: [a\n",
			`config.yaml (line 1): did not find expected ',' or ']'`},
		// The YAML parser names the line where the enclosing list or mapping began.
		{"key indented too little", "listen: ''\nsources:\n  - name: a\n    url: https://a.test\n  - name: b\n   url: https://b.test\n",
			`config.yaml (line 6): did not find expected '-' indicator`},
		{"key indented too little, first lines", "sources:\n  - name: a\n   url: https://a.test\n",
			`config.yaml (line 3): did not find expected '-' indicator`},
		{"list never closed", src + "    components: [API, Web\n  - name: b\n    url: https://b.test\n",
			`config.yaml (line 4): did not find expected ',' or ']'`},
		{"key out of a mapping", "defaults:\n  timeout: 1s\n schedule: '@hourly'\n",
			`config.yaml (line 3): did not find expected key`},
		{"list item among keys", "listen: ''\n- acme\n",
			`config.yaml (line 2): did not find expected key`},
		{"quote never closed", src + "    title: \"Acme\n  - name: b\n    url: https://b.test\n",
			`config.yaml (line 4): found unexpected end of stream`},
		{"tab", "listen: ''\n\tdefaults: {}\n",
			`config.yaml (line 2): found character that cannot start any token (a tab in the indentation: YAML indents with spaces)`},
		{"tab in a mapping", "defaults:\n  timeout: 1s\n\tschedule: '@hourly'\n",
			`config.yaml (line 3): found a tab character that violates indentation`},
		{"two documents", "listen: a:1\n---\nlisten: b:2\n",
			`config.yaml (line 2): more than one YAML document; watcher reads one`},
		{"syntax error in a second document", "listen: a:1\n---\nlisten: [b\n",
			`config.yaml (line 3): did not find expected ',' or ']'`},

		// Sources.
		{"name missing", "sources:\n  - url: https://a.test\n",
			`sources[0].name (line 2): required`},
		{"url missing", "sources:\n  - name: a\n",
			`sources[0].url (line 2): required`},
		{"name pattern", "sources:\n  - name: Acme\n    url: https://a.test\n",
			`sources[0].name (line 2): must match [a-z0-9][a-z0-9_-]*, found "Acme"`},
		{"name leading dash", "sources:\n  - name: -a\n    url: https://a.test\n",
			`sources[0].name (line 2): must match [a-z0-9][a-z0-9_-]*, found "-a"`},
		{"duplicate name", src + "  - name: b\n    url: https://b.test\n  - name: acme\n    url: https://c.test\n",
			`sources[2].name (line 6): duplicate source name "acme" (first at sources[0], line 2)`},
		{"url relative", "sources:\n  - name: a\n    url: status.acme.test\n",
			`sources[0].url (line 3): must be an absolute http or https URL, found "status.acme.test"`},
		{"url scheme", "sources:\n  - name: a\n    url: ftp://status.acme.test\n",
			`sources[0].url (line 3): must be an absolute http or https URL, found "ftp://status.acme.test"`},
		{"url feed without host", "sources:\n  - name: a\n    kind: feed\n    url: https:///feed.atom\n",
			`sources[0].url (line 4): must be an absolute http or https URL, found "https:///feed.atom"`},
		{"url with credentials", "sources:\n  - name: a\n    url: https://u:pw@a.test\n",
			`sources[0].url (line 3): must not carry credentials; use headers (they are kept secret)`},
		{"endpoint not absolute", src + "    endpoints:\n      incidents: /api/v2/incidents.json\n",
			`sources[0].endpoints.incidents (line 5): must be an absolute http or https URL, found "/api/v2/incidents.json"`},
		{"kind", src + "    kind: atlassian\n",
			`sources[0].kind (line 4): must be one of auto, aws, azure, betterstack, cachet, feed, gcp, incidentio, instatus, slack, statusio, statuspage, found "atlassian"`},
		{"min_impact", src + "    min_impact: high\n",
			`sources[0].min_impact (line 4): must be one of none, minor, major, critical, found "high"`},
		{"component_changes misspelt", src + "    component_changes: notfy\n",
			`sources[0].component_changes (line 4): must be one of notify, archive, found "notfy" (did you mean notify?)`},
		{"component_changes far from any", src + "    component_changes: quiet\n",
			`sources[0].component_changes (line 4): must be one of notify, archive, found "quiet"`},
		{"component_changes in defaults", "defaults:\n  component_changes: Archiv\n",
			`defaults.component_changes (line 2): must be one of notify, archive, found "Archiv" (did you mean archive?)`},
		{"schedule field count", "\n\n" + src + "    schedule: '* * *'\n",
			`sources[0].schedule (line 6): expected exactly 5 fields, found 3`},
		{"schedule CRON_TZ panic", src + "    schedule: CRON_TZ=UTC\n",
			`sources[0].schedule (line 4): CRON_TZ=UTC needs a schedule after it`},
		{"schedule TZ= panic", src + "    schedule: TZ=\n",
			`sources[0].schedule (line 4): TZ= needs a schedule after it`},
		{"schedule nested TZ panic", src + "    schedule: TZ=UTC TZ=\n",
			`sources[0].schedule (line 4): invalid schedule "TZ="`},
		{"schedule every too short", src + "    schedule: '@every 500ms'\n",
			`sources[0].schedule (line 4): @every 500ms is below the minimum of 1s`},
		{"schedule bad descriptor", src + "    schedule: '@fortnightly'\n",
			`sources[0].schedule (line 4): unrecognized descriptor: @fortnightly`},
		{"schedule out of range", src + "    schedule: '61 * * * *'\n",
			`sources[0].schedule (line 4): end of range (61) above maximum (59): 61`},
		{"defaults schedule", "defaults:\n  schedule: every 2m\n",
			`defaults.schedule (line 2): expected exactly 5 fields, found 2 (did you mean "@every 2m"?)`},
		{"schedule descriptor without @", src + "    schedule: hourly\n",
			`sources[0].schedule (line 4): expected exactly 5 fields, found 1 (did you mean "@hourly"?)`},
		{"timeout zero", src + "    timeout: 0s\n",
			`sources[0].timeout (line 4): must be above 0, found 0s`},
		{"timeout bad", src + "    timeout: 20\n",
			`sources[0].timeout (line 4): invalid duration "20" (use Go durations like 90s or 1h30m, plus d for days)`},
		{"failure_threshold zero", src + "    failure_threshold: 0\n",
			`sources[0].failure_threshold (line 4): must be at least 1, found 0`},
		{"paused not bool", src + "    paused: maybe\n",
			`sources[0].paused (line 4): expected true or false, found "maybe"`},
		{"components not a list", src + "    components: API\n",
			`sources[0].components (line 4): expected a list, found a single value`},
		{"component empty", src + "    components: [API, '']\n",
			`sources[0].components[1] (line 4): empty component name`},
		{"header name", src + "    headers:\n      \"X Token\": a\n",
			`sources[0].headers["X Token"] (line 5): not a valid HTTP header name`},
		{"header value newline", src + "    headers:\n      X-Token: \"a\\nb\"\n",
			`sources[0].headers.X-Token (line 5): must not contain control characters or line breaks`},
		{"header twice", src + "    headers:\n      x-token: a\n      X-Token: b\n",
			`sources[0].headers.X-Token (line 6): same header as x-token`},
		{"channel and webhook", "slack: {token: x, channel: '#c'}\n" + src + "    channel: '#a'\n    webhook_url: https://hooks.test/x\n",
			`sources[0].channel (line 5): set either channel or webhook_url, not both`},
		{"channel without token", "slack: {webhook_url: 'https://hooks.test/x'}\n" + src + "    channel: '#a'\n",
			`sources[0].channel (line 5): needs slack.token (a bot token); a webhook posts to its own channel`},
		{"source webhook not a URL", src + "    webhook_url: not-a-url-SECRET\n",
			`sources[0].webhook_url (line 4): must be an absolute http or https URL`},

		// Top level.
		{"on_first_poll", "on_first_poll: some\n",
			`on_first_poll (line 1): must be one of open, none, all, found "some"`},
		{"listen not host:port", "listen: localhost\n",
			`listen (line 1): must be host:port, found "localhost"`},
		{"listen bad port", "listen: 127.0.0.1:http\n",
			`listen (line 1): port must be a number from 0 to 65535, found "http"`},
		{"listen remote without auth", "listen: 0.0.0.0:8080\n",
			`listen (line 1): 0.0.0.0:8080 is reachable beyond this machine: set web.auth, or web.allow_remote: true`},
		{"listen all interfaces without auth", "listen: :8080\n",
			`listen (line 1): :8080 is reachable beyond this machine: set web.auth, or web.allow_remote: true`},
		{"base_url relative", "base_url: watch.example.test\n",
			`base_url (line 1): must be an absolute http or https URL, found "watch.example.test"`},
		{"max_body bad", "http:\n  max_body: 32 megs\n",
			`http.max_body (line 2): invalid size "32 megs" (use bytes or a unit: KiB, MiB, GiB, KB, MB, GB)`},
		{"max_body zero", "http:\n  max_body: 0\n",
			`http.max_body (line 2): must be above 0, found 0`},
		{"concurrency zero", "http:\n  concurrency: 0\n",
			`http.concurrency (line 2): must be at least 1, found 0`},
		{"per_host not a number", "http:\n  per_host: many\n",
			`http.per_host (line 2): expected a whole number, found "many"`},
		{"ca_file missing", "http:\n  ca_file: nope.pem\n",
			`http.ca_file (line 2): ` + filepath.Join(dir, "nope.pem") + `: no such file or directory`},
		{"ca_file not PEM", "http:\n  ca_file: notpem\n",
			`http.ca_file (line 2): ` + filepath.Join(dir, "notpem") + ` holds no PEM certificate`},
		{"user_agent newline", "http:\n  user_agent: \"a\\r\\nX: y\"\n",
			`http.user_agent (line 2): must not contain control characters`},
		{"raw_snapshots negative", "retention:\n  raw_snapshots: -1d\n",
			`retention.raw_snapshots (line 2): must not be negative, found -1d (0 keeps raw snapshots forever)`},
		{"max_queue_age zero", "slack:\n  max_queue_age: 0\n",
			`slack.max_queue_age (line 2): must be above 0, found 0`},
		{"slack token and webhook", "slack:\n  token: xoxb-1\n  channel: '#c'\n  webhook_url: https://hooks.test/x\n",
			`slack.webhook_url (line 4): set either slack.token or slack.webhook_url, not both`},
		{"slack token without channel", "slack:\n  token: xoxb-1\n" + src,
			`slack.channel (line 1): required with slack.token, unless every source sets its own channel`},
		{"slack api_url", "slack:\n  api_url: localhost/api\n",
			`slack.api_url (line 2): must be an absolute http or https URL, found "localhost/api"`},
		{"token and token_file", "slack:\n  token: a\n  token_file: token\n",
			`slack.token_file (line 3): set either token or token_file, not both`},
		{"webhook and webhook file", src + "    webhook_url: https://hooks.test/x\n    webhook_url_file: token\n",
			`sources[0].webhook_url_file (line 5): set either webhook_url or webhook_url_file, not both`},
		{"token_file missing", "slack:\n  token_file: missing\n",
			`slack.token_file (line 2): ` + filepath.Join(dir, "missing") + `: no such file or directory`},
		{"token_file empty", "slack:\n  token_file: empty\n",
			`slack.token_file (line 2): ` + filepath.Join(dir, "empty") + ` is empty`},
		{"token_file a directory", "slack:\n  token_file: .\n",
			`slack.token_file (line 2): ` + dir + ` is not a regular file`},
		{"bearer and bearer file", "web:\n  auth:\n    bearer_token: a\n    bearer_token_file: token\n",
			`web.auth.bearer_token_file (line 4): set either bearer_token or bearer_token_file, not both`},
		{"password and password file", "web:\n  auth:\n    basic:\n      user: u\n      password: a\n      password_file: token\n",
			`web.auth.basic.password_file (line 6): set either password or password_file, not both`},
		{"basic user without password", "web:\n  auth:\n    basic:\n      user: admin\n",
			`web.auth.basic.user (line 4): needs web.auth.basic.password (or password_file)`},
		{"basic password without user", "web:\n  auth:\n    basic:\n      password: pw\n",
			`web.auth.basic.password (line 4): needs web.auth.basic.user`},
		{"allow_remote not bool", "web:\n  allow_remote: sometimes\n",
			`web.allow_remote (line 2): expected true or false, found "sometimes"`},
		{"bad variable reference", "slack:\n  token: ${SLACK BOT}\n",
			`slack.token (line 2): bad ${...} reference: write ${NAME} with letters, digits and _, or $${ for a literal ${`},
		{"merge cycle", "defaults: &d\n  <<: *d\n",
			`defaults (line 2): a merge (<<) includes itself`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			_, err := Parse([]byte(tt.yml), filepath.Join(dir, "config.yaml"))
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			got := strings.Replace(err.Error(), filepath.Join(dir, "config.yaml"), "config.yaml", 1)
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if strings.Contains(got, "\n") {
				t.Errorf("got a multi-line error %q, want one line", got)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Errorf("got %T, want *config.Error", err)
			}
		})
	}
}

func TestAllErrorsAreReported(t *testing.T) {
	dir := t.TempDir()
	yml := `listen: 0.0.0.0:8080
defaults:
  schedule: every 2m
  retries: 3
sources:
  - name: Acme
    url: status.acme.test
    timeout: 0s
  - name: b
  - name: ok
    url: https://ok.test
    headers:
      "X Token": a
      X-Key: "a\nb"
  - just a string
slack: {token: xoxb-1}
`
	want := []string{
		`listen (line 1): 0.0.0.0:8080 is reachable beyond this machine: set web.auth, or web.allow_remote: true`,
		`defaults.schedule (line 3): expected exactly 5 fields, found 2 (did you mean "@every 2m"?)`,
		`defaults.retries (line 4): unknown key`,
		`sources[0].name (line 6): must match [a-z0-9][a-z0-9_-]*, found "Acme"`,
		`sources[0].url (line 7): must be an absolute http or https URL, found "status.acme.test"`,
		`sources[0].timeout (line 8): must be above 0, found 0s`,
		`sources[1].url (line 9): required`,
		`sources[2].headers["X Token"] (line 13): not a valid HTTP header name`,
		`sources[2].headers.X-Key (line 14): must not contain control characters or line breaks`,
		`sources[3] (line 15): expected a mapping with name and url, found a single value`,
		`slack.channel (line 16): required with slack.token, unless every source sets its own channel`,
	}
	clearEnv(t)
	_, err := Parse([]byte(yml), filepath.Join(dir, "config.yaml"))
	var list Errors
	if !errors.As(err, &list) {
		t.Fatalf("got %v (%T), want config.Errors", err, err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s := err.Error(); s != want[0]+" (and 10 more: `watcher check` lists them)" {
		t.Errorf("got %q, want the first error and a count, on one line", s)
	}
}

func TestErrorsStopAtACap(t *testing.T) {
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "key%d: 1\n", i)
	}
	_, err := Parse([]byte(b.String()), "config.yaml")
	var list Errors
	if !errors.As(err, &list) || len(list) != maxErrors {
		t.Errorf("got %d errors, want %d", len(list), maxErrors)
	}
}

func TestWarnings(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("s3cr3t\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("private", 0o600)
	write("owner-only", 0o400)
	write("group", 0o640)
	write("world", 0o644)
	tests := []struct {
		name string
		yml  string
		want []string
	}{
		{"no sources", "listen: ''\n",
			[]string{`config.yaml: no sources: nothing will be polled (add vendor pages under sources:, see config.example.yaml)`}},
		{"empty sources", "sources: []\n",
			[]string{`sources (line 1): no sources: nothing will be polled (add vendor pages under sources:, see config.example.yaml)`}},
		{"private secret files", "slack:\n  token_file: private\n  channel: '#c'\nweb:\n  auth:\n    bearer_token_file: owner-only\n" + src, nil},
		{"group-readable token", "slack:\n  token_file: group\n  channel: '#c'\n" + src,
			[]string{`slack.token_file (line 2): ` + filepath.Join(dir, "group") + ` can be read by its group (mode 0640): chmod 600 ` + filepath.Join(dir, "group")}},
		{"world-readable webhook and password", src + "    webhook_url_file: world\nweb:\n  auth:\n    basic:\n      user: u\n      password_file: group\n",
			[]string{
				`sources[0].webhook_url_file (line 4): ` + filepath.Join(dir, "world") + ` can be read by anyone (mode 0644): chmod 600 ` + filepath.Join(dir, "world"),
				`web.auth.basic.password_file (line 9): ` + filepath.Join(dir, "group") + ` can be read by its group (mode 0640): chmod 600 ` + filepath.Join(dir, "group"),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			// world is no webhook URL: give it one.
			if err := os.WriteFile(filepath.Join(dir, "world"), []byte("https://hooks.test/x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chmod(filepath.Join(dir, "world"), 0o644)
			cfg, err := Parse([]byte(tt.yml), filepath.Join(dir, "config.yaml"))
			if err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			var got []string
			for _, w := range cfg.Warnings {
				got = append(got, strings.Replace(w.Error(), filepath.Join(dir, "config.yaml"), "config.yaml", 1))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			for _, w := range got {
				if strings.Contains(w, "s3cr3t") || strings.Contains(w, "hooks.test") {
					t.Errorf("got %q, which holds the secret", w)
				}
			}
		})
	}
}

func TestValidEdgeCases(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		yml  string
	}{
		{"listen loopback v6", "listen: '[::1]:8080'\n"},
		{"listen localhost", "listen: localhost:0\n"},
		{"listen remote with auth", "listen: 0.0.0.0:8080\nweb:\n  auth:\n    bearer_token: t\n"},
		{"listen remote allowed", "listen: :8080\nweb:\n  allow_remote: true\n"},
		{"listen disabled", "listen: ''\n"},
		{"bearer and basic both", "web:\n  auth:\n    bearer_token: t\n    basic: {user: u, password: p}\n"},
		{"channel with an empty token (console mode)", "slack:\n  token: ${SLACK_BOT_TOKEN}\n" + src + "    channel: '#a'\n"},
		{"token and webhook, one empty", "slack:\n  token: ''\n  webhook_url: https://hooks.test/x\n"},
		{"token with channel on every source", "slack:\n  token: xoxb-1\n" + src + "    channel: '#a'\n"},
		{"cron with time zone", src + "    schedule: 'CRON_TZ=UTC 0 9 * * 1-5'\n"},
		{"descriptor", src + "    schedule: '@hourly'\n"},
		{"every in days", src + "    schedule: '@every 1d'\n"},
		{"kind feed", "sources:\n  - name: a\n    kind: feed\n    url: https://a.test/history.atom\n"},
		{"yaml anchors and merge", "sources:\n  - &base {name: a, url: 'https://a.test', timeout: 5s}\n  - <<: *base\n    name: b\n"},
		{"null values keep defaults", "listen:\ndefaults:\nhttp:\n  max_body: ~\nsources:\n"},
		{"plain byte size", "http: {max_body: 1048576}\n"},
		{"min_impact empty", src + "    min_impact: ''\n"},
		{"dollar in a password", "web:\n  auth:\n    basic: {user: u, password: 'pa$$w$rd'}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			if _, err := Parse([]byte(tt.yml), filepath.Join(dir, "config.yaml")); err != nil {
				t.Errorf("got %v, want no error", err)
			}
		})
	}
}

func TestMergeKeys(t *testing.T) {
	clearEnv(t)
	cfg := mustParse(t, `
sources:
  - &base
    name: a
    url: https://a.test
    timeout: 5s
    headers: {X-Key: k}
  - <<: *base
    name: b
    timeout: 7s
`)
	b := cfg.Source("b")
	if b == nil || b.URL != "https://a.test" || b.Timeout.Seconds() != 7 || b.Headers["X-Key"].Value() != "k" {
		t.Errorf("got %+v, want b to merge a's url and headers and keep its own timeout", b)
	}
}

func TestErrorsHoldNoSecret(t *testing.T) {
	const secret = "s3cr3t-value"
	tests := []struct{ name, yml string }{
		{"bad slack webhook", "slack:\n  webhook_url: " + secret + "\n"},
		{"control character in token", "slack:\n  token: \"" + secret + "\\n\"\n"},
		{"bad reference in a password", "web:\n  auth:\n    basic: {user: u, password: '" + secret + "${'}\n"},
		{"header value", src + "    headers: {X-A: \"" + secret + "\\r\\n\"}\n"},
		{"source webhook", src + "    webhook_url: ftp://" + secret + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			_, err := Parse([]byte(tt.yml), "config.yaml")
			if err == nil {
				t.Fatal("got no error, want one")
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("got %q, which holds the secret", err)
			}
		})
	}
}

func TestAliasBomb(t *testing.T) {
	// Each level merges the one below nine times: without a budget the walk would visit
	// 9^9 mappings. Anchors are defined inline, since unknown keys stop the walk.
	level := "&a0 {timeout: 1s}"
	for i := 1; i <= 9; i++ {
		level = fmt.Sprintf("&a%d {<<: [%s%s]}", i, level, strings.Repeat(fmt.Sprintf(", *a%d", i-1), 8))
	}
	_, err := Parse([]byte("defaults: "+level+"\n"), "config.yaml")
	if err == nil {
		t.Fatal("got no error, want the budget to stop the walk")
	}
	if want := "defaults (line 1): aliases and merges expand to more than 524288 values"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}
