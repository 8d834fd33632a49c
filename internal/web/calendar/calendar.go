// Package calendar writes the maintenance calendar: scheduled maintenances as an
// iCalendar feed (RFC 5545), one VEVENT each, for a team to subscribe its calendar to
// every vendor's windows. The iCalendar text itself — escaping, 75-octet line folding,
// CRLF line ends — is github.com/arran4/golang-ical's; this package decides what goes
// in it, and cleans vendor text of what no iCalendar TEXT may hold first.
package calendar

import (
	"io"
	"strings"
	"time"
	"unicode/utf8"

	ics "github.com/arran4/golang-ical"
	"golang.org/x/net/html"

	"github.com/statuswatch/statuswatch/internal/fetch/htmltext"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/sanitize"
)

// Window is how far back the calendar reaches: maintenances whose window ended more
// than this long ago are left out.
const Window = 30 * 24 * time.Hour

// MaxEvents bounds one calendar; the most recently scheduled maintenances are kept.
const MaxEvents = 5000

// Maintenance is one archived maintenance as the calendar shows it: its latest version
// and what the archive knows around it.
type Maintenance struct {
	Source      string
	SourceTitle string
	ID          string // URL id
	Latest      *model.Incident
	Versions    int
	LastChanged time.Time // when the latest version was observed
	Removed     bool      // vanished from the vendor's page
	RemovedAt   time.Time
	UIURL       string // the maintenance's page in our UI, "" for none
}

// Start is when the window starts: the scheduled start, else the start given.
func (m *Maintenance) Start() time.Time {
	if !m.Latest.ScheduledFor.IsZero() {
		return m.Latest.ScheduledFor
	}
	return m.Latest.StartedAt
}

// End is when the window ends: the scheduled end, else when it was completed; zero when
// neither is known.
func (m *Maintenance) End() time.Time {
	if !m.Latest.ScheduledUntil.IsZero() {
		return m.Latest.ScheduledUntil
	}
	return m.Latest.ResolvedAt
}

// Cancelled reports whether the maintenance was called off: the provider's own status
// says so ("cancelled", "canceled"), or it vanished from the page before its window
// ended, which is how Statuspage and most pages cancel one.
func (m *Maintenance) Cancelled() bool {
	raw := strings.ToLower(m.Latest.StatusRaw)
	if strings.Contains(raw, "cancel") {
		return true
	}
	end := m.End()
	if end.IsZero() {
		end = m.Start()
	}
	return m.Removed && (m.RemovedAt.IsZero() || m.RemovedAt.Before(end))
}

// UID is the event's stable identifier: the source and the maintenance's URL id.
func UID(source, id string) string { return source + "/" + id + "@statuswatch" }

// InCalendar reports whether m belongs in a calendar made at now: a maintenance with a
// known start whose window had not ended by Window before now.
func InCalendar(m *Maintenance, now time.Time) bool {
	if m.Latest == nil || m.Latest.Kind != model.KindMaintenance || m.Start().IsZero() {
		return false
	}
	end := m.End()
	if end.IsZero() {
		end = m.Start()
	}
	return !end.Before(now.Add(-Window))
}

// Write writes the calendar named name of ms (those InCalendar at now, up to MaxEvents,
// in the order given) to w.
func Write(w io.Writer, name string, ms []Maintenance, now time.Time) error {
	cal := ics.NewCalendarFor("statuswatch")
	cal.SetMethod(ics.MethodPublish)
	cal.SetXWRCalName(clean(name))
	cal.SetName(clean(name))
	// Calendar clients poll a subscribed feed; say how often is worth it.
	cal.SetRefreshInterval("PT1H")
	cal.SetXPublishedTTL("PT1H")
	n := 0
	for i := range ms {
		m := &ms[i]
		if !InCalendar(m, now) {
			continue
		}
		if n++; n > MaxEvents {
			break
		}
		cal.AddVEvent(event(m))
	}
	return cal.SerializeTo(w, ics.WithNewLineWindows)
}

// event is m's VEVENT.
func event(m *Maintenance) *ics.VEvent {
	inc := m.Latest
	e := ics.NewEvent(UID(m.Source, m.ID))
	// DTSTAMP and LAST-MODIFIED are when the archive saw the latest version, not the time
	// of the request: the feed only changes when a maintenance does.
	e.SetDtStampTime(m.LastChanged)
	e.SetModifiedAt(m.LastChanged)
	e.SetSequence(max(m.Versions-1, 0))
	e.SetStartAt(m.Start())
	if end := m.End(); !end.IsZero() && end.After(m.Start()) {
		e.SetEndAt(end)
	}
	title := m.SourceTitle
	if title == "" {
		title = m.Source
	}
	e.SetSummary(clean(title + ": " + inc.Title))
	e.SetDescription(clean(description(m)))
	if m.Cancelled() {
		e.SetStatus(ics.ObjectStatusCancelled)
	} else {
		e.SetStatus(ics.ObjectStatusConfirmed)
	}
	if u := cleanURL(inc.URL); u != "" {
		e.SetURL(u)
	} else if m.UIURL != "" {
		e.SetURL(cleanURL(m.UIURL))
	}
	e.SetProperty(ics.ComponentPropertyCategories, "MAINTENANCE")
	e.SetProperty(ics.ComponentPropertyTransp, "TRANSPARENT") // a vendor's window is not our busy time
	return e
}

// description is the event's text: status, components, the latest update, our page.
func description(m *Maintenance) string {
	inc := m.Latest
	var b strings.Builder
	b.WriteString("Status: " + string(inc.Status))
	if m.Cancelled() {
		b.WriteString(" (cancelled)")
	}
	if len(inc.Components) > 0 {
		b.WriteString("\nComponents: " + strings.Join(inc.Components, ", "))
	}
	if n := len(inc.Updates); n > 0 {
		u := &inc.Updates[0]
		for i := range inc.Updates {
			if inc.Updates[i].PostedAt.After(u.PostedAt) {
				u = &inc.Updates[i]
			}
		}
		body := u.Body
		if u.Format == model.FormatHTML {
			if doc, err := html.Parse(strings.NewReader(body)); err == nil {
				body = htmltext.Of(doc, nil)
			}
		}
		if len(body) > 4000 {
			body = strings.ToValidUTF8(body[:4000], "") + "…"
		}
		b.WriteString("\n\n" + body)
	}
	if m.UIURL != "" {
		b.WriteString("\n\nArchive: " + m.UIURL)
	}
	return b.String()
}

// clean is vendor text fit for an iCalendar TEXT value: sanitize.Text (no control
// characters but newline and tab, valid UTF-8, no invisible format characters), with
// tabs as spaces. The library escapes backslash, semicolon, comma and newline.
func clean(s string) string {
	return strings.ReplaceAll(sanitize.Text(s), "\t", " ")
}

// cleanURL is a URL fit for a URI value: one line, no spaces or control characters;
// only http and https, in valid UTF-8, else "".
func cleanURL(s string) string {
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) || !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://") || strings.ContainsFunc(s, func(r rune) bool {
		return r <= ' ' || r == 0x7f || r == '"' || r == '<' || r == '>' || r == '\\'
	}) {
		return ""
	}
	return s
}
