// Package ui is the reader's side of the web server: the pages, rendered on the server
// with html/template from the templates embedded in templates/ (parsed once), the
// stylesheet and script embedded in static/, and the Atom feeds that are the pages'
// twins. The server in internal/web routes the requests here and holds the guards in
// front of them (Host check, authentication, the whole-archive read gate); this package
// answers, reading the archive and the daemon's report of its sources.
package ui

import (
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/correlate/archived"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// Options configure a Site. Every field but Sources is required.
type Options struct {
	// Store is the archive the pages read.
	Store *archive.Store
	// Sources reports the configured sources with the daemon's poll state, in config
	// order; nil when no daemon runs, and every archived source is shown as it stands
	// rather than as retired.
	Sources func() []view.SourceStatus
	// BaseURL is the public URL of the UI; its path is the prefix of every link.
	BaseURL string
	// Log receives the errors of archive reads and rendering.
	Log *slog.Logger
	// Now is the clock of stamps ("3h ago") and durations.
	Now func() time.Time
	// Title is a source's display name.
	Title func(source string) string
	// Events is the correlation of the archive: the events pages and the incident page's
	// Related panel; nil shows none.
	Events *archived.Index
}

// Site answers the UI's routes: each page's handler is a method (Dashboard, Source,
// Incident, Change, Compare, Search, Stats, Feed, Static). Its methods are safe for concurrent use.
type Site struct {
	store   *archive.Store
	sources func() []view.SourceStatus
	daemon  bool // Sources was given
	baseURL string
	prefix  string // the path of baseURL: the UI's links start with it
	paths   view.Paths
	log     *slog.Logger
	now     func() time.Time
	title   func(string) string
	parked  parkedCache // the banner's count of parked messages
	events  *archived.Index
}

// New returns a Site for o.
func New(o Options) *Site {
	s := &Site{
		store:   o.Store,
		sources: o.Sources,
		daemon:  o.Sources != nil,
		baseURL: strings.TrimRight(o.BaseURL, "/"),
		prefix:  basePath(o.BaseURL),
		paths:   view.Paths{Prefix: basePath(o.BaseURL)},
		log:     o.Log,
		now:     o.Now,
		title:   o.Title,
		parked:  parkedCache{ttl: parkedTTL},
		events:  o.Events,
	}
	if s.sources == nil {
		s.sources = func() []view.SourceStatus { return nil }
	}
	return s
}

// basePath is the path of a base URL without its trailing slash: "" for
// https://watch.example.com, "/watch" for https://example.com/watch/. The UI's links start
// with it, so the UI works behind a reverse proxy that serves it under a path (and strips
// that path before passing requests on).
func basePath(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return strings.TrimRight(u.EscapedPath(), "/")
}

// configured reports whether the config names source.
func (s *Site) configured(source string) bool {
	for _, st := range s.sources() {
		if st.Name == source {
			return true
		}
	}
	return false
}
