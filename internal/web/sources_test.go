package web

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestListSources(t *testing.T) {
	e := newEnv(t).seed()
	e.daemon.SourcesFn = func() []SourceStatus {
		return []SourceStatus{
			{Name: "acme", Title: "Acme", URL: "https://status.acme.test", Kind: "statuspage",
				LastPollAt: t0.Add(time.Hour), LastSuccessAt: t0.Add(50 * time.Minute),
				LastError: "fetch: 503 Service Unavailable", ConsecutiveFailures: 2},
			{Name: "gamma", Title: "Gamma", URL: "https://bot:hunter2@status.gamma.test/", Kind: "auto", Paused: true},
		}
	}
	var got []map[string]any
	e.getJSON("/api/v1/sources", http.StatusOK, &got)
	want := []map[string]any{
		{"name": "acme", "title": "Acme", "url": "https://status.acme.test", "kind": "statuspage", "paused": false,
			"last_poll_at": "2026-07-01T13:00:00Z", "last_success_at": "2026-07-01T12:50:00Z",
			"last_error": "fetch: 503 Service Unavailable", "consecutive_failures": 2.0, "retired": false, "incidents": 3.0},
		{"name": "gamma", "title": "Gamma", "url": "https://bot:xxxxx@status.gamma.test/", "kind": "auto", "paused": true,
			"last_poll_at": nil, "last_success_at": nil, "last_error": "", "consecutive_failures": 0.0,
			"retired": false, "incidents": 0.0},
		{"name": "beta", "title": "Beta", "url": "", "kind": "", "paused": false,
			"last_poll_at": nil, "last_success_at": nil, "last_error": "", "consecutive_failures": 0.0,
			"retired": true, "incidents": 1.0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}

	t.Run("no daemon", func(t *testing.T) {
		e := newEnv(t, func(o *Options) { o.Daemon = nil }).seed()
		var got []struct {
			Name    string
			Retired bool
		}
		e.getJSON("/api/v1/sources", http.StatusOK, &got)
		if len(got) != 2 || !got[0].Retired || !got[1].Retired {
			t.Errorf("got %+v, want acme and beta, retired", got)
		}
		e.get("/healthz", http.StatusOK)
		errorOf(t, e.do(http.MethodPost, "/api/v1/sources/acme/poll", nil))
	})

	t.Run("empty", func(t *testing.T) {
		e := newEnv(t)
		if r := e.get("/api/v1/sources", http.StatusOK); strings.TrimSpace(string(r.body)) != "[]" {
			t.Errorf("got %s, want []", r.body)
		}
	})
}

func TestPollSource(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	var polled []string
	polls := func() int { mu.Lock(); defer mu.Unlock(); return len(polled) }
	e.daemon.PollNowFn = func(ctx context.Context, source string) (int, error) {
		mu.Lock()
		polled = append(polled, source)
		mu.Unlock()
		switch source {
		case "acme":
			return 2, nil
		case "quiet":
			return 0, nil
		case "broken":
			return 0, errors.New("fetch https://status.broken.test/api/v2/incidents.json: 503 Service Unavailable")
		case "slow":
			<-ctx.Done()
			return 0, ctx.Err()
		}
		return 0, ErrUnknownSource
	}
	tests := []struct {
		source   string
		want     int
		wantBody string
	}{
		{"acme", http.StatusOK, `{"changes":2}`},
		{"quiet", http.StatusOK, `{"changes":0}`},
		{"broken", http.StatusBadGateway, `{"error":"fetch https://status.broken.test/api/v2/incidents.json: 503 Service Unavailable"}`},
		{"nope", http.StatusNotFound, `{"error":"unknown source"}`},
	}
	for _, tt := range tests {
		t.Run(tt.source, func(t *testing.T) {
			r := e.do(http.MethodPost, "/api/v1/sources/"+tt.source+"/poll", nil)
			if r.status != tt.want || strings.TrimSpace(string(r.body)) != tt.wantBody {
				t.Errorf("got %d %s, want %d %s", r.status, r.body, tt.want, tt.wantBody)
			}
		})
	}

	t.Run("GET is not allowed", func(t *testing.T) {
		r := e.do(http.MethodGet, "/api/v1/sources/acme/poll", nil)
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
			t.Errorf("got %d, Allow %q; want 405, POST", r.status, r.header.Get("Allow"))
		}
		errorOf(t, r)
	})

	t.Run("cross-site browser POST is refused", func(t *testing.T) {
		before := polls()
		r := e.do(http.MethodPost, "/api/v1/sources/acme/poll", http.Header{"Sec-Fetch-Site": {"cross-site"}})
		if r.status != http.StatusForbidden {
			t.Errorf("got %d, want 403", r.status)
		}
		r = e.do(http.MethodPost, "/api/v1/sources/acme/poll", http.Header{"Origin": {"https://evil.example"}})
		if r.status != http.StatusForbidden {
			t.Errorf("old browser: got %d, want 403", r.status)
		}
		if polls() != before {
			t.Errorf("a refused request polled")
		}
		if r := e.do(http.MethodPost, "/api/v1/sources/acme/poll", http.Header{"Sec-Fetch-Site": {"same-origin"}}); r.status != http.StatusOK {
			t.Errorf("same-origin: got %d, want 200", r.status)
		}
	})

	t.Run("shutdown interrupts a poll", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "/api/v1/sources/slow/poll", nil)
		rec := httptest.NewRecorder()
		go func() { time.Sleep(10 * time.Millisecond); cancel() }()
		e.srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusServiceUnavailable {
			t.Errorf("got %d %s, want 503", rec.Code, rec.Body.String())
		}
	})
}

func TestSnapshot(t *testing.T) {
	e := newEnv(t).seed()
	type bodyIn struct {
		Endpoint, Hash, Encoding string
		Data                     *string
	}
	type answer struct {
		Source    string
		FetchedAt string `json:"fetched_at"`
		Bodies    []bodyIn
	}
	str := func(s string) *string { return &s }
	tests := []struct {
		name, path string
		want       answer
	}{
		{"in force at T", "/api/v1/sources/acme/snapshots?at=2026-07-01T12:15:00Z", answer{"acme", "2026-07-01T12:10:00Z",
			[]bodyIn{{"incidents", hashOf(acmeBodies[1]), "utf-8", str(string(acmeBodies[1]))}}}},
		{"exactly at a fetch", "/api/v1/sources/acme/snapshots?at=2026-07-01T12:00:00Z", answer{"acme", "2026-07-01T12:00:00Z",
			[]bodyIn{{"incidents", hashOf(acmeBodies[0]), "utf-8", str(string(acmeBodies[0]))}}}},
		{"now by default, a body never archived is null", "/api/v1/sources/acme/snapshots", answer{"acme", "2026-07-01T12:30:00Z",
			[]bodyIn{
				{"incidents", hashOf(acmeBodies[2]), "utf-8", str(string(acmeBodies[2]))},
				{"summary", hashOf([]byte(acmeSummary)), "", nil},
			}}},
		{"not UTF-8: base64", "/api/v1/sources/beta/snapshots?at=2026-07-01T13:00:00Z", answer{"beta", "2026-07-01T12:05:00Z",
			[]bodyIn{{"history", hashOf(betaBody), "base64", str(base64.StdEncoding.EncodeToString(betaBody))}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got answer
			e.getJSON(tt.path, http.StatusOK, &got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		name, path string
		want       int
	}{
		{"before the first fetch", "/api/v1/sources/acme/snapshots?at=2026-07-01T11:59:59Z", http.StatusNotFound},
		{"unknown source", "/api/v1/sources/nope/snapshots", http.StatusNotFound},
		{"bad time", "/api/v1/sources/acme/snapshots?at=noon", http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) { errorOf(t, e.get(tt.path, tt.want)) })
	}
}
