package web

import (
	"bytes"
	"encoding/xml"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// feedEntries is how many of the latest changes a feed carries.
const feedEntries = 50

// The Atom feed (RFC 4287), written with encoding/xml, which escapes every string and
// replaces characters XML cannot carry; the entry content is the change view's HTML,
// whose vendor text is escaped once more inside it.

type atomFeed struct {
	XMLName   xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID        string      `xml:"id"`
	Title     string      `xml:"title"`
	Updated   string      `xml:"updated"`
	Generator string      `xml:"generator"`
	Links     []atomLink  `xml:"link"`
	Entries   []atomEntry `xml:"entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomEntry struct {
	ID        string     `xml:"id"`
	Title     string     `xml:"title"`
	Updated   string     `xml:"updated"`
	Published string     `xml:"published"`
	Author    atomPerson `xml:"author"`
	Links     []atomLink `xml:"link"`
	Summary   string     `xml:"summary"`
	Content   atomText   `xml:"content"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

// feed answers GET /feed.atom and GET /sources/{source}/feed.atom: the latest changes of
// every source, or of one, newest first, each an entry that links to its change view.
// An entry's id is a tag URI naming the change, tag:<host>,<date>:<source>/<id>/<n>,
// where host is the host of BaseURL (else "localhost") and date the day the change was
// observed, so it never changes however the feed is reached; updated is when the change
// was observed. Links are absolute: under BaseURL when set, else under the address the
// request came to. 404 for an unknown source.
func (s *Server) feed(w http.ResponseWriter, r *http.Request) {
	source := r.PathValue("source") // empty on /feed.atom
	infos, err := s.store.Incidents(source)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	if source != "" && len(infos) == 0 {
		known, err := s.knownSource(source)
		if err != nil {
			s.pageArchiveError(w, r, err, "")
			return
		}
		if !known {
			s.pageError(w, r, http.StatusNotFound, "Not found", "No source is named "+source+", in the config or in the archive.")
			return
		}
	}
	changes, err := s.recentChanges(infos, feedEntries)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}

	origin, host := s.origin(r)
	f := atomFeed{
		ID:        "tag:" + host + ",2026:statuswatch/feed",
		Title:     "statuswatch: every change",
		Generator: "statuswatch",
		Links: []atomLink{
			{Rel: "self", Type: "application/atom+xml", Href: origin + s.prefix + "/feed.atom"},
			{Rel: "alternate", Type: "text/html", Href: origin + s.prefix + "/"},
		},
	}
	if source != "" {
		f.ID = "tag:" + host + ",2026:statuswatch/sources/" + source + "/feed"
		f.Title = "statuswatch: " + s.title(source)
		f.Links = []atomLink{
			{Rel: "self", Type: "application/atom+xml", Href: origin + s.sourcePath(source) + "/feed.atom"},
			{Rel: "alternate", Type: "text/html", Href: origin + s.sourcePath(source)},
		}
	}
	f.Updated = atomTime(s.now())
	if len(changes) > 0 {
		f.Updated = atomTime(changes[0].v.ObservedAt)
	}
	for _, c := range changes {
		f.Entries = append(f.Entries, s.atomEntry(c, origin, host))
	}

	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(f); err != nil {
		s.log.Error("writing a feed failed", "path", r.URL.Path, "err", err)
		s.pageError(w, r, http.StatusInternalServerError, "Internal error", "The feed could not be written.")
		return
	}
	buf.WriteByte('\n')
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(buf.Bytes())
}

// atomEntry is one change as a feed entry.
func (s *Server) atomEntry(c change, origin, host string) atomEntry {
	src, inc := c.info.Source, &c.v.Incident
	link := origin + s.changePath(src, c.info.ID, c.v.N)
	var content bytes.Buffer
	content.WriteString("<p>")
	xml.EscapeText(&content, []byte(c.v.Summary)) // the same escaping HTML needs for text
	content.WriteString(` <a href="` + html.EscapeString(link) + `">View change ` + strconv.Itoa(c.v.N) + "</a></p>\n")
	// A feed reader has no stylesheet to hide the cues for screen readers with; <del> and
	// <ins> say it there.
	content.WriteString(hiddenCues.Replace(string(s.changeHTML(src, c.info.ID, c.v))))
	return atomEntry{
		ID:        "tag:" + host + "," + c.v.ObservedAt.UTC().Format(time.DateOnly) + ":" + src + "/" + model.URLID(c.info.ID) + "/" + strconv.Itoa(c.v.N),
		Title:     s.title(src) + ": " + titleOf(inc),
		Updated:   atomTime(c.v.ObservedAt),
		Published: atomTime(c.v.ObservedAt),
		Author:    atomPerson{Name: s.title(src)},
		Links:     []atomLink{{Rel: "alternate", Type: "text/html", Href: link}},
		Summary:   c.v.Summary,
		Content:   atomText{Type: "html", Body: content.String()},
	}
}

var hiddenCues = strings.NewReplacer(`<span class="vh">removed: </span>`, "", `<span class="vh">added: </span>`, "")

func atomTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// origin is the scheme and host absolute links start with, and the host the tag URIs
// name: BaseURL's when set; else the request's, for links, and "localhost" for ids, which
// must not change with the name a reader used to reach us.
func (s *Server) origin(r *http.Request) (origin, host string) {
	if u, err := url.Parse(s.baseURL); err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host, u.Hostname()
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host, "localhost"
}
