// Package email is the email receiver of notify: one message per change set over SMTP
// (STARTTLS, AUTH) through go-mail, each incident one thread in a mail client — its
// first message has a Message-ID derived from the source and the incident, every later
// one answers it with In-Reply-To and References and the same subject after "Re: ".
// Each message has a text part and an HTML part, the HTML with the change view's
// marking: removed words red and struck through, added words blue and underlined. It
// sends and classifies; the notify.Deliverer owns retries and parking.
package email

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/kit"
)

// Options configure a Receiver.
type Options struct {
	// Name is the receiver's name in the config: the destination's key in counts,
	// metrics and errors. Empty: "email".
	Name string
	// SMTP is the server as host:port (email.smtp). Required.
	SMTP string
	// From is the sender's address (email.from); its domain names the Message-IDs.
	From string
	// To are the recipients (email.to); at least one.
	To []string
	// Username and Password log in with SMTP AUTH (the best mechanism the server
	// offers) when Username is set; the password comes from email.password_file.
	Username, Password string
	// StartTLS requires STARTTLS before anything else is said (email.starttls): a
	// server that does not offer it, or whose certificate does not verify, pauses the
	// receiver. Without it the connection stays plain, for a relay on loopback.
	StartTLS bool
	// TLSConfig verifies the server; nil: the system's roots, for the SMTP host. Tests
	// pass their own CA.
	TLSConfig *tls.Config
	// Timeout bounds one delivery: connecting, the dialogue and the message; 0: 30 s.
	Timeout time.Duration
	// FirstTitle, when set, gives an incident's title as its first version had it, so
	// that a retitled incident keeps its thread's subject; nil or "": the current title.
	// The wiring passes the archive's version 1.
	FirstTitle func(source, id string) string
}

// Receiver sends notifications by mail. It is safe for concurrent use.
type Receiver struct {
	name       string
	from       string
	to         []string
	host       string // of Message-IDs: the From address's domain
	client     *gomail.Client
	password   string
	firstTitle func(source, id string) string
	now        func() time.Time
	// boundaryKey makes each message's MIME boundary unguessable, so that vendor text
	// can never forge a part; tests fix it for golden files.
	boundaryKey []byte
}

var (
	_ notify.Notifier = (*Receiver)(nil)
	_ notify.Checker  = (*Receiver)(nil)
)

// New returns a Receiver. It fails only on options that can never work.
func New(o Options) (*Receiver, error) {
	host, portText, err := net.SplitHostPort(o.SMTP)
	port, perr := strconv.Atoi(portText)
	if err != nil || perr != nil || host == "" || port <= 0 || port > 65535 {
		return nil, fmt.Errorf("email: smtp %q is not host:port", o.SMTP)
	}
	from, err := mail.ParseAddress(o.From)
	if err != nil {
		return nil, fmt.Errorf("email: from %q is not an address", o.From)
	}
	if len(o.To) == 0 {
		return nil, errors.New("email: no recipient in to")
	}
	for _, t := range o.To {
		if _, err := mail.ParseAddress(t); err != nil {
			return nil, fmt.Errorf("email: to %q is not an address", t)
		}
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	opts := []gomail.Option{gomail.WithPort(port), gomail.WithTimeout(timeout), gomail.WithTLSPolicy(gomail.NoTLS)}
	if o.StartTLS {
		tc := o.TLSConfig
		if tc == nil {
			tc = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
		}
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory), gomail.WithTLSConfig(tc))
	}
	if o.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(o.Username), gomail.WithPassword(o.Password))
	}
	c, err := gomail.NewClient(host, opts...)
	if err != nil {
		return nil, fmt.Errorf("email: %w", err)
	}
	r := &Receiver{
		name: cmp.Or(o.Name, "email"), from: o.From, to: o.To, client: c, password: o.Password,
		firstTitle: o.FirstTitle, now: time.Now, boundaryKey: make([]byte, 16),
	}
	r.host = from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	_, _ = rand.Read(r.boundaryKey)
	return r, nil
}

// Destination is the one mailbox list.
func (r *Receiver) Destination(string) notify.Destination {
	return notify.Destination{Key: r.name, Account: r.name}
}

// Send mails n.
func (r *Receiver) Send(ctx context.Context, n *notify.Notification) (notify.Receipt, error) {
	m, err := r.message(n)
	if err != nil {
		return notify.Receipt{}, notify.Classify(notify.Rejected, fmt.Errorf("email %s: %w", r.name, err))
	}
	return notify.Receipt{}, r.send(ctx, m)
}

// Check mails a message with text as its subject, for `watcher check -receivers`
// (notify.Checker). An empty text says the receiver works.
func (r *Receiver) Check(ctx context.Context, text string) error {
	if text = kit.OneLine(text); text == "" {
		text = "statuswatch test message: this receiver works"
	}
	n := &notify.Notification{Message: model.Message{Source: "statuswatch", Event: model.EventSourceUp}, SourceTitle: "statuswatch test"}
	m, err := r.message(n)
	if err != nil {
		return err
	}
	m.Subject(kit.Cut(text, 200))
	return r.send(ctx, m)
}

func (r *Receiver) send(ctx context.Context, m *gomail.Msg) error {
	if err := r.client.DialAndSendWithContext(ctx, m); err != nil {
		return classify("email "+r.name, err, r.password)
	}
	return nil
}

// atom is what may stand in a Message-ID's left part as we build it.
var atom = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// idPart is s as a Message-ID's part: as it is when plain, else a hash of it.
func idPart(s string) string {
	if atom.MatchString(s) && !strings.Contains(s, "..") && !strings.HasPrefix(s, ".") && !strings.HasSuffix(s, ".") {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// ThreadID is the Message-ID (without its angle brackets) of an incident's first
// message, which every later message of it answers: "incident.<source>.<id>@<domain of
// from>". It depends on nothing but the incident, so threads survive restarts and a
// retried message keeps its id.
func (r *Receiver) ThreadID(source, id string) string {
	return fmt.Sprintf("incident.%s.%s@%s", idPart(source), idPart(id), r.host)
}

// MessageID is the Message-ID (without its angle brackets) of n: ThreadID for an
// incident's first message, else one per outbox message, the same on every retry.
func (r *Receiver) MessageID(n *notify.Notification) string {
	m := n.Message
	switch {
	case kit.Incident(n) && m.Event == model.EventNew:
		return r.ThreadID(m.Source, m.IncidentID)
	case kit.Incident(n):
		return fmt.Sprintf("incident.%s.%s.v%d.m%d@%s", idPart(m.Source), idPart(m.IncidentID), m.Version, m.ID, r.host)
	case m.ID != 0:
		return fmt.Sprintf("message.%s.m%d@%s", idPart(m.Source), m.ID, r.host)
	}
	// A digest or a flood stands for many rows and carries no id of its own.
	var b [8]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("message.%s.%s@%s", idPart(m.Source), hex.EncodeToString(b[:]), r.host)
}

// message builds the mail for n.
func (r *Receiver) message(n *notify.Notification) (*gomail.Msg, error) {
	id := r.MessageID(n)
	mac := hmac.New(sha256.New, r.boundaryKey)
	mac.Write([]byte(id))
	m := gomail.NewMsg(gomail.WithNoDefaultUserAgent(), gomail.WithBoundary("statuswatch-"+hex.EncodeToString(mac.Sum(nil)[:12])))
	if err := m.From(r.from); err != nil {
		return nil, err
	}
	if err := m.To(r.to...); err != nil {
		return nil, err
	}
	m.SetMessageIDWithValue(id)
	m.SetDateWithValue(r.now())
	m.SetGenHeader("Auto-Submitted", "auto-generated")
	m.SetUserAgent("statuswatch")
	subject := r.subject(n)
	if inIncident(n) {
		root := "<" + r.ThreadID(n.Message.Source, n.Message.IncidentID) + ">"
		m.SetGenHeader(gomail.HeaderInReplyTo, root)
		m.SetGenHeader(gomail.HeaderReferences, root)
		subject = "Re: " + subject
	}
	m.Subject(subject)
	p := parts(n)
	m.SetBodyString(gomail.TypeTextPlain, p.text())
	if !n.PlainText {
		html, err := p.html()
		if err != nil {
			return nil, err
		}
		m.AddAlternativeString(gomail.TypeTextHTML, html)
	}
	return m, nil
}

// inIncident reports whether n answers its incident's first message: a later change
// set, or a component change told in the incident's thread.
func inIncident(n *notify.Notification) bool {
	return kit.Incident(n) && n.Message.Event != model.EventNew ||
		n.Components != nil && n.Message.IncidentID != "" && n.Digest == nil
}

// subject is an incident's thread subject, "<Vendor>: <title as first seen>", the same
// for each of its messages and the component changes told in its thread; other
// messages' subject is their headline.
func (r *Receiver) subject(n *notify.Notification) string {
	title := ""
	switch {
	case kit.Incident(n):
		title = n.Version.Incident.Title
	case inIncident(n):
		title = n.IncidentTitle
	default:
		if n.Digest != nil {
			return kit.Cut(notify.DigestLine(n.Digest), subjectLimit)
		}
		if n.Flood != nil {
			return kit.Cut(kit.OneLine(notify.FloodLine(n.SourceTitle, n.Flood)), subjectLimit)
		}
		return kit.Cut(kit.OneLine(notify.Headline(*n)), subjectLimit)
	}
	if r.firstTitle != nil {
		if t := r.firstTitle(n.Message.Source, n.Message.IncidentID); strings.TrimSpace(t) != "" {
			title = t
		}
	}
	return kit.Cut(kit.OneLine(n.SourceTitle+": "+title), subjectLimit)
}
