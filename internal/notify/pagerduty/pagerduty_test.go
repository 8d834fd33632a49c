package pagerduty

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/fakepagerduty"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit/kittest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const key = "R0UT1NGKEY0123456789ABCDEFGHIJKL"

func newPair(t *testing.T, min model.Impact) (*Receiver, *fakepagerduty.Server) {
	t.Helper()
	srv := fakepagerduty.New(fakepagerduty.Options{RoutingKey: key})
	t.Cleanup(srv.Close)
	r, err := New(Options{Name: "oncall", RoutingKey: key, APIURL: srv.URL(), MinImpact: min})
	if err != nil {
		t.Fatal(err)
	}
	return r, srv
}

// TestIncidentLife sends an incident's whole life: one trigger when it is new, nothing
// for its updates, edits and postmortem, one resolve; the events are checked byte for
// byte against testdata/life.json.
func TestIncidentLife(t *testing.T) {
	r, srv := newPair(t, model.ImpactMajor)
	for _, n := range kittest.Plain.Notes() {
		if _, err := r.Send(context.Background(), n); err != nil {
			t.Fatalf("%s: %v", n.Message.Event, err)
		}
	}
	evs := srv.Events()
	var got bytes.Buffer
	for _, e := range evs {
		if !e.OK() {
			t.Errorf("event refused: %d %s", e.Status, e.Error)
		}
		got.Write(kittest.Indent(t, e.Body))
	}
	kittest.Golden(t, "life.json", got.Bytes(), *update)
	alerts := srv.Alerts()
	if len(alerts) != 1 || alerts[0].DedupKey != "acme/abc123" || alerts[0].Triggers != 1 || alerts[0].Resolves != 1 || alerts[0].Open {
		t.Errorf("got alerts %+v, want acme/abc123 triggered once and resolved", alerts)
	}
	if len(evs) != 2 || evs[0].Action != "trigger" || evs[1].Action != "resolve" {
		t.Errorf("got %d events, want a trigger and a resolve", len(evs))
	}
	if s := evs[0].Payload; s == nil || s.Severity != "error" || s.Summary != "Acme Cloud: New incident: Elevated API errors" {
		t.Errorf("got payload %+v, want severity error and the headline", s)
	}
}

// worsening is an incident that starts minor, turns major, then critical, and resolves.
func worsening() []*notify.Notification {
	base := model.Incident{ID: "w1", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMinor, Title: "Slow logins", StartedAt: kittest.T0}
	major, critical, done := base, base, base
	major.Impact = model.ImpactMajor
	critical.Impact = model.ImpactCritical
	done.Impact, done.Status = model.ImpactCritical, model.StatusResolved
	vs := kittest.Versions([]model.Incident{base, major, critical, done})
	evs := []model.Event{model.EventNew, model.EventChanged, model.EventChanged, model.EventResolved}
	out := make([]*notify.Notification, len(vs))
	for i, v := range vs {
		out[i] = kittest.Note("Acme", v, evs[i])
	}
	return out
}

func TestActions(t *testing.T) {
	life := kittest.Plain.Notes()
	w := worsening()
	maint := *life[0]
	mv := *maint.Version
	mv.Incident.Kind = model.KindMaintenance
	maint.Version = &mv
	down := &notify.Notification{Message: model.Message{Source: "acme", Event: model.EventSourceDown}}
	reopened := *life[3]
	rv := *reopened.Version
	rv.Incident.Status = model.StatusInvestigating
	before, after := "resolved", "investigating"
	rv.Changes = []model.Change{{Field: "status", Before: &before, After: &after}}
	reopened.Version, reopened.Message.Event = &rv, model.EventChanged
	removedOpen := kittest.Note("Acme", life[1].Version, model.EventRemoved)
	for _, tc := range []struct {
		name string
		min  model.Impact
		n    *notify.Notification
		want string
	}{
		{"new major, min major", model.ImpactMajor, life[0], "trigger"},
		{"new major, min critical", model.ImpactCritical, life[0], ""},
		{"new update", model.ImpactMajor, life[1], ""},
		{"edit", model.ImpactMajor, life[2], ""},
		{"resolved", model.ImpactMajor, life[3], "resolve"},
		{"postmortem", model.ImpactMajor, life[4], ""},
		{"removed once resolved", model.ImpactMajor, life[5], ""},
		{"removed while open", model.ImpactMajor, removedOpen, "resolve"},
		{"reopened", model.ImpactMajor, &reopened, "trigger"},
		{"new minor, min major", model.ImpactMajor, w[0], ""},
		{"worsened to major", model.ImpactMajor, w[1], "trigger"},
		{"worsened to critical", model.ImpactMajor, w[2], "trigger"},
		{"worsened below the bar", model.ImpactCritical, w[1], ""},
		{"maintenance", "", &maint, ""},
		{"maintenance soon", "", kittest.Plain.Reminder(), ""},
		{"source down", "", down, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(Options{RoutingKey: key, MinImpact: tc.min})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Action(tc.n); got != tc.want {
				t.Errorf("got action %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNoRequestWithoutAction: a change that does not page sends nothing at all.
func TestNoRequestWithoutAction(t *testing.T) {
	r, srv := newPair(t, model.ImpactCritical)
	for _, n := range kittest.Plain.Notes()[:3] {
		if _, err := r.Send(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	if evs := srv.Events(); len(evs) != 0 {
		t.Errorf("got %d events, want none below min_impact", len(evs))
	}
}

func TestSummaryCut(t *testing.T) {
	r, srv := newPair(t, "")
	f := kittest.Plain
	f.Title = strings.Repeat("très long titre ", 200)
	if _, err := r.Send(context.Background(), f.Notes()[0]); err != nil {
		t.Fatal(err)
	}
	evs := srv.Accepted()
	if len(evs) != 1 {
		t.Fatalf("got %d accepted events, want 1", len(evs))
	}
	s := evs[0].Payload.Summary
	cut, _ := strings.CutSuffix(strings.TrimPrefix(s, "Acme Cloud: New incident: "), "…")
	if len(s) > maxSummary || !utf8.ValidString(s) || !strings.HasPrefix(f.Title, cut+" ") {
		t.Errorf("got summary of %d bytes ending %q, want at most %d ending in a whole word and …", len(s), s[max(0, len(s)-20):], maxSummary)
	}
}

// TestHostile: vendor text reaches PagerDuty as JSON strings (which PagerDuty shows as
// text), on one line in the summary, and a javascript: vendor link is left out.
func TestHostile(t *testing.T) {
	r, srv := newPair(t, "")
	if _, err := r.Send(context.Background(), kittest.HostileTexts.Notes()[0]); err != nil {
		t.Fatal(err)
	}
	evs := srv.Accepted()
	if len(evs) != 1 {
		t.Fatalf("got %d accepted events, want 1", len(evs))
	}
	e := evs[0]
	if strings.ContainsAny(e.Payload.Summary, "\r\n") {
		t.Errorf("got summary %q, want one line", e.Payload.Summary)
	}
	for _, l := range e.Links {
		if !strings.HasPrefix(l.Href, "https://") {
			t.Errorf("got link %q, want only https links", l.Href)
		}
	}
	if len(e.Links) != 1 {
		t.Errorf("got %d links, want only ours", len(e.Links))
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault fakepagerduty.Fault
		key   string
		class notify.Class
		wait  time.Duration
	}{
		{"rate limited", fakepagerduty.Fault{Status: 429, RetryAfter: 7}, key, notify.RateLimited, 7 * time.Second},
		{"rate limited, no Retry-After", fakepagerduty.Fault{Status: 429}, key, notify.RateLimited, 0},
		{"server error", fakepagerduty.Fault{Status: 503}, key, notify.Transient, 0},
		{"bad event", fakepagerduty.Fault{Status: 400, Message: "Event object is invalid"}, key, notify.Rejected, 0},
		{"forbidden", fakepagerduty.Fault{Status: 403}, key, notify.Auth, 0},
		{"unauthorized", fakepagerduty.Fault{Status: 401}, key, notify.Auth, 0},
		{"wrong routing key", fakepagerduty.Fault{}, "WRONGKEY0123456789ABCDEFGHIJKLMN", notify.Auth, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakepagerduty.New(fakepagerduty.Options{RoutingKey: key})
			defer srv.Close()
			srv.Fail(1, tc.fault)
			r, err := New(Options{RoutingKey: tc.key, APIURL: srv.URL()})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Send(context.Background(), kittest.Plain.Notes()[0])
			if err == nil {
				t.Fatal("got no error")
			}
			class, wait := notify.ClassOf(err)
			if class != tc.class || wait != tc.wait {
				t.Errorf("got %s, %s (%v), want %s, %s", class, wait, err, tc.class, tc.wait)
			}
			if strings.Contains(err.Error(), tc.key) {
				t.Errorf("error %q gives the routing key away", err)
			}
		})
	}
	t.Run("no answer", func(t *testing.T) {
		srv := fakepagerduty.New(fakepagerduty.Options{})
		srv.Close()
		r, _ := New(Options{RoutingKey: key, APIURL: srv.URL()})
		_, err := r.Send(context.Background(), kittest.Plain.Notes()[0])
		if class, _ := notify.ClassOf(err); err == nil || class != notify.Transient {
			t.Errorf("got %v, want a transient error", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		srv := fakepagerduty.New(fakepagerduty.Options{})
		defer srv.Close()
		srv.Fail(1, fakepagerduty.Fault{Delay: 2 * time.Second})
		r, _ := New(Options{RoutingKey: key, APIURL: srv.URL(), HTTPClient: &http.Client{Timeout: 100 * time.Millisecond}})
		_, err := r.Send(context.Background(), kittest.Plain.Notes()[0])
		if class, _ := notify.ClassOf(err); err == nil || class != notify.Transient {
			t.Errorf("got %v, want a transient error", err)
		}
	})
}

func TestNew(t *testing.T) {
	for _, o := range []Options{{}, {RoutingKey: key, APIURL: "ftp://x"}, {RoutingKey: key, MinImpact: "huge"}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v): got no error", o)
		}
	}
}

func TestCheck(t *testing.T) {
	r, srv := newPair(t, "")
	if err := r.Check(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if a := srv.Alerts(); len(a) != 1 || a[0].Open {
		t.Errorf("got %+v, want the test alert triggered and resolved", a)
	}
}
