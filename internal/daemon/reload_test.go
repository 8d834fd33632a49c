package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
)

// reloadConfig is a config with a bearer token, base_url, listen and database as given.
func reloadConfig(t *testing.T, dir, token, baseURL, listen, db string) *config.Config {
	t.Helper()
	text := fmt.Sprintf("database: %s\nlisten: %q\nbase_url: %q\nweb:\n  auth:\n    bearer_token: %q\nsources:\n  - name: acme\n    url: http://127.0.0.1:1/\n    kind: statuspage\n    schedule: \"@every 1h\"\n",
		db, listen, baseURL, token)
	cfg, err := config.Parse([]byte(text), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestReloadAppliesAuthAndBaseURLAndRefusesWhatNeedsARestart: a SIGHUP's new bearer
// token replaces the old one at once, a new base_url shows in the next page, and a new
// listen or database refuses the whole reload with its reason.
func TestReloadAppliesAuthAndBaseURLAndRefusesWhatNeedsARestart(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "watcher.db")
	cfg := reloadConfig(t, dir, "old-token", "http://127.0.0.1:8080/first", "127.0.0.1:0", db)
	store, err := archive.Open(db, archive.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	d, err := New(Options{Config: cfg, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	base := "http://" + d.Addr().String()
	get := func(path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "text/html")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	check := func(step string, want map[string]int, prefix string) {
		t.Helper()
		for token, code := range want {
			if got, _ := get("/api/v1/sources", token); got != code {
				t.Errorf("%s: GET /api/v1/sources with %s: got %d, want %d", step, token, got, code)
			}
		}
		for token, code := range want {
			if code != http.StatusOK {
				continue
			}
			if _, page := get("/", token); !strings.Contains(page, `href="`+prefix+`/feed.atom"`) {
				t.Errorf("%s: the dashboard does not link %s/feed.atom", step, prefix)
			}
		}
	}
	check("at start", map[string]int{"old-token": 200, "new-token": 401}, "/first")

	steps := []struct {
		name      string
		cfg       *config.Config
		wantErr   string // "" for a reload that applies
		wantCodes map[string]int
		wantLinks string
	}{
		{"new token and base_url", reloadConfig(t, dir, "new-token", "http://127.0.0.1:8080/second", "127.0.0.1:0", db),
			"", map[string]int{"old-token": 401, "new-token": 200}, "/second"},
		{"new listen", reloadConfig(t, dir, "third-token", "http://127.0.0.1:8080/third", "127.0.0.1:1", db),
			`listen changed from "127.0.0.1:0" to "127.0.0.1:1"`, map[string]int{"third-token": 401, "new-token": 200}, "/second"},
		{"new database", reloadConfig(t, dir, "third-token", "http://127.0.0.1:8080/third", "127.0.0.1:0", filepath.Join(dir, "other.db")),
			"database changed", map[string]int{"third-token": 401, "new-token": 200}, "/second"},
	}
	for _, s := range steps {
		err := d.Reload(ctx, s.cfg)
		switch {
		case s.wantErr == "" && err != nil:
			t.Errorf("%s: Reload: %v, want nil", s.name, err)
		case s.wantErr != "" && (!errors.Is(err, ErrRestartRequired) || !strings.Contains(err.Error(), s.wantErr)):
			t.Errorf("%s: Reload: got %v, want ErrRestartRequired saying %q", s.name, err, s.wantErr)
		}
		check(s.name, s.wantCodes, s.wantLinks)
	}
}
