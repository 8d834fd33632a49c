package ui

import (
	"bytes"
	"encoding/xml"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/atom"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/recent"
	"github.com/statuswatch/statuswatch/internal/web/vendortext"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// feedEntries is how many of the latest changes a feed carries.
const feedEntries = 50

// Feed answers GET /feed.atom and GET /sources/{source}/feed.atom: the latest changes of
// every source, or of one, newest first, each an entry that links to its change view.
// An entry's id is a tag URI naming the change, tag:<host>,<date>:<source>/<id>/<n>,
// where host is the host of BaseURL (else "localhost") and date the day the change was
// observed, so it never changes however the feed is reached; updated is when the change
// was observed. Links are absolute: under BaseURL when set, else under the address the
// request came to. 404 for an unknown source.
func (s *Site) Feed(w http.ResponseWriter, r *http.Request) {
	source := r.PathValue("source") // empty on /feed.atom
	infos, err := s.store.Incidents(source)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	if source != "" && len(infos) == 0 {
		known, err := query.KnownSource(s.store, source, s.configured(source))
		if err != nil {
			s.pageArchiveError(w, r, err, "")
			return
		}
		if !known {
			s.Error(w, r, http.StatusNotFound, "Not found", "No source is named "+source+", in the config or in the archive.")
			return
		}
	}
	changes, err := recent.Changes(s.store, infos, feedEntries)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}

	origin, host := s.origin(r)
	f := atom.Feed{
		ID:        "tag:" + host + ",2026:statuswatch/feed",
		Title:     "statuswatch: every change",
		Generator: "statuswatch",
		Links: []atom.Link{
			{Rel: "self", Type: "application/atom+xml", Href: origin + s.prefix + "/feed.atom"},
			{Rel: "alternate", Type: "text/html", Href: origin + s.prefix + "/"},
		},
	}
	if source != "" {
		f.ID = "tag:" + host + ",2026:statuswatch/sources/" + source + "/feed"
		f.Title = "statuswatch: " + s.title(source)
		f.Links = []atom.Link{
			{Rel: "self", Type: "application/atom+xml", Href: origin + s.paths.Source(source) + "/feed.atom"},
			{Rel: "alternate", Type: "text/html", Href: origin + s.paths.Source(source)},
		}
	}
	f.Updated = atom.Time(s.now())
	if len(changes) > 0 {
		f.Updated = atom.Time(changes[0].At())
	}
	for _, c := range changes {
		if c.Sight != nil {
			f.Entries = append(f.Entries, s.sightEntry(c.Sight, origin, host))
			continue
		}
		f.Entries = append(f.Entries, s.changeEntry(c, origin, host))
	}

	data, err := f.Encode()
	if err != nil {
		s.log.Error("writing a feed failed", "path", r.URL.Path, "err", err)
		s.Error(w, r, http.StatusInternalServerError, "Internal error", "The feed could not be written.")
		return
	}
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(data)
}

// changeEntry is one change as a feed entry, titled by what changed ("Resolved: <title>
// · <source>"). A feed reader has none of our CSS, so the content is HTML that reads
// without it: the summary and a link to the change view; each update the change added,
// and a postmortem it published, as the incident page shows them (paragraphs, lists,
// links); then the other changes field by field, their line breaks as <br>.
func (s *Site) changeEntry(c recent.Change, origin, host string) atom.Entry {
	src, inc := c.Info.Source, &c.V.Incident
	link := origin + s.paths.Change(src, c.Info.ID, c.V.N)
	var content bytes.Buffer
	content.WriteString("<p>")
	xml.EscapeText(&content, []byte(c.V.Summary)) // the same escaping HTML needs for text
	content.WriteString(` <a href="` + html.EscapeString(link) + `">View change ` + strconv.Itoa(c.V.N) + "</a></p>\n")
	var rest []model.Change
	var added []*model.Update
	var pm *model.Postmortem
	for _, ch := range c.V.Changes {
		switch {
		case ch.Before == nil && ch.After != nil && strings.HasPrefix(ch.Field, "updates[") && strings.HasSuffix(ch.Field, "]"):
			if u := findUpdate(inc, strings.TrimSuffix(strings.TrimPrefix(ch.Field, "updates["), "]")); u != nil {
				added = append(added, u)
				continue
			}
		case ch.Field == diff.FieldPostmortemBody && ch.Before == nil && inc.Postmortem != nil:
			pm = inc.Postmortem
			continue
		}
		rest = append(rest, ch)
	}
	slices.SortStableFunc(added, func(a, b *model.Update) int { return a.PostedAt.Compare(b.PostedAt) })
	for _, u := range added {
		content.WriteString("<h3>New update · " + html.EscapeString(diff.UpdateCaption(u)) + "</h3>\n")
		content.WriteString(string(vendortext.LinkifyHTML(vendortext.UpdateHTML(u))) + "\n")
	}
	if pm != nil {
		content.WriteString("<h3>Postmortem</h3>\n" + string(vendortext.LinkifyHTML(vendortext.PostmortemHTML(pm))) + "\n")
	}
	if len(rest) > 0 {
		// Without our stylesheet the cues for screen readers would show: <del> and <ins>
		// say it there.
		content.WriteString(feedBreaks(hiddenCues.Replace(string(s.changeHTML(src, c.Info.ID, c.V, rest)))))
	}
	return atom.Entry{
		ID:        "tag:" + host + "," + c.V.ObservedAt.UTC().Format(time.DateOnly) + ":" + src + "/" + model.URLID(c.Info.ID) + "/" + strconv.Itoa(c.V.N),
		Title:     headline(c.V) + ": " + view.Title(inc) + " · " + s.title(src),
		Updated:   atom.Time(c.V.ObservedAt),
		Published: atom.Time(c.V.ObservedAt),
		Author:    atom.Person{Name: s.title(src)},
		Links:     []atom.Link{{Rel: "alternate", Type: "text/html", Href: link}},
		Summary:   c.V.Summary,
		Content:   atom.Text{Type: "html", Body: content.String()},
	}
}

// sightListed is how many of a first poll's incidents its feed entry names.
const sightListed = 50

// sightEntry is a source's first poll as one feed entry: what it archived, each incident
// linked, not one "new incident" entry each. Its id names the source's first poll.
func (s *Site) sightEntry(g *recent.FirstSight, origin, host string) atom.Entry {
	src := g.Source
	var content strings.Builder
	content.WriteString("<p>" + html.EscapeString(firstSightSummary(len(g.Incidents))) + ":</p>\n<ul>\n")
	for _, in := range g.Incidents[:min(sightListed, len(g.Incidents))] {
		content.WriteString(`<li><a href="` + html.EscapeString(origin+s.paths.Incident(src, in.ID)) + `">` + html.EscapeString(view.Title(&in.Latest)) + "</a> · " +
			html.EscapeString(view.StatusBadge(in.Latest.Status).Label) + "</li>\n")
	}
	content.WriteString("</ul>\n")
	if more := len(g.Incidents) - sightListed; more > 0 {
		content.WriteString(`<p><a href="` + html.EscapeString(origin+s.paths.Source(src)) + `">` + view.Plural(more, "more incident") + "</a></p>\n")
	}
	return atom.Entry{
		ID:        "tag:" + host + "," + g.At.UTC().Format(time.DateOnly) + ":" + src + "/first-sight",
		Title:     "Archived on first sight: " + view.Plural(len(g.Incidents), "incident") + " · " + s.title(src),
		Updated:   atom.Time(g.At),
		Published: atom.Time(g.At),
		Author:    atom.Person{Name: s.title(src)},
		Links:     []atom.Link{{Rel: "alternate", Type: "text/html", Href: origin + s.paths.Source(src)}},
		Summary:   firstSightSummary(len(g.Incidents)) + ".",
		Content:   atom.Text{Type: "html", Body: content.String()},
	}
}

// headline says what a change did, for a feed entry's title: "New incident", "New
// maintenance", "Resolved" (or "Completed"), "Postmortem published", a new status
// ("Identified"), "New update", "Update edited", else "Changed". The most important
// wins when a change set does several.
func headline(v *model.Version) string {
	if v.N == 1 {
		if v.Incident.Kind == model.KindMaintenance {
			return "New maintenance"
		}
		return "New incident"
	}
	var status, added, edited, postmortem, title bool
	for _, c := range v.Changes {
		switch {
		case c.Field == diff.FieldStatus && c.After != nil:
			status = true
		case c.Field == diff.FieldPostmortemBody && c.Before == nil:
			postmortem = true
		case c.Field == diff.FieldTitle:
			title = true
		case strings.HasPrefix(c.Field, "updates["):
			if strings.HasSuffix(c.Field, "]") && c.Before == nil {
				added = true
			} else {
				edited = true
			}
		}
	}
	st := v.Incident.Status
	switch {
	case status && !st.Open() && st != model.StatusPostmortem:
		return view.StatusBadge(st).Label
	case postmortem:
		return "Postmortem published"
	case status:
		return view.StatusBadge(st).Label
	case added:
		return "New update"
	case edited:
		return "Update edited"
	case title:
		return "Title edited"
	}
	return "Changed"
}

// feedBreaks writes the line breaks inside the values of diff.HTML (<dd>…</dd>, which
// the page shows with white-space: pre-wrap) as <br>, for a reader without our CSS.
// diff.HTML puts no newline of its own inside a <dd>, and escapes vendor text, so "<dd"
// and "</dd>" are its markup.
func feedBreaks(h string) string {
	var b strings.Builder
	for {
		i := strings.Index(h, "<dd")
		if i < 0 {
			b.WriteString(h)
			return b.String()
		}
		j := strings.Index(h[i:], "</dd>")
		if j < 0 {
			b.WriteString(h)
			return b.String()
		}
		b.WriteString(h[:i])
		b.WriteString(strings.ReplaceAll(h[i:i+j], "\n", "<br>\n"))
		h = h[i+j:]
	}
}

var hiddenCues = strings.NewReplacer(`<span class="vh">removed: </span>`, "", `<span class="vh">added: </span>`, "")

// origin is the scheme and host absolute links start with, and the host the tag URIs
// name: BaseURL's when set; else the request's, for links, and "localhost" for ids, which
// must not change with the name a reader used to reach us.
func (s *Site) origin(r *http.Request) (origin, host string) {
	if u, err := url.Parse(s.baseURL); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host, u.Hostname()
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host, "localhost"
}

// findUpdate is the update of inc with the id, or nil.
func findUpdate(inc *model.Incident, id string) *model.Update {
	for i := range inc.Updates {
		if inc.Updates[i].ID == id {
			return &inc.Updates[i]
		}
	}
	return nil
}
