// Provider auto-detection (kind auto): which adapter reads a status page. The
// evidence is taken in this order, cheapest and surest first:
//
//  1. Host rules: the hosts of the platforms themselves (*.statuspage.io, *.instatus.com,
//     …) and of the bespoke pages (status.cloud.google.com, health.aws.amazon.com, …).
//     They cost no request.
//  2. The page's response headers: Atlassian Statuspage pages answer every request with
//     x-statuspage-version and x-statuspage-skip-logging (seen on githubstatus.com's
//     responses; both are also the Statuspage signatures of the intrigue-ident
//     fingerprint set). No header of another platform is used: none was found documented
//     or captured.
//  3. Structural probes of the platforms' JSON endpoints, relative to the page as a
//     directory. A platform is accepted only on the shape of its answer, never on a 200:
//     some platforms (and most single-page apps) answer 200 with HTML, or with one
//     catch-all document, for every path. The shapes are those of the real payloads in
//     testdata/ (and of the documented formats where none exists), and the adapter's own
//     decoder must accept the answer too, so a detected page is one its adapter can read.
//  4. What the page itself said: a status.io page id on it (status.io's API lives on
//     another host), or that the URL is an RSS/Atom feed (kind feed, the URL being the
//     feed; the AWS and Azure feeds are recognised by their generator and title).
//
// A Detect makes at most maxDetectRequests requests, each on the Client's one request
// path, the polls' (its timeout, body cap, concurrency caps, User-Agent and redirect
// guard).

package fetch

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/statuswatch/statuswatch/internal/fetch/payload"
)

// Detection is the outcome of a successful Detect.
type Detection struct {
	// Kind is the provider kind, one of Kinds().
	Kind string
	// URL is the source URL to use with Kind: for kind feed the feed itself; otherwise the
	// page, as a directory its endpoints resolve against (a URL given as one of the
	// platform's endpoints, …/api/v2/summary.json say, is cut back to its page). Query
	// and fragment are dropped.
	URL string
	// Evidence is one short line saying why, e.g. "host rule: *.statuspage.io" or
	// "/index.json is JSON:API with data.type \"status_page\" (Better Stack shape)". It
	// holds no tab or newline.
	Evidence string
}

// Detector detects the provider of a status page.
type Detector struct {
	// Client makes the requests. Required unless a host rule decides.
	Client *Client
	// HostRules maps a host name (lower case, without port) to a provider kind. nil means
	// DefaultHostRules. Tests inject their own, since their servers live on 127.0.0.1.
	HostRules func(host string) (kind string, ok bool)
	// Headers are sent with every request (a source's headers). They are secrets: they
	// never appear in an error or in the evidence.
	Headers map[string]string
}

// ErrNotDetected is matched (errors.Is) by the error of a Detect that recognised no
// platform; its text lists what was tried.
var ErrNotDetected = errors.New("no status-page platform recognised")

// maxDetectRequests bounds the requests of one Detect: the page and six probes make seven.
const maxDetectRequests = 8

// ---- Host rules ----

// DefaultHostRules maps the hosts of known platforms and bespoke pages to their kind.
func DefaultHostRules(host string) (string, bool) {
	kind, _, ok := hostRule(host)
	return kind, ok
}

// hostRule is DefaultHostRules with the rule that matched, for the evidence.
func hostRule(host string) (kind, rule string, ok bool) {
	host = normHost(host)
	all := platforms()
	for _, p := range all {
		if slices.Contains(p.Hosts, host) {
			return p.Kind, host, true
		}
	}
	for _, p := range all {
		if slices.Contains(p.NotPages, host) {
			return "", "", false
		}
	}
	for _, p := range all {
		for _, suffix := range p.HostSuffixes {
			if strings.HasSuffix(host, suffix) && len(host) > len(suffix) {
				return p.Kind, "*" + suffix, true
			}
		}
	}
	return "", "", false
}

// normHost is a host name as the rules see it: lower case, without the root's dot.
func normHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
}

// ---- Detect ----

// Detect names the provider of the status page at pageURL (see the file comment for the
// order of the evidence). An error says what was tried; it matches ErrNotDetected when
// the page answered but was recognised as nothing, and carries the transport error when
// the page could not be read at all.
func (d *Detector) Detect(ctx context.Context, pageURL string) (Detection, error) {
	u, err := url.Parse(strings.TrimSpace(pageURL))
	if err != nil {
		return Detection{}, fmt.Errorf("detect: bad url: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Detection{}, fmt.Errorf("detect %s: want an absolute http(s) URL", u.Redacted())
	}
	u.Fragment, u.RawFragment = "", ""
	host := normHost(u.Hostname())

	// 1. Host rules.
	var kind, rule string
	var ok bool
	if d.HostRules != nil {
		if kind, ok = d.HostRules(host); ok {
			rule = host
		}
	} else {
		kind, rule, ok = hostRule(host)
	}
	if ok {
		if _, known := registry[kind]; !known {
			return Detection{}, fmt.Errorf("detect %s: host rule for %s gave unknown kind %q", u.Redacted(), host, kind)
		}
		return Detection{Kind: kind, URL: hostRuleURL(kind, u), Evidence: "host rule: " + rule}, nil
	}

	if d.Client == nil {
		return Detection{}, fmt.Errorf("detect %s: no client", u.Redacted())
	}
	r := &detectRun{d: d, name: u.Redacted()}
	return r.run(ctx, u)
}

// hostRuleURL is the source URL for a page a host rule recognised: the platform's
// PageURL, else the page as a directory.
func hostRuleURL(kind string, u *url.URL) string {
	if p, ok := registry[kind]; ok && p.PageURL != nil {
		return p.PageURL(u)
	}
	return pageDir(u).String()
}

// endpointSuffixes are every platform's EndpointPaths, the longest first, so that a path
// ending in two of them (/api/v2/summary.json and /summary.json) is cut at the longer.
func endpointSuffixes() []string {
	var out []string
	for _, p := range platforms() {
		out = append(out, p.EndpointPaths...)
	}
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return slices.Compact(out)
}

// pageDir is the page of u: u without query and fragment, and without the platform
// endpoint its path ends with, if any.
func pageDir(u *url.URL) *url.URL {
	c := *u
	c.RawQuery, c.Fragment, c.RawFragment = "", "", ""
	if p, ok := cutEndpoint(c.Path); ok {
		c.Path, c.RawPath = p, ""
	}
	return &c
}

// cutEndpoint cuts a platform endpoint off the end of a path, keeping the slash before
// it: "/acme/api/v2/summary.json" is "/acme/".
func cutEndpoint(p string) (string, bool) {
	for _, s := range endpointSuffixes() {
		if q, ok := strings.CutSuffix(p, s); ok {
			return q + "/", true
		}
	}
	return p, false
}

// judge runs the checks of the probes on one path over its answer, in order, until one
// returns a kind or a why.
func judge(group []Probe, contentType string, body []byte) (kind, evidence, why string) {
	for _, p := range group {
		if kind, evidence, why = p.Check(contentType, body); kind != "" || why != "" {
			return kind, evidence, why
		}
	}
	return "", "", "no platform's shape"
}

// detectRun is the state of one Detect past the host rules.
type detectRun struct {
	d        *Detector
	name     string   // the page URL as errors show it
	requests int      // made so far
	tried    []string // what was tried and what it gave, for the error
}

// run does steps 2 to 4 of the file comment.
func (r *detectRun) run(ctx context.Context, u *url.URL) (Detection, error) {
	dir := pageDir(u)
	page, err := r.get(ctx, u.String())
	if err != nil {
		// Nothing answers: the probes, on the same host, would not either.
		return Detection{}, fmt.Errorf("detect %s: %w", r.name, err)
	}

	// 2. Headers (of a page that answered: an error page says less of its host's pages).
	if page.ok() {
		for _, p := range platforms() {
			for _, h := range p.Headers {
				if page.header.Get(h) != "" {
					return Detection{Kind: p.Kind, URL: dir.String(), Evidence: "header " + strings.ToLower(h)}, nil
				}
			}
		}
	}

	// The URL may be a feed. A platform's own feed (history.atom, feed.atom, …) is read
	// better by the platform's adapter, so its page is probed first; any other feed is
	// the source itself.
	var feed *Detection
	if page.ok() {
		f, generic, why := feedDetection(u, page.body)
		switch {
		case f != nil && !generic:
			return *f, nil
		case f != nil:
			if _, platformFeed := cutEndpoint(u.Path); !platformFeed {
				return *f, nil
			}
			feed = f
		default:
			// A status.io page id on it is looked at last (step 4); on failure, there was none.
			r.note("page: %s, no platform header, %s, no status.io page id", page.describe(), why)
		}
	} else {
		r.note("page: %s", page.describe())
	}

	// 3. Structural probes.
	for _, group := range probes() {
		p := group[0]
		if ctx.Err() != nil {
			return Detection{}, fmt.Errorf("detect %s: %w", r.name, ctx.Err())
		}
		if r.requests >= maxDetectRequests {
			r.note("stopped after %d requests", r.requests)
			break
		}
		ref, _ := url.Parse(p.Rel)
		target := dirBase(dir).ResolveReference(ref)
		path := "/" + strings.SplitN(p.Rel, "?", 2)[0]
		resp, err := r.get(ctx, target.String())
		if err != nil {
			if ctx.Err() != nil {
				return Detection{}, fmt.Errorf("detect %s: %w", r.name, ctx.Err())
			}
			r.note("%s: %v", path, err)
			continue
		}
		if !resp.ok() {
			r.note("%s: %s", path, resp.describe())
			continue
		}
		kind, evidence, why := judge(group, resp.contentType, resp.body)
		if kind != "" {
			return Detection{Kind: kind, URL: dir.String(), Evidence: path + " " + evidence}, nil
		}
		r.note("%s: %s", path, why)
	}

	// 4. What the page said: a status.io page id, or that it is a feed.
	if page.ok() {
		for _, p := range platforms() {
			if p.Page == nil {
				continue
			}
			if d := p.Page(u, page.body); d != nil {
				return *d, nil
			}
		}
	}
	if feed != nil {
		return *feed, nil
	}
	return Detection{}, fmt.Errorf("detect %s: %w; tried: host rules (none for %s); %s",
		r.name, ErrNotDetected, normHost(u.Hostname()), strings.Join(r.tried, "; "))
}

// dirBase is dir with a trailing slash, so references resolve under it.
func dirBase(dir *url.URL) *url.URL {
	c := *dir
	if !strings.HasSuffix(c.Path, "/") {
		c.Path += "/"
		if c.RawPath != "" {
			c.RawPath += "/"
		}
	}
	return &c
}

func (r *detectRun) note(format string, args ...any) {
	r.tried = append(r.tried, fmt.Sprintf(format, args...))
}

// ---- Fetching ----

// detectResp is one answer. Only a 2xx answer has its body read.
type detectResp struct {
	status      int
	header      http.Header
	contentType string
	body        []byte
}

func (p *detectResp) ok() bool { return p.status >= 200 && p.status < 300 }

// describe says what the answer was, for the error: its status, or what its body is.
func (p *detectResp) describe() string {
	if !p.ok() {
		return (&StatusError{Code: p.status}).Error()
	}
	b := bytes.TrimLeft(bytes.TrimPrefix(p.body, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(b) == 0:
		return "empty 200"
	case b[0] == '<' && (payload.LooksHTML(b) || strings.Contains(strings.ToLower(p.contentType), "html")):
		return "200 HTML"
	case b[0] == '<':
		return "200 XML"
	case b[0] == '{' || b[0] == '[':
		return "200 JSON"
	}
	return "200 " + safeWord(p.contentType)
}

// get reads rawURL on the client's request path (Client.do: its slots, timeout,
// User-Agent, redirect guard and body cap), unconditionally and with the source's
// headers, counting it against the budget. A non-2xx answer is not an error here: its
// status is reported and its body drained unread.
func (r *detectRun) get(ctx context.Context, rawURL string) (*detectResp, error) {
	if r.requests >= maxDetectRequests {
		return nil, fmt.Errorf("request budget of %d spent", maxDetectRequests)
	}
	r.requests++
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	rep, err := r.d.Client.do(ctx, call{raw: rawURL, u: u, headers: r.d.Headers})
	if err != nil {
		return nil, err
	}
	out := &detectResp{status: rep.status, header: rep.header, contentType: rep.header.Get("Content-Type")}
	if rep.body != nil {
		out.body = bytes.Clone(rep.body.Bytes())
		putBuffer(rep.body)
	}
	return out, nil
}

// ---- What the page says ----

// feedDetection recognises a URL that answers an RSS or Atom feed the feed adapter can
// read. The AWS Health Dashboard's all.rss and the Azure status feed, at the paths their
// adapters read, are those platforms, and so is a status.io page's /pages/<id>/rss whose
// items link that page's incidents; any other feed the generic feed platform reads
// (Platform.ReadsFeed) is that platform's, and generic. nil, and why not, when the body
// is no feed.
func feedDetection(u *url.URL, body []byte) (d *Detection, generic bool, why string) {
	var reader *Platform
	for _, p := range platforms() {
		if p.ReadsFeed != nil {
			reader = &p
			break
		}
	}
	if reader == nil || reader.ReadsFeed(body) != nil {
		return nil, false, "not a feed"
	}
	f, err := payload.ParseStatusFeed(body)
	if err != nil {
		return nil, false, "not a feed"
	}
	for _, p := range platforms() {
		if p.Feed == nil {
			continue
		}
		if d := p.Feed(u, f); d != nil {
			return d, false, ""
		}
	}
	title := strings.TrimSpace(f.Title)
	kind := "RSS"
	if f.FeedType == "atom" {
		kind = "Atom"
	}
	ev := "URL answers an " + kind + " feed"
	if title != "" {
		ev += " titled " + QuoteShort(title)
	}
	return &Detection{Kind: reader.Kind, URL: u.String(), Evidence: ev}, true, ""
}

// QuoteShort quotes vendor text for the evidence: escaped (no tab or newline survives)
// and cut to a few words.
func QuoteShort(s string) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) > 60 {
		return fmt.Sprintf("%q…", string(r[:60]))
	}
	return fmt.Sprintf("%q", string(r))
}

// safeWord is a content type (or other header) cut to what is safe to print.
func safeWord(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(no content type)"
	}
	return QuoteShort(s)
}
