package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

const e2eHookToken = "e2e-hook-token-0123456789"

// TestHookEndToEnd: a Statuspage webhook delivery (the real payload) POSTed to the
// built binary's hook makes the daemon poll the page at once, on an hourly schedule:
// the incident is in the API within seconds. A wrong token is 404 and polls nothing;
// the body is never archived (the raw payloads are the page's).
func TestHookEndToEnd(t *testing.T) {
	payload, err := os.ReadFile("testdata/statuspage-webhook-incident-update.json")
	if err != nil {
		t.Fatal(err)
	}
	w := newPushWorld(t, "    hook_token: "+e2eHookToken+"\n", "web:\n  auth: {bearer_token: e2e-bearer}\n")
	auth := func(r *http.Request) { r.Header.Set("Authorization", "Bearer e2e-bearer") }
	get := func(path string, into any) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, w.d.URL(path), nil)
		auth(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if into != nil {
			json.Unmarshal(body, into)
		}
		return resp.StatusCode
	}
	deliver := func(token string) (int, string) {
		t.Helper()
		resp, err := http.Post(w.d.URL("/api/v1/sources/acme/hook/"+token), "application/json", bytes.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	incidents := func() []map[string]any {
		t.Helper()
		var out []map[string]any
		if code := get("/api/v1/incidents?source=acme", &out); code != http.StatusOK {
			t.Fatalf("incidents: HTTP %d", code)
		}
		return out
	}

	// Polled once, empty; then the vendor posts an incident.
	req, _ := http.NewRequest(http.MethodPost, w.d.URL("/api/v1/sources/acme/poll"), nil)
	auth(req)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("first poll: %v %v", resp, err)
	}
	t0 := time.Now().UTC().Add(-5 * time.Minute).Truncate(time.Second)
	w.page.Set([]fakepage.Incident{exportIncident(t0, 1)}, nil)
	w.seen.mu.Lock()
	requests := len(w.seen.by["/api/v2/incidents.json"])
	w.seen.mu.Unlock()

	if code, body := deliver("wrong-token-0123456789abc"); code != http.StatusNotFound {
		t.Errorf("wrong token: HTTP %d %s", code, body)
	}
	time.Sleep(300 * time.Millisecond)
	if got := incidents(); len(got) != 0 {
		t.Fatalf("a wrong token polled: %v", got)
	}

	start := time.Now()
	code, body := deliver(e2eHookToken)
	if code != http.StatusAccepted || !strings.Contains(body, `"poll":"now"`) {
		t.Fatalf("delivery: HTTP %d %s", code, body)
	}
	for len(incidents()) == 0 {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the incident is not in the API 10 s after the delivery\n%s", w.d.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("delivery → incident in the API: %v", time.Since(start).Round(time.Millisecond))
	if got := incidents()[0]["id"]; got != "exp1incident" {
		t.Errorf("incident %v", got)
	}
	w.seen.mu.Lock()
	after := len(w.seen.by["/api/v2/incidents.json"])
	w.seen.mu.Unlock()
	if after <= requests {
		t.Errorf("incidents.json read %d times after the delivery, %d before", after, requests)
	}

	// A second delivery at once is queued, not polled now.
	if code, body := deliver(e2eHookToken); code != http.StatusAccepted || !strings.Contains(body, `"poll":"queued"`) {
		t.Errorf("second delivery: HTTP %d %s", code, body)
	}
	// The webhook's body is in no raw payload.
	var snap struct {
		Bodies []struct {
			Data *string `json:"data"`
		} `json:"bodies"`
	}
	get("/api/v1/sources/acme/snapshots", &snap)
	for _, b := range snap.Bodies {
		if b.Data != nil && strings.Contains(*b.Data, "Database query delays") {
			t.Errorf("the webhook's body was archived")
		}
	}
}
