package ui

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"html/template"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// The UI is server-rendered with html/template: the templates and the
// static files (one stylesheet, one small script that no page needs) are embedded, and
// the templates parsed once, when the package loads. Each page is the layout plus its
// own template; handlers build a view value in Go and the templates only lay it out.

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// ContentSecurityPolicy is sent with every HTML page: only our own script and styles,
// no inline script or style, no plugins, no framing, forms only to ourselves.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// pageNames are the pages, each templates/<name>.html defining "content".
var pageNames = []string{"dashboard", "source", "incident", "change", "compare", "search", "error", "stats", "events", "event"}

// pageTemplates holds each page parsed with the layout, parsed on first use: every
// command links this package, and only the daemon's web server renders a page (parsing
// at init cost every `watcher poll` ~7 ms). A template that does not parse is a build bug:
// it panics, and TestTemplatesParse fails.
var pageTemplates = sync.OnceValue(func() map[string]*template.Template {
	base := template.Must(template.New("layout.html").Funcs(templateFuncs).
		ParseFS(templateFS, "templates/layout.html", "templates/partials.html"))
	out := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		out[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, "templates/"+name+".html"))
	}
	return out
})

// assetVersions maps each static file to a short hash of its content, appended to its
// URL so a browser that cached an older copy fetches the new one. Computed on first use,
// as pageTemplates.
var assetVersions = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	err := fs.WalkDir(staticFS, "static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := staticFS.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[strings.TrimPrefix(path, "static/")] = hex.EncodeToString(sum[:6])
		return nil
	})
	if err != nil {
		panic(err)
	}
	return out
})

var templateFuncs = template.FuncMap{
	"asset": func(name string) string { return "/static/" + name + "?v=" + assetVersions()[name] },
	"inc":   func(n int) int { return n + 1 },
	"refreshEvery": func(seconds int) string {
		if seconds%60 == 0 {
			if seconds == 60 {
				return "minute"
			}
			return strconv.Itoa(seconds/60) + " minutes"
		}
		return strconv.Itoa(seconds) + " seconds"
	},
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.Itoa(n) + " " + many
	},
}

// pageData is what the layout needs; Data is the page's own view.
type pageData struct {
	Title string // the <title>, before " · statuswatch"
	Nav   string // the active item of the main navigation, "overview", "events" or "search", on that page only
	Query string // the search box's value
	Feed  string // the page's Atom feed, announced with <link rel="alternate">
	JSON  string // the page's JSON twin in the API, linked from the footer
	// Refresh is how often, in seconds, app.js reloads the page while it is shown (0:
	// never). A meta element carries it, so the page has no inline script.
	Refresh int
	Crumbs  []crumb // the breadcrumb trail above the heading, when the page is nested
	Parked  int     // parked outbox messages, shown as a banner
	// ParkedBy counts them by receiver when some are a receiver's other than Slack's
	// (the banner then names each); nil when all are Slack's.
	ParkedBy []ReceiverCount
	Prefix   string     // the path of BaseURL, before every link
	Now      view.Stamp // when the page was rendered
	Data     any
}

// How often the pages that follow live data reload themselves: every minute while
// something they show is open, every five minutes otherwise. Polls run every few
// minutes, so a shorter interval would only reload the same page.
const (
	refreshOpen  = 60
	refreshQuiet = 300
)

func refreshFor(open bool) int {
	if open {
		return refreshOpen
	}
	return refreshQuiet
}

// crumb is one link of the breadcrumb trail.
type crumb struct {
	Label, URL string
}

// render answers status with the page name, rendered into a buffer first so that a
// template error is a clean 500 rather than half a page.
func (s *Site) render(w http.ResponseWriter, r *http.Request, status int, name string, p *pageData) {
	p.Prefix = s.prefix
	p.Now = s.stamp(s.now())
	p.Parked, p.ParkedBy = s.parkedCount(r)
	var buf bytes.Buffer
	if err := pageTemplates()[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		s.log.Error("rendering a page failed", "page", name, "path", r.URL.Path, "err", err)
		setHTMLHeaders(w.Header())
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("<!doctype html><title>Error</title><p>Internal error: the page could not be rendered.</p>\n"))
		return
	}
	setHTMLHeaders(w.Header())
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// setHTMLHeaders sets the headers of every HTML answer. Pages show live data, so a
// browser revalidates them every time.
func setHTMLHeaders(h http.Header) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("Cache-Control", "no-cache")
}

// parkedTTL is how long the count of parked messages is reused. Counting reads the whole
// outbox, which grows while Slack is unreachable; a banner a few seconds late costs
// nothing, a full scan on every page load would.
const parkedTTL = 5 * time.Second

// parkedCache remembers the last count of parked messages.
type parkedCache struct {
	mu  sync.Mutex
	at  time.Time // when counted (monotonic clock), zero: never
	n   int
	by  []ReceiverCount
	ttl time.Duration
}

// ReceiverCount is a number of messages of one receiver ("slack" for the default sink).
type ReceiverCount struct {
	Receiver string
	Count    int
}

// parkedCount is the number of parked outbox messages, for the banner, and their
// count by receiver when not all are Slack's. A failure to read it is logged and shows
// no banner: the page itself may still be readable.
func (s *Site) parkedCount(r *http.Request) (int, []ReceiverCount) {
	c := &s.parked
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < c.ttl {
		return c.n, c.by
	}
	msgs, err := s.store.Messages(model.MessageParked)
	if err != nil {
		s.log.Error("archive read failed", "method", r.Method, "path", r.URL.Path, "err", err)
		return 0, nil
	}
	counts := map[string]int{}
	for _, m := range msgs {
		counts[cmp.Or(m.Receiver, "slack")]++
	}
	var by []ReceiverCount
	if len(counts) > 1 || counts["slack"] == 0 {
		for _, name := range slices.Sorted(maps.Keys(counts)) {
			by = append(by, ReceiverCount{name, counts[name]})
		}
	}
	c.at, c.n, c.by = time.Now(), len(msgs), by
	return c.n, c.by
}

// errorView is the error page's view.
type errorView struct {
	Status  int
	Heading string
	Message string
}

// Error answers status with an error page.
func (s *Site) Error(w http.ResponseWriter, r *http.Request, status int, heading, msg string) {
	s.render(w, r, status, "error", &pageData{
		Title: heading,
		Data:  errorView{Status: status, Heading: heading, Message: msg},
	})
}

// pageArchiveError is archiveError for pages: a 404 page with notFound for
// archive.ErrNotFound, else a 500 page, the details logged and not shown.
func (s *Site) pageArchiveError(w http.ResponseWriter, r *http.Request, err error, notFound string) {
	if errors.Is(err, archive.ErrNotFound) {
		s.Error(w, r, http.StatusNotFound, "Not found", notFound)
		return
	}
	s.log.Error("archive read failed", "method", r.Method, "path", r.URL.Path, "err", err)
	s.Error(w, r, http.StatusInternalServerError, "Internal error", "The archive could not be read. The details are in the daemon's log.")
}

// stamp is t as the pages show it, seen at the server's clock.
func (s *Site) stamp(t time.Time) view.Stamp { return view.NewStamp(t, s.now()) }

// stampSeconds is stamp with seconds, for observation times.
func (s *Site) stampSeconds(t time.Time) view.Stamp { return view.NewStampSeconds(t, s.now()) }
