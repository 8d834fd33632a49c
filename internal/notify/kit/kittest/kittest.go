// Package kittest builds the notifications the receivers' tests render: an incident's
// life (new, a new update, an edit, resolved, postmortem, removed) as the Deliverer
// hands it over, with every vendor text replaceable so that a hostile test can fill
// each one with an attack. Golden files are compared and rewritten with Golden.
package kittest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// T0 is when the test incident starts.
var T0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// Base is the UI's base_url in the notifications built here.
const Base = "https://watch.example.com"

// Texts are the vendor texts a test incident is made of.
type Texts struct {
	Source, Title, Component, Body, Body2, Edited, Resolved, Postmortem, VendorURL string
}

// Plain is an ordinary incident's texts.
var Plain = Texts{
	Source:     "Acme Cloud",
	Title:      "Elevated API errors",
	Component:  "API",
	Body:       "We are investigating elevated error rates on the API.",
	Body2:      "We identified a faulty deploy and are rolling it back.",
	Edited:     "We are investigating elevated error rates on the API in eu-west-1.",
	Resolved:   "This incident has been resolved.",
	Postmortem: "Root cause: a configuration push disabled the connection pool.",
	VendorURL:  "https://status.acme.example/incidents/abc123",
}

// Hostile is an attack on every rendering at once: HTML and script, Markdown links and
// emphasis, a mail header break, Adaptive Card templating, Slack mentions.
const Hostile = `<script>alert(1)</script> <img src=x onerror=alert(1)> [click](javascript:alert(1)) **bold** _em_ ${a} @{b} <!channel> &amp; "q" 'a'` + "\r\nBcc: victim@example.com"

// HostileTexts puts Hostile in every vendor text, and a javascript: vendor link.
var HostileTexts = Texts{
	Source:     "Acme " + Hostile,
	Title:      "Title " + Hostile,
	Component:  "Component " + Hostile,
	Body:       "Body " + Hostile,
	Body2:      "Second " + Hostile,
	Edited:     "Body edited " + Hostile,
	Resolved:   "Resolved " + Hostile,
	Postmortem: "Postmortem " + Hostile,
	VendorURL:  "javascript:alert(1)",
}

// Life is the incident's versions: new (major, investigating), identified with a new
// update, an edit of the first update, resolved, postmortem.
func (f Texts) Life() []*model.Version {
	first := model.Incident{
		ID: "abc123", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMajor,
		Title: f.Title, StartedAt: T0, Components: []string{f.Component, "Dashboard"}, URL: f.VendorURL,
		Updates: []model.Update{{ID: "u1", Status: model.StatusInvestigating, Body: f.Body, Format: model.FormatText, PostedAt: T0}},
	}
	identified := first
	identified.Status = model.StatusIdentified
	identified.Updates = append(clone(first.Updates), model.Update{ID: "u2", Status: model.StatusIdentified, Body: f.Body2, Format: model.FormatText, PostedAt: T0.Add(20 * time.Minute)})
	edited := identified
	edited.Updates = clone(identified.Updates)
	edited.Updates[0].Body = f.Edited
	resolved := edited
	resolved.Status = model.StatusResolved
	resolved.ResolvedAt = T0.Add(91 * time.Minute)
	resolved.Updates = append(clone(edited.Updates), model.Update{ID: "u3", Status: model.StatusResolved, Body: f.Resolved, Format: model.FormatText, PostedAt: T0.Add(91 * time.Minute)})
	pm := resolved
	pm.Status = model.StatusPostmortem
	pm.Postmortem = &model.Postmortem{Body: f.Postmortem, Format: model.FormatMarkdown, PublishedAt: T0.Add(72 * time.Hour)}
	return Versions([]model.Incident{first, identified, edited, resolved, pm})
}

// Events are the events of Life's versions, in order.
var Events = []model.Event{model.EventNew, model.EventChanged, model.EventChanged, model.EventResolved, model.EventPostmortem}

func clone(us []model.Update) []model.Update { return append([]model.Update(nil), us...) }

// Versions turns incidents into archived versions, an hour apart, each with its change
// set from the one before.
func Versions(incs []model.Incident) []*model.Version {
	var out []*model.Version
	var prev *model.Incident
	for i := range incs {
		cur := &incs[i]
		ch := diff.Changes(prev, cur)
		out = append(out, &model.Version{N: i + 1, ObservedAt: T0.Add(time.Duration(i) * time.Hour), Incident: *cur, Changes: ch, Summary: diff.Summary(ch)})
		prev = cur
	}
	return out
}

// Note builds the notification the Deliverer hands a receiver for version v of source
// "acme", titled title.
func Note(title string, v *model.Version, ev model.Event) *notify.Notification {
	n := &notify.Notification{
		Message:      model.Message{ID: uint64(v.N), Source: "acme", IncidentID: v.Incident.ID, Version: v.N, Event: ev, CreatedAt: v.ObservedAt},
		Version:      v,
		SourceTitle:  title,
		IncidentLink: Base + "/incidents/acme/" + v.Incident.ID,
	}
	n.Link = fmt.Sprintf("%s/changes/%d", n.IncidentLink, v.N)
	if ev == model.EventRemoved {
		n.Link = n.IncidentLink
	}
	return n
}

// Notes are the notifications of an incident's whole life: Life's five, then its
// removal from the page.
func (f Texts) Notes() []*notify.Notification {
	life := f.Life()
	var out []*notify.Notification
	for i, v := range life {
		out = append(out, Note(f.Source, v, Events[i]))
	}
	gone := *life[len(life)-1]
	gone.N++
	gone.Changes = nil
	gone.Summary = "Removed from the status page"
	return append(out, Note(f.Source, &gone, model.EventRemoved))
}

// Indent is a JSON body indented as it was sent: the keys in their order, every
// escape kept, so a golden file holds the exact payload.
func Indent(t *testing.T, body []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, body, "", "  "); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// Golden compares got with testdata/<name>, or writes it there when update is set.
func Golden(t *testing.T, name string, got []byte, update bool) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update after a deliberate change):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// Others are the notifications that are no incident's change set, each named: a
// source that cannot be read and its recovery, a digest, a flood, a component change.
func (f Texts) Others() (names []string, notes []*notify.Notification) {
	add := func(name string, n *notify.Notification) {
		names, notes = append(names, name), append(notes, n)
	}
	add("source_down", &notify.Notification{Message: model.Message{ID: 9, Source: "acme", Event: model.EventSourceDown, Text: "GET https://status.acme.example/api: 503 " + f.Body}, SourceTitle: f.Source})
	add("source_up", &notify.Notification{Message: model.Message{ID: 10, Source: "acme", Event: model.EventSourceUp}, SourceTitle: f.Source})
	add("digest", &notify.Notification{Message: model.Message{Source: "acme"}, Digest: &notify.Digest{
		Count: 12, MaxAge: 24 * time.Hour, Link: Base + "/", Sources: []notify.SourceCount{{Source: f.Source, Count: 3}, {Source: "GitHub", Count: 9}}}})
	add("flood", &notify.Notification{Message: model.Message{Source: "acme"}, SourceTitle: f.Source, Flood: &notify.Flood{
		Count: 40, Link: Base + "/sources/acme", Items: []notify.FloodItem{
			{What: "New incident", Title: f.Title, Link: Base + "/incidents/acme/a1", VendorURL: f.VendorURL},
			{What: "New incident", Title: f.Title + " 2", VendorURL: f.VendorURL},
		}}})
	cv := &model.ComponentVersion{N: 2, ObservedAt: T0, Thread: 2,
		Components: model.Components{List: []model.Component{{ID: "c1", Name: f.Component, Status: model.ComponentMajorOutage}}},
		Changes:    []model.ComponentChange{{Key: "id:c1", Component: f.Component, From: model.ComponentOperational, To: model.ComponentMajorOutage, Told: true}},
		Alerts:     map[string]string{"id:c1": model.ComponentThread}}
	add("component", &notify.Notification{Message: model.Message{ID: 11, Source: "acme", Version: 2, Event: model.EventComponentDegraded},
		SourceTitle: f.Source, Components: cv, SourceLink: Base + "/sources/acme"})
	return names, notes
}

// Reminder is a maintenance's maintenance_soon reminder, written an hour before its
// window starts; its version's change set (a new update, Body2) is not what it tells.
func (f Texts) Reminder() *notify.Notification {
	m := model.Incident{
		ID: "m1", Kind: model.KindMaintenance, Status: model.StatusScheduled, Impact: model.ImpactMaintenance,
		Title: f.Title, Components: []string{f.Component}, URL: f.VendorURL,
		ScheduledFor: T0.Add(26 * time.Hour), ScheduledUntil: T0.Add(28 * time.Hour),
		Updates: []model.Update{{ID: "mu1", Status: model.StatusScheduled, Body: f.Body, Format: model.FormatText, PostedAt: T0}},
	}
	later := m
	later.Updates = append(clone(m.Updates), model.Update{ID: "mu2", Status: model.StatusScheduled, Body: f.Body2, Format: model.FormatText, PostedAt: T0.Add(time.Hour)})
	v := Versions([]model.Incident{m, later})[1]
	n := Note(f.Source, v, model.EventMaintenanceSoon)
	n.Message.ID, n.Message.CreatedAt = 12, m.ScheduledFor.Add(-time.Hour)
	n.Link = n.IncidentLink
	return n
}
