package web

import (
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/config"
)

// The credentials of the auth tests; none may ever show in an answer or the log.
const (
	bearerSecret = "tok-S3CRET-bearer-7f3a"
	basicUser    = "alice"
	basicSecret  = "pw-S3CRET-basic-91c2"
)

func authEnv(t *testing.T, a config.Auth) *env {
	t.Helper()
	return newEnv(t, func(o *Options) {
		o.Auth = a
		o.Metrics = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			_, _ = io.WriteString(w, "watcher_up 1\n")
		})
	}).seed()
}

func basic(user, password string) http.Header {
	return http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))}}
}

func bearer(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

func TestAuth(t *testing.T) {
	both := config.Auth{BearerToken: config.NewSecret(bearerSecret),
		Basic: config.BasicAuth{User: basicUser, Password: config.NewSecret(basicSecret)}}
	e := authEnv(t, both)
	var answers []response
	do := func(method, path string, h http.Header) response {
		r := e.do(method, path, h)
		answers = append(answers, r)
		return r
	}

	tests := []struct {
		name, method, path string
		header             http.Header
		want               int
	}{
		{"no credentials", "GET", "/api/v1/incidents", nil, http.StatusUnauthorized},
		{"bearer", "GET", "/api/v1/incidents", bearer(bearerSecret), http.StatusOK},
		{"bearer, scheme in lower case", "GET", "/api/v1/incidents", http.Header{"Authorization": {"bearer " + bearerSecret}}, http.StatusOK},
		{"wrong bearer", "GET", "/api/v1/incidents", bearer(bearerSecret + "x"), http.StatusUnauthorized},
		{"bearer prefix only", "GET", "/api/v1/incidents", bearer(bearerSecret[:5]), http.StatusUnauthorized},
		{"empty bearer", "GET", "/api/v1/incidents", bearer(""), http.StatusUnauthorized},
		{"basic", "GET", "/api/v1/incidents", basic(basicUser, basicSecret), http.StatusOK},
		{"basic, wrong password", "GET", "/api/v1/incidents", basic(basicUser, basicSecret+"x"), http.StatusUnauthorized},
		{"basic, wrong user", "GET", "/api/v1/incidents", basic("bob", basicSecret), http.StatusUnauthorized},
		{"basic with the token as password", "GET", "/api/v1/incidents", basic(basicUser, bearerSecret), http.StatusUnauthorized},
		{"the password as bearer", "GET", "/api/v1/incidents", bearer(basicSecret), http.StatusUnauthorized},
		{"healthz is open", "GET", "/healthz", nil, http.StatusOK},
		{"metrics need credentials", "GET", "/metrics", nil, http.StatusUnauthorized},
		{"metrics with credentials", "GET", "/metrics", bearer(bearerSecret), http.StatusOK},
		{"every API route: sources", "GET", "/api/v1/sources", nil, http.StatusUnauthorized},
		{"every API route: incident", "GET", "/api/v1/incidents/acme/inc-a", nil, http.StatusUnauthorized},
		{"every API route: versions", "GET", "/api/v1/incidents/acme/inc-a/versions", nil, http.StatusUnauthorized},
		{"every API route: version", "GET", "/api/v1/incidents/acme/inc-a/versions/1", nil, http.StatusUnauthorized},
		{"every API route: at", "GET", "/api/v1/incidents/acme/inc-a/at?time=2026-07-01T13:00:00Z", nil, http.StatusUnauthorized},
		{"every API route: diff", "GET", "/api/v1/incidents/acme/inc-a/diff", nil, http.StatusUnauthorized},
		{"every API route: snapshots", "GET", "/api/v1/sources/acme/snapshots", nil, http.StatusUnauthorized},
		{"every API route: backup", "GET", "/api/v1/backup", nil, http.StatusUnauthorized},
		{"every API route: poll", "POST", "/api/v1/sources/acme/poll", nil, http.StatusUnauthorized},
		{"unknown path without credentials", "GET", "/api/v1/nope", nil, http.StatusUnauthorized},
		{"unknown path with credentials", "GET", "/api/v1/nope", bearer(bearerSecret), http.StatusNotFound},
		{"wrong method without credentials", "DELETE", "/api/v1/sources", nil, http.StatusUnauthorized},
		{"path outside the API", "GET", "/", nil, http.StatusUnauthorized},
		{"poll with credentials", "POST", "/api/v1/sources/acme/poll", basic(basicUser, basicSecret), http.StatusNotFound},
		{"backup with credentials", "GET", "/api/v1/backup", basic(basicUser, basicSecret), http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(tt.method, tt.path, tt.header)
			if r.status != tt.want {
				t.Fatalf("got %d %s, want %d", r.status, r.body, tt.want)
			}
			if r.status == http.StatusUnauthorized {
				if got := r.header.Values("WWW-Authenticate"); len(got) == 0 || got[0] != `Basic realm="statuswatch"` {
					t.Errorf("WWW-Authenticate: got %q, want Basic realm=\"statuswatch\" first", got)
				}
				errorOf(t, r)
			}
		})
	}
	if got := do("GET", "/metrics", bearer(bearerSecret)); string(got.body) != "watcher_up 1\n" {
		t.Errorf("metrics: got %q", got.body)
	}

	t.Run("no secret in any answer or the log", func(t *testing.T) {
		secrets := []string{bearerSecret, basicSecret,
			base64.StdEncoding.EncodeToString([]byte(basicUser + ":" + basicSecret))}
		for _, r := range answers {
			var all strings.Builder
			all.Write(r.body)
			for k, vs := range r.header {
				all.WriteString(k + ": " + strings.Join(vs, ", ") + "\n")
			}
			for _, s := range secrets {
				if strings.Contains(all.String(), s) {
					t.Errorf("an answer (%d) contains a secret: %s", r.status, all.String())
				}
			}
		}
		logs := e.logs.String()
		if !strings.Contains(logs, "no valid credentials") {
			t.Errorf("refusals were not logged at debug: %s", logs)
		}
		for _, s := range secrets {
			if strings.Contains(logs, s) {
				t.Errorf("the log contains a secret: %s", logs)
			}
		}
	})
}

func TestAuthOneKind(t *testing.T) {
	t.Run("bearer only", func(t *testing.T) {
		e := authEnv(t, config.Auth{BearerToken: config.NewSecret(bearerSecret)})
		e.get("/healthz", http.StatusOK)
		if r := e.do("GET", "/api/v1/sources", bearer(bearerSecret)); r.status != http.StatusOK {
			t.Errorf("bearer: got %d", r.status)
		}
		// With no basic user configured, no user name lets anyone in.
		for _, h := range []http.Header{basic("", ""), basic("", bearerSecret), nil} {
			r := e.do("GET", "/api/v1/sources", h)
			if r.status != http.StatusUnauthorized {
				t.Errorf("%v: got %d, want 401", h, r.status)
			}
			if got := r.header.Values("WWW-Authenticate"); len(got) != 2 || got[1] != `Bearer realm="statuswatch"` {
				t.Errorf("WWW-Authenticate: got %q, want Basic then Bearer", got)
			}
		}
	})
	t.Run("basic only", func(t *testing.T) {
		e := authEnv(t, config.Auth{Basic: config.BasicAuth{User: basicUser, Password: config.NewSecret(basicSecret)}})
		if r := e.do("GET", "/api/v1/sources", basic(basicUser, basicSecret)); r.status != http.StatusOK {
			t.Errorf("basic: got %d", r.status)
		}
		// No token configured: an empty bearer must not match the empty token.
		for _, h := range []http.Header{bearer(""), {"Authorization": {"Bearer"}}} {
			if r := e.do("GET", "/api/v1/sources", h); r.status != http.StatusUnauthorized {
				t.Errorf("%v: got %d, want 401", h, r.status)
			}
		}
	})
	t.Run("off", func(t *testing.T) {
		e := authEnv(t, config.Auth{})
		e.get("/api/v1/sources", http.StatusOK)
		e.get("/metrics", http.StatusOK)
	})
}
