package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the demo's concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestDemoReplaysTheWholeIncident(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errs syncBuffer
	urls := make(chan string, 1)
	finished := make(chan struct{})
	ended := make(chan error, 1)
	go func() {
		ended <- Run(ctx, Options{
			Listen: "127.0.0.1:0", Speed: 100, Stdout: &out, Stderr: &errs,
			Ready: func(u string) { urls <- u },
			Done:  func() { close(finished) },
		})
	}()
	var base string
	select {
	case base = <-urls:
	case err := <-ended:
		t.Fatalf("demo ended before serving: %v\n%s", err, errs.String())
	}
	select {
	case <-finished:
	case <-ctx.Done():
		t.Fatalf("demo did not finish its script:\n%s", out.String())
	}

	resp, err := http.Get(base + "/api/v1/incidents/acme/demo01/versions")
	if err != nil {
		t.Fatal(err)
	}
	var versions []struct {
		Version int    `json:"version"`
		Summary string `json:"summary"`
	}
	json.NewDecoder(resp.Body).Decode(&versions)
	resp.Body.Close()
	if len(versions) != 6 {
		t.Fatalf("demo01 has %d versions, want 6: %+v", len(versions), versions)
	}
	var summaries []string
	for _, v := range versions {
		summaries = append(summaries, v.Summary)
	}
	all := strings.Join(summaries, "\n")
	for _, want := range []string{"1 update edited", "postmortem published", "impact major → minor"} {
		if !strings.Contains(strings.ToLower(all), strings.ToLower(want)) {
			t.Errorf("version summaries lack %q:\n%s", want, all)
		}
	}
	// Notifications are delivered after each poll, by the daemon's own loop: the last one
	// may still be on its way when the script says it is over.
	for !strings.Contains(out.String(), "Postmortem: Elevated authentication failures") && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	console := out.String()
	for _, want := range []string{"the UI is at http://127.0.0.1:", "New incident: Elevated authentication failures", "Resolved: Elevated authentication failures", "Postmortem: Elevated authentication failures", "step 7/7"} {
		if !strings.Contains(console, want) {
			t.Errorf("console lacks %q:\n%s", want, console)
		}
	}
	cancel()
	if err := <-ended; err != nil {
		t.Errorf("demo ended with %v", err)
	}
}
