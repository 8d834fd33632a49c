package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/config"
)

const hookSecret = "hook-token-0123456789abcdef"

// hookEnv is a server whose source acme has a hook token (and beta none), with web.auth
// set, and whose daemon reports each poll on polls.
func hookEnv(t *testing.T, interval time.Duration) (*env, chan string) {
	t.Helper()
	polls := make(chan string, 10)
	e := newEnv(t, func(o *Options) {
		o.Auth = config.Auth{BearerToken: config.NewSecret(bearerSecret)}
		o.HookTokens = map[string]config.Secret{"acme": config.NewSecret(hookSecret)}
	})
	e.srv.hooks.interval = interval
	e.daemon.PollNowFn = func(ctx context.Context, source string) (int, error) {
		polls <- source
		return 1, nil
	}
	return e, polls
}

// deliver posts body to the hook path as a vendor would: no credentials, no browser
// headers.
func (e *env) deliver(path string, body []byte) response {
	e.tb.Helper()
	resp, err := e.http.Client().Post(e.http.URL+path, "application/json", bytes.NewReader(body))
	if err != nil {
		e.tb.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: data}
}

func TestHook(t *testing.T) {
	payload, err := os.ReadFile("testdata/statuspage-webhook-incident-update.json")
	if err != nil {
		t.Fatal(err)
	}
	e, polls := hookEnv(t, 300*time.Millisecond)
	path := "/api/v1/sources/acme/hook/" + hookSecret

	wantNoPoll := func(step string) {
		t.Helper()
		select {
		case s := <-polls:
			t.Errorf("%s: polled %s", step, s)
		case <-time.After(50 * time.Millisecond):
		}
	}
	wantPoll := func(step string, within time.Duration) {
		t.Helper()
		select {
		case s := <-polls:
			if s != "acme" {
				t.Errorf("%s: polled %q", step, s)
			}
		case <-time.After(within):
			t.Fatalf("%s: no poll within %v", step, within)
		}
	}

	t.Run("a Statuspage delivery polls now, without web.auth's credentials", func(t *testing.T) {
		r := e.deliver(path, payload)
		var got api.Hook
		if r.status != http.StatusAccepted || json.Unmarshal(r.body, &got) != nil || got.Poll != "now" {
			t.Fatalf("got %d %s, want 202 poll now", r.status, r.body)
		}
		wantPoll("the delivery", 2*time.Second)
	})

	t.Run("more within the interval: one poll, queued to its end", func(t *testing.T) {
		start := time.Now()
		for i := range 5 {
			r := e.deliver(path, payload)
			var got api.Hook
			json.Unmarshal(r.body, &got)
			if r.status != http.StatusAccepted || got.Poll != "queued" {
				t.Fatalf("delivery %d: got %d %s, want 202 queued", i, r.status, r.body)
			}
		}
		wantNoPoll("before the interval ends")
		wantPoll("at the interval's end", 2*time.Second)
		if d := time.Since(start); d < 200*time.Millisecond {
			t.Errorf("the queued poll ran %v after the deliveries, before the interval", d)
		}
		wantNoPoll("after the queued poll")
	})

	t.Run("refused alike, and never polled", func(t *testing.T) {
		time.Sleep(350 * time.Millisecond) // past the interval: a right token would poll now
		unknown := e.do(http.MethodGet, "/api/v1/no/such/path", http.Header{"Authorization": {"Bearer " + bearerSecret}})
		for name, p := range map[string]string{
			"a wrong token":               "/api/v1/sources/acme/hook/" + strings.ToUpper(hookSecret),
			"a token one character short": "/api/v1/sources/acme/hook/" + hookSecret[:len(hookSecret)-1],
			"a source without a token":    "/api/v1/sources/beta/hook/" + hookSecret,
			"an unknown source":           "/api/v1/sources/nope/hook/" + hookSecret,
			"an empty token":              "/api/v1/sources/beta/hook/%20",
		} {
			r := e.deliver(p, payload)
			if r.status != http.StatusNotFound || !bytes.Equal(r.body, unknown.body) {
				t.Errorf("%s: got %d %s, want 404 %s", name, r.status, r.body, unknown.body)
			}
		}
		wantNoPoll("refused deliveries")
	})

	t.Run("a body past the bound", func(t *testing.T) {
		r := e.deliver(path, bytes.Repeat([]byte("x"), 4<<20))
		if r.status != http.StatusAccepted {
			t.Errorf("got %d %s", r.status, r.body)
		}
		wantPoll("a big body", 2*time.Second)
	})

	t.Run("GET is not a delivery", func(t *testing.T) {
		r := e.do(http.MethodGet, path, http.Header{"Authorization": {"Bearer " + bearerSecret}})
		if r.status != http.StatusMethodNotAllowed {
			t.Errorf("got %d", r.status)
		}
	})
}

func TestTokenMatches(t *testing.T) {
	for _, tt := range []struct {
		given, want string
		ok          bool
	}{
		{hookSecret, hookSecret, true},
		{hookSecret + "x", hookSecret, false},
		{"", "", false},
		{"x", "", false},
	} {
		if got := tokenMatches(tt.given, config.NewSecret(tt.want)); got != tt.ok {
			t.Errorf("tokenMatches(%q, %q): got %v", tt.given, tt.want, got)
		}
	}
}

// backoffDaemon is a daemon whose sources back off until until.
type backoffDaemon struct {
	*fakeDaemon
	until time.Time
}

func (d backoffDaemon) BackingOff(string) time.Time { return d.until }

func TestHookBackoff(t *testing.T) {
	polled := make(chan string, 1)
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	e := newEnv(t, func(o *Options) {
		o.HookTokens = map[string]config.Secret{"acme": config.NewSecret(hookSecret)}
		o.Daemon = backoffDaemon{&fakeDaemon{PollNowFn: func(_ context.Context, s string) (int, error) {
			polled <- s
			return 0, nil
		}}, until}
	})
	r := e.deliver("/api/v1/sources/acme/hook/"+hookSecret, nil)
	var got api.Hook
	if r.status != http.StatusAccepted || json.Unmarshal(r.body, &got) != nil || got.Poll != "backoff" || !time.Time(got.At).Equal(until) {
		t.Fatalf("got %d %s, want 202 backoff until %v", r.status, r.body, until)
	}
	select {
	case s := <-polled:
		t.Errorf("polled %s while backing off", s)
	case <-time.After(100 * time.Millisecond):
	}
}
