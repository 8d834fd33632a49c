package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestSecretRedaction(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	cfg, err := Parse([]byte(`
listen: 0.0.0.0:8080
web:
  auth:
    bearer_token: BEARER-SECRET
    basic: {user: admin, password: PASSWORD-SECRET}
slack:
  token: TOKEN-SECRET
  channel: "#c"
sources:
  - name: acme
    url: https://status.acme.test
    webhook_url: https://hooks.test/WEBHOOK-SECRET
    headers: {Authorization: "Bearer HEADER-SECRET"}
`), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"BEARER-SECRET", "PASSWORD-SECRET", "TOKEN-SECRET", "WEBHOOK-SECRET", "HEADER-SECRET"}

	renderings := map[string]func() string{
		"%v":          func() string { return fmt.Sprintf("%v", cfg) },
		"%+v":         func() string { return fmt.Sprintf("%+v", cfg) },
		"%#v":         func() string { return fmt.Sprintf("%#v", cfg) },
		"%+v *Config": func() string { return fmt.Sprintf("%+v", *cfg) },
		"%s":          func() string { return fmt.Sprintf("%s", cfg.Slack.Token) },
		"%q":          func() string { return fmt.Sprintf("%q", cfg.Slack.Token) },
		"%x":          func() string { return fmt.Sprintf("%x", cfg.Slack.Token) },
		"%X headers":  func() string { return fmt.Sprintf("%X", cfg.Sources[0].Headers) },
		"%v source":   func() string { return fmt.Sprintf("%v", cfg.Sources[0]) },
		"Sprint":      func() string { return fmt.Sprint(cfg.Web.Auth, cfg.Sources) },
		"json": func() string {
			b, err := json.Marshal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		},
		"yaml": func() string {
			b, err := yaml.Marshal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		},
		"slog text": func() string {
			var buf bytes.Buffer
			slog.New(slog.NewTextHandler(&buf, nil)).Info("cfg", "cfg", cfg, "token", cfg.Slack.Token, "headers", cfg.Sources[0].Headers)
			return buf.String()
		},
		"slog json": func() string {
			var buf bytes.Buffer
			slog.New(slog.NewJSONHandler(&buf, nil)).Info("cfg", "cfg", cfg, "token", cfg.Slack.Token)
			return buf.String()
		},
	}
	for name, render := range renderings {
		t.Run(name, func(t *testing.T) {
			out := render()
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Errorf("got output holding %s:\n%s", s, out)
				}
			}
			if !strings.Contains(out, "redacted") {
				t.Errorf("got %s, want it to show <redacted>", out)
			}
		})
	}

	t.Run("Value", func(t *testing.T) {
		if got := cfg.Slack.Token.Value(); got != "TOKEN-SECRET" {
			t.Errorf("got %q, want TOKEN-SECRET", got)
		}
		if got := cfg.Sources[0].Model().Headers["Authorization"]; got != "Bearer HEADER-SECRET" {
			t.Errorf("Model header: got %q, want the plain value", got)
		}
	})
}

func TestSecretForms(t *testing.T) {
	set, empty := NewSecret("x"), Secret{}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"String", set.String(), "<redacted>"},
		{"String empty", empty.String(), ""},
		{"GoString", set.GoString(), `"<redacted>"`},
		{"%v", fmt.Sprintf("%v", set), "<redacted>"},
		{"%v empty", fmt.Sprintf("%v", empty), ""},
		{"%#v", fmt.Sprintf("%#v", set), `"<redacted>"`},
		{"%q", fmt.Sprintf("%q", set), `"<redacted>"`},
		{"%d", fmt.Sprintf("%d", set), "<redacted>"},
		// encoding/json escapes < and > for HTML safety.
		{"json", mustJSON(t, set), `"\u003credacted\u003e"`},
		{"json empty", mustJSON(t, empty), `""`},
		{"json map", mustJSON(t, map[string]Secret{"A": set}), `{"A":"\u003credacted\u003e"}`},
		{"text", string(must(set.MarshalText())), "<redacted>"},
		{"slog", set.LogValue().String(), "<redacted>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
	if !set.IsSet() || empty.IsSet() {
		t.Errorf("IsSet: got %v and %v, want true and false", set.IsSet(), empty.IsSet())
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
