package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakewebhook"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

func strp(s string) *string { return &s }

func notification() *notify.Notification {
	return &notify.Notification{
		Message:     model.Message{ID: 42, Source: "acme", IncidentID: "inc1", Version: 2, Event: model.EventChanged, CreatedAt: t0.Add(time.Minute)},
		SourceTitle: "Acme",
		Version: &model.Version{N: 2, ObservedAt: t0, Summary: "Status investigating → identified; 1 update added.",
			Incident: model.Incident{ID: "inc1", Title: "API <errors>", Status: model.StatusIdentified, Impact: model.ImpactMajor, URL: "https://status.acme.test/incidents/inc1"},
			Changes: []model.Change{
				{Field: "status", Before: strp("investigating"), After: strp("identified")},
				{Field: "updates[u2]", After: strp("We found it."), Ops: []model.Op{{Op: model.OpInsert, Text: "We found it."}}},
			}},
		IncidentLink: "https://watcher.test/incidents/acme/inc1",
	}
}

func newNotifier(t *testing.T, fw *fakewebhook.Server) *Notifier {
	t.Helper()
	w, err := New(Options{Name: "hooks", URL: fw.URL(), Secret: "s3cret", Headers: map[string]string{"X-Team": "sre"}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestSend(t *testing.T) {
	fw := fakewebhook.New("s3cret")
	defer fw.Close()
	w := newNotifier(t, fw)
	if _, err := w.Send(context.Background(), notification()); err != nil {
		t.Fatalf("Send: %v", err)
	}
	ds := fw.Deliveries()
	if len(ds) != 1 {
		t.Fatalf("got %d deliveries, want 1", len(ds))
	}
	d := ds[0]
	want := `{"version":1,"event":"status","source":"acme","incident":{"id":"inc1","title":"API \u003cerrors\u003e","status":"identified","impact":"major","url":"https://status.acme.test/incidents/inc1","ui_url":"https://watcher.test/incidents/acme/inc1"},"summary":"Status investigating → identified; 1 update added.","changes":[{"field":"status","before":"investigating","after":"identified"},{"field":"updates[u2]","before":null,"after":"We found it."}],"observed_at":"2026-07-01T12:00:00Z"}`
	if string(d.Body) != want {
		t.Errorf("body:\ngot  %s\nwant %s", d.Body, want)
	}
	if d.ID != "42" || d.Header.Get("X-Team") != "sre" || d.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers: got delivery %q, %v", d.ID, d.Header)
	}
	if got := d.Header.Get(HeaderSignature); got != Sign("s3cret", d.Body) || !Verify("s3cret", d.Body, got) || Verify("other", d.Body, got) {
		t.Errorf("signature %q does not verify", got)
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name  string
		fault fakewebhook.Fault
		class notify.Class
		wait  time.Duration
		final bool
	}{
		{"500", fakewebhook.Fault{Status: 500}, notify.Transient, 0, false},
		{"503 with Retry-After", fakewebhook.Fault{Status: 503, RetryAfter: 7}, notify.RateLimited, 7 * time.Second, false},
		{"429", fakewebhook.Fault{Status: 429, RetryAfter: 3}, notify.RateLimited, 3 * time.Second, false},
		{"401", fakewebhook.Fault{Status: 401}, notify.Auth, 0, false},
		{"403", fakewebhook.Fault{Status: 403}, notify.Auth, 0, false},
		{"400", fakewebhook.Fault{Status: 400, Body: "bad\x00 payload"}, notify.Rejected, 0, true},
		{"404", fakewebhook.Fault{Status: 404}, notify.Rejected, 0, true},
		{"302", fakewebhook.Fault{Status: 302}, notify.Rejected, 0, true},
	}
	fw := fakewebhook.New("s3cret")
	defer fw.Close()
	w := newNotifier(t, fw)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fw.Fail(1, tc.fault)
			_, err := w.Send(context.Background(), notification())
			if err == nil {
				t.Fatal("no error")
			}
			class, wait := notify.ClassOf(err)
			var e *notify.Error
			final := errors.As(err, &e) && e.Final
			if class != tc.class || wait != tc.wait || final != tc.final {
				t.Errorf("got %v %v final %v, want %v %v final %v (%v)", class, wait, final, tc.class, tc.wait, tc.final, err)
			}
			if strings.Contains(err.Error(), fw.URL()) || strings.ContainsRune(err.Error(), 0) {
				t.Errorf("error %q names the URL or carries control characters", err)
			}
		})
	}
	if n := len(fw.Deliveries()); n != 0 {
		t.Errorf("%d deliveries taken, want none", n)
	}
}

func TestNetworkErrorHidesURL(t *testing.T) {
	w, err := New(Options{Name: "hooks", URL: "http://127.0.0.1:1/hook?token=SECRET", Secret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Send(context.Background(), notification())
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("got %v, want an error without the URL", err)
	}
	if c, _ := notify.ClassOf(err); c != notify.Transient {
		t.Errorf("class %v, want transient", c)
	}
}

func TestBuildOtherMessages(t *testing.T) {
	down := &notify.Notification{Message: model.Message{ID: 7, Source: "acme", Event: model.EventSourceDown, Text: "HTTP 500", CreatedAt: t0}, SourceTitle: "Acme"}
	p := Build(down)
	if p.Event != "source_down" || p.Incident != nil || p.Summary != "Acme: cannot read the status page: HTTP 500" || !p.ObservedAt.Equal(t0) || p.Changes == nil {
		t.Errorf("source_down: got %+v", p)
	}
	n := notification()
	n.Message.Event = model.EventResolved
	if p := Build(n); p.Event != "resolved" {
		t.Errorf("resolved: event %q", p.Event)
	}
	n.Message.Event = model.EventRemoved
	if p := Build(n); p.Event != "removed" || len(p.Changes) != 0 || p.Summary != "The incident is no longer on the vendor's page." {
		t.Errorf("removed: got %+v", p)
	}
	n = notification()
	n.Message.Event, n.Message.Version = model.EventNew, 1
	n.Version.Incident.Kind = model.KindMaintenance
	if p := Build(n); p.Event != "maintenance" {
		t.Errorf("new maintenance: event %q", p.Event)
	}
	n.Message.Event, n.Message.CreatedAt = model.EventMaintenanceSoon, t0
	n.Version.Incident.ScheduledFor, n.Version.Incident.ScheduledUntil = t0.Add(time.Hour), t0.Add(3*time.Hour)
	want := "Acme: Maintenance starts in 1h: API <errors> (2026-07-01 13:00 UTC → 2026-07-01 15:00 UTC)"
	if p := Build(n); p.Event != "maintenance_soon" || len(p.Changes) != 0 || p.Summary != want || !p.ObservedAt.Equal(t0) {
		t.Errorf("maintenance_soon: got %+v, want event maintenance_soon, no changes, summary %q", p, want)
	}
}

func TestEncodeCaps(t *testing.T) {
	n := notification()
	long := strings.Repeat("word ", 100_000)
	for range 50 {
		n.Version.Changes = append(n.Version.Changes, model.Change{Field: "updates[x]", After: &long})
	}
	b, err := Encode(Build(n), DefaultMaxBody)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > DefaultMaxBody {
		t.Errorf("got %d bytes, want at most %d", len(b), DefaultMaxBody)
	}
	var p Payload
	if err := json.Unmarshal(b, &p); err != nil || len(p.Changes) == 0 || !strings.HasSuffix(*p.Changes[2].After, "…") {
		t.Errorf("cut payload: %v, %d changes", err, len(p.Changes))
	}
}

func FuzzEncode(f *testing.F) {
	f.Add("title", "before", "after", 512)
	f.Fuzz(func(t *testing.T, title, before, after string, max int) {
		n := notification()
		n.Version.Incident.Title = title
		n.Version.Changes = append(n.Version.Changes, model.Change{Field: before, Before: &before, After: &after})
		max = 1024 + max%(1<<16)
		if max < 1024 {
			max = 1024
		}
		b, err := Encode(Build(n), max)
		if err != nil {
			return
		}
		if len(b) > max || !json.Valid(b) {
			t.Errorf("%d bytes for a cap of %d, valid %v", len(b), max, json.Valid(b))
		}
	})
}

func TestBuildComponentMessage(t *testing.T) {
	n := &notify.Notification{
		Message:     model.Message{ID: 9, Source: "acme", Version: 3, Event: model.EventComponentDegraded, CreatedAt: t0},
		SourceTitle: "Acme",
		Components: &model.ComponentVersion{N: 3, ObservedAt: t0.Add(time.Minute), Changes: []model.ComponentChange{
			{Key: "api", Component: "API", From: model.ComponentOperational, To: model.ComponentDegraded, Told: true},
			{Key: "web", Component: "Web", From: model.ComponentOperational, To: model.ComponentDegraded, Told: true, Incident: "inc1"},
			{Key: "dns", Component: "DNS", From: model.ComponentOperational, To: model.ComponentDegraded},
		}},
	}
	b, err := Encode(Build(n), DefaultMaxBody)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"version":1,"event":"component","source":"acme","incident":null,"summary":"` + notify.ComponentHeadline(n, false) +
		`","changes":[{"field":"components[API]","before":"operational","after":"degraded"}],"observed_at":"2026-07-01T12:01:00Z"}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
