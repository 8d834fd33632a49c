package teams

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/faketeams"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit/kittest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var names = []string{"new", "update", "edited", "resolved", "postmortem", "removed"}

func pretty(t *testing.T, body []byte) []byte {
	t.Helper()
	return kittest.Indent(t, body)
}

func newPair(t *testing.T) (*Receiver, *faketeams.Server) {
	t.Helper()
	srv := faketeams.New(faketeams.Options{})
	t.Cleanup(srv.Close)
	r, err := New(Options{Name: "teams", WebhookURL: srv.WebhookURL("sre")})
	if err != nil {
		t.Fatal(err)
	}
	return r, srv
}

// TestGolden posts an incident's life and a plain-text retry to the fake webhook and
// checks each card byte for byte against testdata.
func TestGolden(t *testing.T) {
	r, srv := newPair(t)
	notes := kittest.Plain.Notes()
	plain := *notes[1]
	plain.PlainText = true
	all := append(notes, &plain)
	files := append(names, "plain_text")
	for _, n := range all {
		if _, err := r.Send(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	posts := srv.Posts()
	if len(posts) != len(all) {
		t.Fatalf("got %d posts, want %d", len(posts), len(all))
	}
	for i, p := range posts {
		if !p.OK() {
			t.Errorf("%s: refused: %d %s", files[i], p.Status, p.Error)
		}
		kittest.Golden(t, files[i]+".json", pretty(t, p.Body), *update)
	}
}

// TestWordDiffMarked: the edit's card strikes the removed words through in attention
// colour and underlines the added ones in good colour.
func TestWordDiffMarked(t *testing.T) {
	r, srv := newPair(t)
	if _, err := r.Send(context.Background(), kittest.Plain.Notes()[2]); err != nil {
		t.Fatal(err)
	}
	var del, ins []string
	for _, e := range srv.Accepted()[0].Cards[0].Body {
		for _, run := range e.Inlines {
			switch {
			case run.Strikethrough && run.Color == "attention":
				del = append(del, run.Text)
			case run.Underline && run.Color == "good":
				ins = append(ins, run.Text)
			}
		}
	}
	if len(ins) != 1 || ins[0] != " in eu-west-1" || len(del) != 0 {
		t.Errorf("got removed %q, added %q, want added \" in eu-west-1\" only", del, ins)
	}
}

// huge is a change set far over Teams' limit: forty new updates and a hundred edited
// fields of long text.
func huge() *notify.Notification {
	f := kittest.Plain
	life := f.Life()
	v := *life[1]
	v.Changes = nil
	long := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 60)
	for i := range 100 {
		before, after := long, long+fmt.Sprintf(" edit %d", i)
		v.Changes = append(v.Changes, model.Change{Field: fmt.Sprintf("custom_%03d", i), Before: &before, After: &after})
	}
	return kittest.Note(f.Source, &v, model.EventChanged)
}

func TestCut(t *testing.T) {
	r, srv := newPair(t)
	n := huge()
	if _, err := r.Send(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	p := srv.Posts()[0]
	if !p.OK() || len(p.Body) > MaxBytes {
		t.Fatalf("got %d bytes answered %d %s, want at most %d accepted", len(p.Body), p.Status, p.Error, MaxBytes)
	}
	body := p.Cards[0].Body
	last := body[len(body)-1]
	if len(last.Inlines) != 2 || !strings.HasPrefix(last.Inlines[0].Text, "Cut to fit Teams: ") ||
		last.Inlines[1].SelectAction == nil || last.Inlines[1].SelectAction.URL != n.Link {
		t.Errorf("got last element %+v, want the cut notice linking %s", last, n.Link)
	}
	if len(p.Body) < MaxBytes*3/4 {
		t.Errorf("got %d bytes, want the card filled close to %d before the cut", len(p.Body), MaxBytes)
	}
}

// vendorPieces are parts of kittest.Hostile that must never reach Markdown.
var vendorPieces = []string{"<script", "[click]", "**bold**", "javascript:", "Bcc:", "${a}"}

// checkInert fails when vendor text reached a TextBlock (Markdown) or a link is not
// http(s).
func checkInert(t *testing.T, body []byte) {
	t.Helper()
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	for _, a := range m.Attachments {
		for _, e := range a.Content.Body {
			for _, p := range vendorPieces {
				if strings.Contains(e.Text, p) {
					t.Errorf("vendor text %q in a TextBlock: %q", p, e.Text)
				}
			}
			for _, r := range e.Inlines {
				if r.SelectAction != nil && !strings.HasPrefix(r.SelectAction.URL, "https://") {
					t.Errorf("got link %q, want https only", r.SelectAction.URL)
				}
			}
		}
		for _, act := range a.Content.Actions {
			if !strings.HasPrefix(act.URL, "https://") {
				t.Errorf("got action URL %q, want https only", act.URL)
			}
		}
	}
}

func TestHostile(t *testing.T) {
	r, srv := newPair(t)
	for _, n := range kittest.HostileTexts.Notes() {
		if _, err := r.Send(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range srv.Posts() {
		if !p.OK() {
			t.Errorf("refused: %s", p.Error)
		}
		checkInert(t, p.Body)
	}
}

func FuzzRender(f *testing.F) {
	f.Add("Title", "Body **x** [a](javascript:1)", "https://x.example")
	f.Fuzz(func(t *testing.T, title, body, vendorURL string) {
		texts := kittest.Texts{Source: title, Title: title, Component: title, Body: body, Body2: body + body, Edited: body + " x", Resolved: body, Postmortem: body, VendorURL: vendorURL}
		for _, n := range texts.Notes() {
			b := encode(render(n))
			if len(b) > MaxBytes {
				t.Fatalf("got %d bytes, over %d", len(b), MaxBytes)
			}
			var m message
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			for _, a := range m.Attachments[0].Content.Actions {
				if !strings.HasPrefix(a.URL, "https://") && !strings.HasPrefix(a.URL, "http://") {
					t.Fatalf("got action URL %q", a.URL)
				}
			}
		}
	})
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault faketeams.Fault
		class notify.Class
		wait  time.Duration
	}{
		{"rate limited", faketeams.Fault{Status: 429, RetryAfter: 5}, notify.RateLimited, 5 * time.Second},
		{"server error", faketeams.Fault{Status: 502}, notify.Transient, 0},
		{"bad card", faketeams.Fault{Status: 400, Code: "TriggerInputSchemaMismatch"}, notify.Rejected, 0},
		{"too large", faketeams.Fault{Status: 413}, notify.Rejected, 0},
		{"signature refused", faketeams.Fault{Status: 401, Code: "DirectApiAuthorizationRequired"}, notify.Auth, 0},
		{"forbidden", faketeams.Fault{Status: 403}, notify.Auth, 0},
		{"flow deleted", faketeams.Fault{Status: 404, Code: "WorkflowNotFound"}, notify.ChannelGone, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, srv := newPair(t)
			srv.Fail(1, tc.fault)
			_, err := r.Send(context.Background(), kittest.Plain.Notes()[0])
			if err == nil {
				t.Fatal("got no error")
			}
			class, wait := notify.ClassOf(err)
			if class != tc.class || wait != tc.wait {
				t.Errorf("got %s, %s (%v), want %s, %s", class, wait, err, tc.class, tc.wait)
			}
			if strings.Contains(err.Error(), "sig=") || strings.Contains(err.Error(), "/webhook/") {
				t.Errorf("error %q gives the webhook URL away", err)
			}
		})
	}
	t.Run("no answer", func(t *testing.T) {
		srv := faketeams.New(faketeams.Options{})
		u := srv.WebhookURL("sre")
		srv.Close()
		r, _ := New(Options{WebhookURL: u})
		_, err := r.Send(context.Background(), kittest.Plain.Notes()[0])
		if class, _ := notify.ClassOf(err); err == nil || class != notify.Transient || strings.Contains(err.Error(), "sig=") {
			t.Errorf("got %v, want a transient error without the URL", err)
		}
	})
}

func TestCheck(t *testing.T) {
	r, srv := newPair(t)
	if err := r.Check(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if p := srv.Accepted(); len(p) != 1 || p[0].Text()[0] != "statuswatch test message: this receiver works" {
		t.Errorf("got %+v, want the test card", p)
	}
}

// TestOthers posts every message that is no change set — source events, a digest, a
// flood, a component change — plain and hostile: each is a card Teams takes, the plain
// ones checked against testdata.
func TestOthers(t *testing.T) {
	for _, texts := range []kittest.Texts{kittest.Plain, kittest.HostileTexts} {
		r, srv := newPair(t)
		names, notes := texts.Others()
		for _, n := range notes {
			if _, err := r.Send(context.Background(), n); err != nil {
				t.Fatal(err)
			}
		}
		for i, p := range srv.Posts() {
			if !p.OK() {
				t.Errorf("%s: refused: %s", names[i], p.Error)
			}
			checkInert(t, p.Body)
			if texts == kittest.Plain {
				kittest.Golden(t, names[i]+".json", pretty(t, p.Body), *update)
			}
		}
	}
}

func TestComponentInIncident(t *testing.T) {
	_, notes := kittest.Plain.Others()
	n := *notes[len(notes)-1]
	n.Message.IncidentID, n.IncidentTitle = "abc123", "Elevated API errors"
	body := render(&n).Attachments[0].Content.Body
	if len(body) < 2 || len(body[1].Inlines) != 2 || body[1].Inlines[1].Text != "Elevated API errors" {
		t.Errorf("got %+v, want the incident named under the headline", body)
	}
}

// TestMaintenanceSoon: a reminder is a short card, the window and no change set, plain
// and hostile.
func TestMaintenanceSoon(t *testing.T) {
	for _, texts := range []kittest.Texts{kittest.Plain, kittest.HostileTexts} {
		r, srv := newPair(t)
		if _, err := r.Send(context.Background(), texts.Reminder()); err != nil {
			t.Fatal(err)
		}
		p := srv.Posts()[0]
		if !p.OK() {
			t.Fatalf("refused: %s", p.Error)
		}
		checkInert(t, p.Body)
		body := string(p.Body)
		if !strings.Contains(body, "Maintenance starts in 1h") || !strings.Contains(body, "Scheduled 2026-07-02 14:00 UTC → 2026-07-02 16:00 UTC.") {
			t.Errorf("got %s, want the headline and the window", body)
		}
		if strings.Contains(body, "Second") {
			t.Errorf("got %s, want no change set", body)
		}
		if texts == kittest.Plain {
			kittest.Golden(t, "maintenance_soon.json", pretty(t, p.Body), *update)
		}
	}
}
