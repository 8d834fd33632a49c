package email

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakesmtp"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit/kittest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const (
	user     = "watcher"
	password = "pa55-w0rd"
)

func newServer(t *testing.T, o fakesmtp.Options) *fakesmtp.Server {
	t.Helper()
	srv, err := fakesmtp.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func newReceiver(t *testing.T, srv *fakesmtp.Server, edit func(*Options)) *Receiver {
	t.Helper()
	o := Options{
		Name: "mail", SMTP: srv.Addr(), From: "watcher@example.com", To: []string{"sre@example.com", "oncall@example.com"},
		Username: user, Password: password, StartTLS: true, TLSConfig: srv.TLSConfig(), Timeout: 5 * time.Second,
	}
	if edit != nil {
		edit(&o)
	}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	r.now = func() time.Time { return kittest.T0.Add(3 * time.Hour) }
	r.boundaryKey = []byte("fixed for golden files")
	return r
}

func newPair(t *testing.T) (*Receiver, *fakesmtp.Server) {
	srv := newServer(t, fakesmtp.Options{Username: user, Password: password})
	return newReceiver(t, srv, nil), srv
}

var names = []string{"new", "update", "edited", "resolved", "postmortem", "removed"}

// TestThread mails an incident's whole life and checks that a mail client threads it:
// the first message's Message-ID is the incident's, every later one answers it, and
// the subject stays; each message is checked byte for byte against testdata.
func TestThread(t *testing.T) {
	r, srv := newPair(t)
	notes := kittest.Plain.Notes()
	for _, n := range notes {
		if _, err := r.Send(context.Background(), n); err != nil {
			t.Fatalf("%s: %v", n.Message.Event, err)
		}
	}
	msgs := srv.Messages()
	if len(msgs) != len(notes) {
		t.Fatalf("got %d messages, want %d", len(msgs), len(notes))
	}
	root := "<incident.acme.abc123@example.com>"
	seen := map[string]bool{}
	for i, m := range msgs {
		h := m.Header()
		if !m.TLS || m.User != user || m.From != "watcher@example.com" || len(m.To) != 2 {
			t.Errorf("%s: got TLS %v, user %q, from %q, to %q, want STARTTLS, logged in, both recipients", names[i], m.TLS, m.User, m.From, m.To)
		}
		id := h.Get("Message-ID")
		if seen[id] {
			t.Errorf("%s: Message-ID %s used twice", names[i], id)
		}
		seen[id] = true
		wantSubject := "Re: Acme Cloud: Elevated API errors"
		if i == 0 {
			if id != root || h.Get("In-Reply-To") != "" || h.Get("References") != "" {
				t.Errorf("new: got Message-ID %q, In-Reply-To %q, References %q, want %s and no reply headers", id, h.Get("In-Reply-To"), h.Get("References"), root)
			}
			wantSubject = "Acme Cloud: Elevated API errors"
		} else if h.Get("In-Reply-To") != root || h.Get("References") != root {
			t.Errorf("%s: got In-Reply-To %q, References %q, want %s", names[i], h.Get("In-Reply-To"), h.Get("References"), root)
		}
		if got := h.Get("Subject"); got != wantSubject {
			t.Errorf("%s: got subject %q, want %q", names[i], got, wantSubject)
		}
		kittest.Golden(t, names[i]+".eml", m.Data, *update)
	}
}

// TestRetryKeepsMessageID: the same outbox message mailed twice (a retry after a crash)
// carries the same Message-ID, which mail clients fold into one.
func TestRetryKeepsMessageID(t *testing.T) {
	r, srv := newPair(t)
	n := kittest.Plain.Notes()[1]
	for range 2 {
		if _, err := r.Send(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	m := srv.Messages()
	if len(m) != 2 || m[0].Header().Get("Message-ID") != m[1].Header().Get("Message-ID") {
		t.Errorf("got %d messages with ids %v, want two with one id", len(m), m)
	}
}

func TestFirstTitle(t *testing.T) {
	srv := newServer(t, fakesmtp.Options{Username: user, Password: password})
	r := newReceiver(t, srv, func(o *Options) {
		o.FirstTitle = func(source, id string) string { return "API errors (first title)" }
	})
	if _, err := r.Send(context.Background(), kittest.Plain.Notes()[1]); err != nil {
		t.Fatal(err)
	}
	if got := srv.Messages()[0].Header().Get("Subject"); got != "Re: Acme Cloud: API errors (first title)" {
		t.Errorf("got subject %q, want the first title's", got)
	}
}

// TestMarking: the edit's HTML part marks the added words blue and underlined as the
// UI does, and its text part marks them {+…+}.
func TestMarking(t *testing.T) {
	r, srv := newPair(t)
	if _, err := r.Send(context.Background(), kittest.Plain.Notes()[2]); err != nil {
		t.Fatal(err)
	}
	parts, err := srv.Messages()[0].Parts()
	if err != nil {
		t.Fatal(err)
	}
	if h := parts["text/html"]; !strings.Contains(h, `<ins style="color:#1e40af;background:#dbeafe;text-decoration:underline">`) || !strings.Contains(h, "in eu-west-1</ins>") {
		t.Errorf("got HTML part %q, want the added words marked", h)
	}
	if txt := parts["text/plain"]; !strings.Contains(txt, "{+ in eu-west-1+}") {
		t.Errorf("got text part %q, want {+ in eu-west-1+}", txt)
	}
}

func TestPlainText(t *testing.T) {
	r, srv := newPair(t)
	n := *kittest.Plain.Notes()[1]
	n.PlainText = true
	if _, err := r.Send(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	parts, err := srv.Messages()[0].Parts()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := parts["text/html"]; ok || parts["text/plain"] == "" {
		t.Errorf("got parts %v, want text only", parts)
	}
}

// TestHostile: vendor text is escaped in the HTML part, cannot add a header, and a
// javascript: vendor link is left out.
func TestHostile(t *testing.T) {
	r, srv := newPair(t)
	for _, n := range kittest.HostileTexts.Notes() {
		if _, err := r.Send(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range srv.Messages() {
		h := m.Header()
		if len(h["Bcc"]) > 0 || strings.Contains(strings.ToLower(fmt.Sprint(m.To)), "victim") {
			t.Errorf("%s: vendor text added a header or a recipient: %v", names[i], h)
		}
		parts, err := m.Parts()
		if err != nil {
			t.Fatal(err)
		}
		html := parts["text/html"]
		for _, bad := range []string{"<script", "<img", `href="javascript`} {
			if strings.Contains(html, bad) {
				t.Errorf("%s: got %q unescaped in the HTML part", names[i], bad)
			}
		}
		if !strings.Contains(html, "&lt;script&gt;") {
			t.Errorf("%s: want the vendor's <script> shown escaped", names[i])
		}
	}
}

func FuzzHTML(f *testing.F) {
	f.Add("Title <b>", "Body <script>x</script>", "javascript:x")
	f.Fuzz(func(t *testing.T, title, body, vendorURL string) {
		texts := kittest.Texts{Source: title, Title: title, Component: title, Body: body, Body2: body + body, Edited: body + " x", Resolved: body, Postmortem: body, VendorURL: vendorURL}
		for _, n := range texts.Notes() {
			h, err := parts(n).html()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(h, "<script") || strings.Contains(h, `href="javascript`) {
				t.Fatalf("got unescaped vendor HTML in %q", h)
			}
		}
	})
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault fakesmtp.Fault
		opts  fakesmtp.Options
		edit  func(*Options)
		class notify.Class
	}{
		{"greylisted", fakesmtp.Fault{Command: "MAIL", Code: 451, Message: "try again later"}, fakesmtp.Options{}, nil, notify.Transient},
		{"mailbox full, temporarily", fakesmtp.Fault{Command: "RCPT", Code: 452, Message: "mailbox full"}, fakesmtp.Options{}, nil, notify.Transient},
		{"relaying denied", fakesmtp.Fault{Command: "RCPT", Code: 554, Message: "5.7.1 Relay access denied"}, fakesmtp.Options{}, nil, notify.Auth},
		{"no such user", fakesmtp.Fault{Command: "RCPT", Code: 550, Message: "no such user"}, fakesmtp.Options{}, nil, notify.ChannelGone},
		{"sender refused", fakesmtp.Fault{Command: "MAIL", Code: 553, Message: "not allowed"}, fakesmtp.Options{}, nil, notify.ChannelGone},
		{"too big", fakesmtp.Fault{Command: "DATA", Code: 552, Message: "message too big"}, fakesmtp.Options{}, nil, notify.Rejected},
		{"content refused", fakesmtp.Fault{Command: "DATA", Code: 554, Message: "spam"}, fakesmtp.Options{}, nil, notify.Rejected},
		{"dropped", fakesmtp.Fault{Command: "DATA"}, fakesmtp.Options{}, nil, notify.Transient},
		{"wrong password", fakesmtp.Fault{}, fakesmtp.Options{Username: user, Password: "other"}, nil, notify.Auth},
		{"auth required", fakesmtp.Fault{}, fakesmtp.Options{Username: user, Password: password}, func(o *Options) { o.Username = "" }, notify.Auth},
		{"no STARTTLS", fakesmtp.Fault{}, fakesmtp.Options{NoTLS: true}, nil, notify.Auth},
		{"untrusted certificate", fakesmtp.Fault{}, fakesmtp.Options{}, func(o *Options) { o.TLSConfig = &tls.Config{ServerName: "127.0.0.1"} }, notify.Auth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			if opts.Username == "" && tc.edit == nil {
				opts.Username, opts.Password = user, password
			}
			srv := newServer(t, opts)
			srv.Fail(1, tc.fault)
			r := newReceiver(t, srv, tc.edit)
			_, err := r.Send(context.Background(), kittest.Plain.Notes()[0])
			if err == nil {
				t.Fatal("got no error")
			}
			if class, _ := notify.ClassOf(err); class != tc.class {
				t.Errorf("got %s (%v), want %s", class, err, tc.class)
			}
			if strings.Contains(err.Error(), password) {
				t.Errorf("error %q gives the password away", err)
			}
		})
	}
	t.Run("no server", func(t *testing.T) {
		srv := newServer(t, fakesmtp.Options{})
		r := newReceiver(t, srv, nil)
		srv.Close()
		_, err := r.Send(context.Background(), kittest.Plain.Notes()[0])
		if class, _ := notify.ClassOf(err); err == nil || class != notify.Transient {
			t.Errorf("got %v, want a transient error", err)
		}
	})
}

func TestNew(t *testing.T) {
	for _, o := range []Options{
		{SMTP: "mail.example.com", From: "a@example.com", To: []string{"b@example.com"}},
		{SMTP: "mail.example.com:587", From: "not an address", To: []string{"b@example.com"}},
		{SMTP: "mail.example.com:587", From: "a@example.com"},
		{SMTP: "mail.example.com:587", From: "a@example.com", To: []string{"x"}},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v): got no error", o)
		}
	}
}

func TestOtherMessages(t *testing.T) {
	r, srv := newPair(t)
	down := &notify.Notification{Message: model.Message{ID: 9, Source: "acme", Event: model.EventSourceDown, Text: "GET https://status.acme.example/api: 503"}, SourceTitle: "Acme Cloud"}
	digest := &notify.Notification{Message: model.Message{Source: "acme"}, Digest: &notify.Digest{Count: 3, MaxAge: 24 * time.Hour, Sources: []notify.SourceCount{{Source: "Acme Cloud", Count: 3}}}}
	for _, n := range []*notify.Notification{down, digest} {
		if _, err := r.Send(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Check(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	m := srv.Messages()
	if len(m) != 3 {
		t.Fatalf("got %d messages, want 3", len(m))
	}
	for i, want := range []string{"Acme Cloud: cannot read the status page", "3 notifications skipped (older than 24h): Acme Cloud (3)", "statuswatch test message: this receiver works"} {
		if got := m[i].Header().Get("Subject"); got != want {
			t.Errorf("got subject %q, want %q", got, want)
		}
	}
	kittest.Golden(t, "source_down.eml", m[0].Data, *update)
}

// TestOthers mails every message that is no change set — source events, a digest, a
// flood, a component change — plain and hostile, each with its own Message-ID, the
// vendor text escaped.
func TestOthers(t *testing.T) {
	for _, texts := range []kittest.Texts{kittest.Plain, kittest.HostileTexts} {
		r, srv := newPair(t)
		names, notes := texts.Others()
		for _, n := range notes {
			if _, err := r.Send(context.Background(), n); err != nil {
				t.Fatal(err)
			}
		}
		msgs := srv.Messages()
		if len(msgs) != len(notes) {
			t.Fatalf("got %d messages, want %d", len(msgs), len(notes))
		}
		seen := map[string]bool{}
		for i, m := range msgs {
			h := m.Header()
			if id := h.Get("Message-ID"); seen[id] || h.Get("In-Reply-To") != "" || len(h["Bcc"]) > 0 {
				t.Errorf("%s: got Message-ID %q (seen: %v), In-Reply-To %q", names[i], id, seen[id], h.Get("In-Reply-To"))
			}
			seen[h.Get("Message-ID")] = true
			parts, err := m.Parts()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(parts["text/html"], "<script") || parts["text/plain"] == "" {
				t.Errorf("%s: got parts %q", names[i], parts)
			}
		}
	}
}

// TestComponentInIncident: a component change told in an incident's thread is mailed
// in that thread.
func TestComponentInIncident(t *testing.T) {
	r, srv := newPair(t)
	_, notes := kittest.Plain.Others()
	n := *notes[len(notes)-1]
	n.Message.IncidentID, n.IncidentTitle = "abc123", "Elevated API errors"
	if _, err := r.Send(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	h := srv.Messages()[0].Header()
	if h.Get("In-Reply-To") != "<incident.acme.abc123@example.com>" || h.Get("Subject") != "Re: Acme Cloud: Elevated API errors" {
		t.Errorf("got In-Reply-To %q, Subject %q, want the incident's thread", h.Get("In-Reply-To"), h.Get("Subject"))
	}
}

// TestMaintenanceSoon: a reminder is mailed in the maintenance's thread, its window
// told and no change set.
func TestMaintenanceSoon(t *testing.T) {
	r, srv := newPair(t)
	if _, err := r.Send(context.Background(), kittest.Plain.Reminder()); err != nil {
		t.Fatal(err)
	}
	m := srv.Messages()[0]
	h := m.Header()
	if h.Get("In-Reply-To") != "<incident.acme.m1@example.com>" {
		t.Errorf("In-Reply-To: got %q, want the maintenance's thread", h.Get("In-Reply-To"))
	}
	parts, err := m.Parts()
	if err != nil {
		t.Fatal(err)
	}
	text := parts["text/plain"]
	if !strings.Contains(text, "Maintenance starts in 1h") || !strings.Contains(text, "Scheduled 2026-07-02 14:00 UTC → 2026-07-02 16:00 UTC.") {
		t.Errorf("text: got %q, want the headline and the window", text)
	}
	if strings.Contains(text, "Second") {
		t.Errorf("text: got %q, want no change set", text)
	}
}
