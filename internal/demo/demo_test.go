package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/model"
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
	var base string
	var stepErrs []string // from the demo's goroutine, read after Done
	go func() {
		ended <- Run(ctx, Options{
			Listen: "127.0.0.1:0", Speed: 100, Stdout: &out, Stderr: &errs,
			Ready: func(u string) { base = u; urls <- u },
			Step: func(i int, s Step) {
				if i > 0 {
					stepErrs = append(stepErrs, checkTimes(base, s, time.Now())...)
				}
			},
			Done: func() { close(finished) },
		})
	}()
	select {
	case <-urls:
	case err := <-ended:
		t.Fatalf("demo ended before serving: %v\n%s", err, errs.String())
	}
	select {
	case <-finished:
	case <-ctx.Done():
		t.Fatalf("demo did not finish its script:\n%s", out.String())
	}

	for _, e := range stepErrs {
		t.Error(e)
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

// times lists every time the vendor's page gives for inc, named.
func times(inc fakepage.Incident) map[string]time.Time {
	ts := map[string]time.Time{
		inc.ID + ".created_at": inc.CreatedAt, inc.ID + ".updated_at": inc.UpdatedAt, inc.ID + ".started_at": inc.StartedAt,
	}
	if inc.ResolvedAt != nil {
		ts[inc.ID+".resolved_at"] = *inc.ResolvedAt
	}
	if inc.PostmortemPublishedAt != nil {
		ts[inc.ID+".postmortem.published_at"] = *inc.PostmortemPublishedAt
	}
	for _, u := range inc.Updates {
		ts[inc.ID+"."+u.ID+".created_at"] = u.CreatedAt
		ts[inc.ID+"."+u.ID+".updated_at"] = u.UpdatedAt
		ts[inc.ID+"."+u.ID+".display_at"] = u.DisplayAt
	}
	return ts
}

func TestScriptTimesAgreeWithTheReplayClock(t *testing.T) {
	for _, start := range []time.Time{
		time.Date(2026, 12, 1, 19, 51, 0, 0, time.UTC),
		time.Date(2026, 12, 31, 23, 30, 0, 0, time.UTC), // the incident crosses midnight and the year
		time.Date(2026, 3, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600)),
	} {
		steps := Script(start)
		var inc fakepage.Incident
		for i, s := range steps {
			if i > 0 && !s.At.After(steps[i-1].At) {
				t.Errorf("start %s: step %d at %s, not after step %d at %s", start, i+1, s.At, i, steps[i-1].At)
			}
			for _, in := range s.Incidents {
				for name, ts := range times(in) {
					if ts.After(s.At) {
						t.Errorf("start %s: step %d (%s): %s is %s, after the replay clock %s", start, i+1, s.Say, name, ts, s.At)
					}
				}
				if in.ID == "demo01" {
					inc = in
				}
			}
		}
		if inc.ResolvedAt == nil || inc.PostmortemBody == "" {
			t.Fatalf("start %s: the last step has no resolved incident with a postmortem: %+v", start, inc)
		}
		from, to := inc.StartedAt.UTC(), inc.ResolvedAt.UTC()
		for _, want := range []string{from.Format("15:04"), to.Format("15:04"), from.Format("2 January 2006"), to.Format("2 January 2006")} {
			if !strings.Contains(inc.PostmortemBody, want) {
				t.Errorf("start %s: postmortem lacks %q (the incident ran %s → %s):\n%s", start, want, from, to, inc.PostmortemBody)
			}
		}
		if got := inc.PostmortemPublishedAt.Sub(*inc.ResolvedAt); got < 24*time.Hour {
			t.Errorf("start %s: postmortem %s after resolution, want days (the step says so)", start, got)
		}
	}
}

func TestReplayEndsNowAndNeverAhead(t *testing.T) {
	now := time.Date(2026, 12, 1, 19, 51, 42, 0, time.UTC)
	for _, every := range []time.Duration{StepInterval, StepInterval / 5, StepInterval / 100, time.Minute} {
		steps := replaySteps(now, every)
		for i, s := range steps {
			if shown := now.Add(time.Duration(i) * every); s.At.After(shown) {
				t.Errorf("every %s: step %d at %s, after the wall clock %s when it is shown", every, i+1, s.At, shown)
			}
		}
		last, shown := steps[len(steps)-1].At, now.Add(time.Duration(len(steps)-1)*every)
		if shown.Sub(last) >= time.Minute {
			t.Errorf("every %s: the replay ends at %s, want within a minute before %s", every, last, shown)
		}
	}
}

func TestReplayClockNeverGoesBack(t *testing.T) {
	at := time.Date(2026, 11, 28, 19, 42, 0, 0, time.UTC)
	c := newReplayClock(at)
	if got := c.Now(); got.Before(at) || got.Sub(at) > time.Minute {
		t.Errorf("new clock reads %s, want %s", got, at)
	}
	c.Set(at.Add(3 * 24 * time.Hour))
	if got := c.Now(); got.Before(at.Add(3 * 24 * time.Hour)) {
		t.Errorf("after Set: %s, want ≥ %s", got, at.Add(3*24*time.Hour))
	}
	before := c.Now()
	c.Set(at)
	if got := c.Now(); got.Before(before) {
		t.Errorf("Set to an earlier time moved the clock back: %s < %s", got, before)
	}
}

// checkTimes reads the demo incident from the API at step s: every time it gives must be
// before the archive observed it, and that observation at the step's replay time.
func checkTimes(base string, s Step, wall time.Time) []string {
	resp, err := http.Get(base + "/api/v1/incidents/acme/demo01")
	if err != nil {
		return []string{err.Error()}
	}
	defer resp.Body.Close()
	var inc struct {
		ObservedAt time.Time  `json:"observed_at"`
		StartedAt  time.Time  `json:"started_at"`
		ResolvedAt *time.Time `json:"resolved_at"`
		Updates    []struct {
			ID       string    `json:"id"`
			PostedAt time.Time `json:"posted_at"`
		} `json:"updates"`
		Postmortem *struct {
			PublishedAt time.Time `json:"published_at"`
		} `json:"postmortem"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&inc); err != nil {
		return []string{fmt.Sprintf("step %q: %v", s.Say, err)}
	}
	ts := map[string]time.Time{"started_at": inc.StartedAt}
	if inc.ResolvedAt != nil {
		ts["resolved_at"] = *inc.ResolvedAt
	}
	if inc.Postmortem != nil {
		ts["postmortem.published_at"] = inc.Postmortem.PublishedAt
	}
	for _, u := range inc.Updates {
		ts["updates["+u.ID+"].posted_at"] = u.PostedAt
	}
	var errs []string
	for name, t := range ts {
		if t.After(inc.ObservedAt) {
			errs = append(errs, fmt.Sprintf("step %q: %s is %s, after it was observed (%s)", s.Say, name, t, inc.ObservedAt))
		}
	}
	// The replay clock reads the step's moment, and runs on for the few milliseconds a
	// poll takes: the observation is on the incident's own timeline, not today's.
	if inc.ObservedAt.Before(s.At) || inc.ObservedAt.Sub(s.At) > time.Minute || inc.ObservedAt.After(wall) {
		errs = append(errs, fmt.Sprintf("step %q: observed at %s, want just after the step's %s (and not after the wall clock %s)", s.Say, inc.ObservedAt, s.At, wall))
	}
	return errs
}

// TestSilentEditDiffsWordByWord: the demo's headline edit keeps the words both versions
// share as unchanged, so the change view shows what was reworded, not two sentences.
func TestSilentEditDiffsWordByWord(t *testing.T) {
	steps := Script(time.Date(2026, 12, 1, 19, 51, 0, 0, time.UTC))
	body := func(s Step) string {
		for _, in := range s.Incidents {
			for _, u := range in.Updates {
				if in.ID == "demo01" && u.ID == "d1u1" {
					return u.Body
				}
			}
		}
		return ""
	}
	var before, after string
	for i := 1; i < len(steps); i++ {
		if b, a := body(steps[i-1]), body(steps[i]); b != "" && b != a {
			before, after = b, a
		}
	}
	if before == "" {
		t.Fatal("the script has no silent edit of d1u1")
	}
	var equal []string
	for _, o := range diff.Words(before, after) {
		if o.Op == model.OpEqual {
			equal = append(equal, o.Text)
		}
	}
	all := strings.Join(equal, "|")
	for _, w := range []string{"users", "Connectors"} {
		if !strings.Contains(all, w) {
			t.Errorf("%q is in both versions but not in an equal run: equal runs %q", w, equal)
		}
	}
}

func TestSpan(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{3*24*time.Hour + 11*time.Minute, "3 days"},
		{83 * time.Minute, "1h 23m"},
		{36 * time.Hour, "36h 0m"},
		{7 * time.Minute, "7m"},
	} {
		if got := span(tt.d); got != tt.want {
			t.Errorf("span(%s): got %q, want %q", tt.d, got, tt.want)
		}
	}
}
