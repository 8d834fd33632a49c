package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

const receiversYAML = `sources:
  - name: aws
    url: https://status.aws.test
  - name: gh
    url: https://www.githubstatus.test
receivers:
  - name: oncall
    pagerduty: {routing_key_file: pd, api_url: "https://events.pd.test/v2/enqueue"}
  - name: teams
    teams: {webhook_url: "https://teams.test/hook"}
  - name: hooks
    webhook:
      url: https://hooks.test/in
      secret_file: hook-secret
      headers: {X-Team: sre}
  - name: mail
    email: {smtp: "mail.test:587", from: "watcher@example.com", to: ["sre@example.com"], username: u, password: p}
routes:
  - match: {sources: [aws], min_impact: major, events: [new, resolved, postmortem]}
    receivers: [oncall]
    continue: true
  - match: {components: ["Actions"], title_regex: "(?i)outage"}
    receivers: [slack, hooks]
  - match: {kinds: [maintenance]}
    receivers: [mail, teams]
`

func writeSecrets(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, v := range map[string]string{"pd": "R0UTINGKEY\n", "hook-secret": "s3cret\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReceiversAndRoutes(t *testing.T) {
	clearEnv(t)
	dir := writeSecrets(t)
	cfg, err := Parse([]byte(receiversYAML), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %v", cfg.Warnings)
	}
	if got := len(cfg.Receivers); got != 4 {
		t.Fatalf("got %d receivers, want 4", got)
	}
	pd := cfg.Receiver("oncall")
	if pd.Kind != ReceiverPagerDuty || pd.PagerDuty.RoutingKey.Value() != "R0UTINGKEY" || pd.PagerDuty.APIURL != "https://events.pd.test/v2/enqueue" {
		t.Errorf("oncall: got %+v %+v", pd, pd.PagerDuty)
	}
	wh := cfg.Receiver("hooks").Webhook
	if wh.URL.Value() != "https://hooks.test/in" || wh.Secret.Value() != "s3cret" || wh.Headers["X-Team"].Value() != "sre" {
		t.Errorf("hooks: got url %q secret %q headers %v", wh.URL.Value(), wh.Secret.Value(), wh.Headers)
	}
	em := cfg.Receiver("mail").Email
	if em.SMTP != "mail.test:587" || em.From != "watcher@example.com" || len(em.To) != 1 || !em.StartTLS || em.Password.Value() != "p" {
		t.Errorf("mail: got %+v", em)
	}
	if cfg.Receiver("teams").Teams.WebhookURL.Value() != "https://teams.test/hook" {
		t.Errorf("teams: got %+v", cfg.Receiver("teams").Teams)
	}
	if len(cfg.Routes) != 3 || !cfg.Routes[0].Continue || cfg.Routes[1].Match.TitleRegex == nil {
		t.Fatalf("routes: got %+v", cfg.Routes)
	}
	major := &model.Incident{Kind: model.KindIncident, Title: "Major outage", Impact: model.ImpactMajor, Components: []string{"Actions"}}
	tests := []struct {
		name string
		n    model.Notice
		want []string
	}{
		{"aws major new: oncall, then continue (no Actions)", model.Notice{Source: "aws", Event: model.EventNew, Incident: major}, []string{"oncall", "", "hooks"}},
		{"gh major new: the components route", model.Notice{Source: "gh", Event: model.EventNew, Incident: major}, []string{"", "hooks"}},
		{"aws update: not an oncall event", model.Notice{Source: "aws", Event: model.EventChanged, Incident: major,
			Changes: []model.Change{{Field: "updates[u2]"}}}, []string{"", "hooks"}},
		{"maintenance", model.Notice{Source: "gh", Event: model.EventNew, Incident: &model.Incident{Kind: model.KindMaintenance}}, []string{"mail", "teams"}},
		{"source down: no route", model.Notice{Source: "gh", Event: model.EventSourceDown}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := cfg.Route(&tc.n)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") || len(got) != len(tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNoRoutesIsSlack(t *testing.T) {
	cfg := mustParse(t, src)
	got := cfg.Route(&model.Notice{Source: "acme", Event: model.EventSourceDown})
	if len(got) != 1 || got[0] != "" {
		t.Errorf("got %q, want the default sink alone", got)
	}
}

func TestReceiverErrors(t *testing.T) {
	clearEnv(t)
	dir := writeSecrets(t)
	hook := "receivers:\n  - name: hooks\n    webhook: {url: https://h.test, secret: s}\n"
	tests := []struct {
		name string
		yml  string
		want string
	}{
		{"duplicate name", hook + "  - name: hooks\n    teams: {webhook_url: https://t.test}\n",
			`receivers[1].name (line 4): duplicate receiver name "hooks" (first at receivers[0], line 2)`},
		{"unknown kind", "receivers:\n  - name: x\n    slack: {}\n",
			`receivers[0].slack (line 3): unknown key`},
		{"no kind", "receivers:\n  - name: x\n",
			`receivers[0] (line 2): needs one of webhook, pagerduty, teams, email`},
		{"two kinds", "receivers:\n  - name: x\n    teams: {webhook_url: https://t.test}\n    webhook: {url: https://h.test, secret: s}\n",
			`receivers[0].webhook (line 4): a receiver has one kind: teams is set already`},
		{"reserved name", "receivers:\n  - name: slack\n    teams: {webhook_url: https://t.test}\n",
			`receivers[0].name (line 2): "slack" names the slack: block; name this receiver otherwise`},
		{"webhook secret missing", "receivers:\n  - name: h\n    webhook: {url: https://h.test}\n",
			`receivers[0].webhook.secret (line 3): required (or secret_file)`},
		{"both forms", "receivers:\n  - name: h\n    webhook: {url: https://h.test, secret: s, secret_file: hook-secret}\n",
			`receivers[0].webhook.secret_file (line 3): set either secret or secret_file, not both`},
		{"bad webhook url", "receivers:\n  - name: h\n    webhook: {url: ftp://h.test, secret: s}\n",
			`receivers[0].webhook.url (line 3): `},
		{"reserved header", "receivers:\n  - name: h\n    webhook: {url: https://h.test, secret: s, headers: {X-Statuswatch-Signature: x}}\n",
			`receivers[0].webhook.headers.X-Statuswatch-Signature (line 3): set by the webhook itself`},
		{"email to missing", "receivers:\n  - name: m\n    email: {smtp: 'm.test:25', from: a@b.test}\n",
			`receivers[0].email.to (line 3): required`},
		{"unknown receiver in a route", src + hook + "routes:\n  - match: {}\n    receivers: [hook]\n",
			`routes[0].receivers[0] (line 9): unknown receiver "hook"; known: slack, hooks`},
		{"unknown source in a route", src + hook + "routes:\n  - match: {sources: [acme, nope]}\n    receivers: [hooks]\n",
			`routes[0].match.sources[1] (line 8): unknown source "nope": this route can never match it`},
		{"unknown event", src + "routes:\n  - match: {events: [resolve]}\n    receivers: [slack]\n",
			`routes[0].match.events[0] (line 5): unknown event "resolve" (did you mean resolved?)`},
		{"unknown kind name", src + "routes:\n  - match: {kinds: [outage]}\n    receivers: [slack]\n",
			`routes[0].match.kinds[0] (line 5): unknown kind "outage"; known: incident, maintenance, component, source`},
		{"bad regex", src + "routes:\n  - match: {title_regex: '(a'}\n    receivers: [slack]\n",
			`routes[0].match.title_regex (line 5): not a regular expression`},
		{"never matches", src + "routes:\n  - match: {kinds: [source], events: [new]}\n    receivers: [slack]\n",
			`routes[0].match (line 5): can never match: no notification of kinds source has events new`},
		{"min_impact of components", src + "routes:\n  - match: {kinds: [component], min_impact: major}\n    receivers: [slack]\n",
			`routes[0].match (line 5): can never match: min_impact passes incidents only`},
		{"no receivers", src + "routes:\n  - match: {}\n",
			`routes[0].receivers (line 5): required`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yml), filepath.Join(dir, "config.yaml"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestUnusedReceiverWarns(t *testing.T) {
	cfg := mustParse(t, src+"receivers:\n  - name: hooks\n    webhook: {url: https://h.test, secret: s}\n")
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0].Error(), `receiver "hooks" is in no route`) {
		t.Errorf("got warnings %v", cfg.Warnings)
	}
}

// TestExampleReceivers parses the receivers: and routes: blocks config.example.yaml
// shows commented out, so that the example stays a config that loads.
func TestExampleReceivers(t *testing.T) {
	clearEnv(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "config.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, key := range []string{"# receivers:\n", "# routes:\n"} {
		i := strings.Index(string(data), key)
		if i < 0 {
			t.Fatalf("config.example.yaml has no %q", key)
		}
		rest := string(data[i:])
		rest = rest[:strings.Index(rest, "\n\n")+1]
		var b strings.Builder
		for _, l := range strings.SplitAfter(rest, "\n") {
			b.WriteString(strings.TrimPrefix(strings.TrimPrefix(l, "#"), " "))
		}
		blocks = append(blocks, b.String())
	}
	dir := t.TempDir()
	for _, f := range []string{"webhook-secret", "pd-routing-key", "teams-webhook"} {
		v := "x\n"
		if f == "teams-webhook" {
			v = "https://teams.example.com/hook\n"
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CREDENTIALS_DIRECTORY", dir)
	yml := "sources:\n  - name: aws\n    url: https://aws.test\n  - name: gcp\n    url: https://gcp.test\n" + strings.Join(blocks, "")
	cfg, err := Parse([]byte(yml), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatalf("Parse:\n%s\n%v", yml, err)
	}
	if len(cfg.Receivers) != 4 || len(cfg.Routes) != 4 || len(cfg.Warnings) != 0 {
		t.Errorf("got %d receivers, %d routes, warnings %v; want 4, 4 and none", len(cfg.Receivers), len(cfg.Routes), cfg.Warnings)
	}
}
