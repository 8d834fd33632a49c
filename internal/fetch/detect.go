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
// A Detect makes at most maxDetectRequests requests, each through the Client (its
// timeouts, its body cap, its concurrency caps).

package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
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

// hostExact are hosts that are one platform's page.
var hostExact = map[string]string{
	"status.cloud.google.com": KindGCP,
	"health.aws.amazon.com":   KindAWS,
	"status.aws.amazon.com":   KindAWS,
	"azure.status.microsoft":  KindAzure,
	"status.azure.com":        KindAzure,
	"slack-status.com":        KindSlack,
	"www.slack-status.com":    KindSlack,
	"status.slack.com":        KindSlack,
	// incident.io's own page, and the pages hosted under its domain without a custom
	// one: https://statuspage.incident.io/<slug>.
	"status.incident.io":     KindIncidentIO,
	"statuspage.incident.io": KindIncidentIO,
	// Atlassian's own pages run on Statuspage (metastatuspage.com is Statuspage's).
	"status.atlassian.com": KindStatuspage,
	"metastatuspage.com":   KindStatuspage,
}

// hostSuffixes are the platforms' default page domains: <page>.<suffix>.
var hostSuffixes = []struct{ suffix, kind string }{
	{".statuspage.io", KindStatuspage},
	{".status.atlassian.com", KindStatuspage},
	{".instatus.com", KindInstatus},
	{".betteruptime.com", KindBetterStack},
	{".betterstack.com", KindBetterStack},
	{".status.io", KindStatusIO},
}

// hostNotPage are the platforms' own hosts under those suffixes that are no status page
// (their sites, apps, APIs and asset hosts).
var hostNotPage = map[string]bool{
	"www.statuspage.io": true, "api.statuspage.io": true, "manage.statuspage.io": true,
	"www.instatus.com": true, "api.instatus.com": true, "dashboard.instatus.com": true,
	"www.betteruptime.com": true, "api.betteruptime.com": true,
	"www.betterstack.com": true, "api.betterstack.com": true, "uptime.betterstack.com": true,
	"docs.betterstack.com": true, "logs.betterstack.com": true, "telemetry.betterstack.com": true,
	"www.status.io": true, "api.status.io": true, "app.status.io": true, "kb.status.io": true,
	"image.status.io": true, "cdn.status.io": true,
}

// DefaultHostRules maps the hosts of known platforms and bespoke pages to their kind.
func DefaultHostRules(host string) (string, bool) {
	kind, _, ok := hostRule(host)
	return kind, ok
}

// hostRule is DefaultHostRules with the rule that matched, for the evidence.
func hostRule(host string) (kind, rule string, ok bool) {
	host = normHost(host)
	if k, ok := hostExact[host]; ok {
		return k, host, true
	}
	if hostNotPage[host] {
		return "", "", false
	}
	for _, s := range hostSuffixes {
		if strings.HasSuffix(host, s.suffix) && len(host) > len(s.suffix) {
			return s.kind, "*" + s.suffix, true
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
		if _, known := factories[kind]; !known {
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

// hostRuleURL is the source URL for a page a host rule recognised.
func hostRuleURL(kind string, u *url.URL) string {
	switch kind {
	case KindFeed, KindAWS, KindStatusIO:
		// A feed is its own URL; the AWS adapter reads fixed URLs on the official hosts;
		// the status.io adapter cuts a /pages/<id> tail itself.
		return u.String()
	case KindAzure:
		// The adapter reads feed/ under the status page, which lives under a locale:
		// https://azure.status.microsoft/en-us/status/.
		c := *u
		c.RawQuery, c.RawPath = "", ""
		p := strings.TrimSuffix(strings.TrimSuffix(c.Path, "/"), "/feed")
		if !strings.Contains(p+"/", "/status/") {
			p = "/en-us/status"
		}
		c.Path = p + "/"
		return c.String()
	}
	return pageDir(u).String()
}

// endpointSuffixes are the platforms' endpoint paths: a URL given as one of them is cut
// back to its page (pageDir). Azure's feed/ is not among them: that is any bespoke
// feed's name too.
var endpointSuffixes = []string{
	"/api/v2/summary.json", "/api/v2/status.json", "/api/v2/incidents.json",
	"/api/v2/incidents/unresolved.json", "/api/v2/scheduled-maintenances.json",
	"/api/v2/components.json", "/history.atom", "/history.rss", "/feed.atom",
	"/summary.json", "/index.json", "/api/v1/incidents", "/api/v1/components",
	"/incidents.json", "/api/v2.0.0/current", "/api/v2.0.0/history",
	"/rss/all.rss", "/public/currentevents",
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
	for _, s := range endpointSuffixes {
		if q, ok := strings.CutSuffix(p, s); ok {
			return q + "/", true
		}
	}
	return p, false
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
		for _, h := range []string{"X-Statuspage-Version", "X-Statuspage-Skip-Logging"} {
			if page.header.Get(h) != "" {
				return Detection{Kind: KindStatuspage, URL: dir.String(), Evidence: "header " + strings.ToLower(h)}, nil
			}
		}
	}

	// The URL may be a feed. A platform's own feed (history.atom, feed.atom, …) is read
	// better by the platform's adapter, so its page is probed first; any other feed is
	// the source itself.
	var feed *Detection
	if page.ok() {
		f, why := feedDetection(u, page.body)
		switch {
		case f != nil && f.Kind != KindFeed:
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
	for _, p := range detectProbes {
		if ctx.Err() != nil {
			return Detection{}, fmt.Errorf("detect %s: %w", r.name, ctx.Err())
		}
		if r.requests >= maxDetectRequests {
			r.note("stopped after %d requests", r.requests)
			break
		}
		ref, _ := url.Parse(p.rel)
		target := dirBase(dir).ResolveReference(ref)
		path := "/" + strings.SplitN(p.rel, "?", 2)[0]
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
		kind, evidence, why := p.check(resp.contentType, resp.body)
		if kind != "" {
			return Detection{Kind: kind, URL: dir.String(), Evidence: path + " " + evidence}, nil
		}
		r.note("%s: %s", path, why)
	}

	// 4. What the page said: a status.io page id, or that it is a feed.
	if page.ok() {
		if id, ok := statusIOPageOn(page.body); ok {
			return Detection{Kind: KindStatusIO, URL: u.String(), Evidence: "page names status.io page id " + id}, nil
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
	case b[0] == '<' && (looksHTML(b) || strings.Contains(strings.ToLower(p.contentType), "html")):
		return "200 HTML"
	case b[0] == '<':
		return "200 XML"
	case b[0] == '{' || b[0] == '[':
		return "200 JSON"
	}
	return "200 " + safeWord(p.contentType)
}

// get reads rawURL through the client: its slots, its timeout, its body cap. It is
// Client.Get without conditional requests and with the response headers, which
// detection needs and Get does not return. A non-2xx answer is not an error here: its
// status is reported and its body drained unread.
func (r *detectRun) get(ctx context.Context, rawURL string) (*detectResp, error) {
	if r.requests >= maxDetectRequests {
		return nil, fmt.Errorf("request budget of %d spent", maxDetectRequests)
	}
	r.requests++
	c := r.d.Client
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	release, err := c.acquire(ctx, hostPort(u))
	if err != nil {
		return nil, err
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", c.ua)
	for k, v := range r.d.Headers {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is named by the caller
		}
		return nil, err
	}
	defer drainClose(resp.Body)
	out := &detectResp{status: resp.StatusCode, header: resp.Header, contentType: resp.Header.Get("Content-Type")}
	if !out.ok() {
		return out, nil
	}
	buf, err := c.readBody(resp)
	if err != nil {
		return nil, err
	}
	out.body = bytes.Clone(buf.Bytes())
	putBuffer(buf)
	return out, nil
}

// ---- What the page says ----

// statusIOPageOn finds a status.io page id on a page that is a status.io page: the id
// where the adapter looks for it (sioPageIDInPage), and status.io named on the page.
func statusIOPageOn(body []byte) (string, bool) {
	if !bytes.Contains(bytes.ToLower(body), []byte("status.io")) {
		return "", false
	}
	m := sioPageIDInPage.FindSubmatch(body)
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}

// sioFeedPath is the path of a status.io page's history feed, /pages/<page id>/rss.
var sioFeedPath = regexp.MustCompile(`/pages/([0-9a-fA-F]{24})/rss/?$`)

// feedDetection recognises a URL that answers an RSS or Atom feed the feed adapter can
// read. The AWS Health Dashboard's all.rss and the Azure status feed, at the paths their
// adapters read, are those platforms, and so is a status.io page's /pages/<id>/rss whose
// items link that page's incidents; any other feed is kind feed. nil, and why not, when
// the body is no feed.
func feedDetection(u *url.URL, body []byte) (*Detection, string) {
	if _, err := parseHistoryFeed(body); err != nil {
		return nil, "not a feed"
	}
	f, err := parseStatusFeed(body)
	if err != nil {
		return nil, "not a feed"
	}
	title := strings.TrimSpace(f.Title)
	base := *u
	base.RawQuery, base.RawPath = "", ""
	if strings.Contains(f.Generator, "AWS Service Health Dashboard") {
		if p, ok := strings.CutSuffix(base.Path, "/rss/all.rss"); ok {
			base.Path = p + "/"
			return &Detection{Kind: KindAWS, URL: base.String(),
				Evidence: fmt.Sprintf("URL is rss/all.rss with generator %s (AWS Health Dashboard)", quoteShort(f.Generator))}, ""
		}
	}
	if title == "Azure Status" {
		p := strings.TrimSuffix(base.Path, "/")
		if q, ok := strings.CutSuffix(p, "/feed"); ok {
			base.Path = q + "/"
			return &Detection{Kind: KindAzure, URL: base.String(),
				Evidence: `URL is feed/ of an RSS channel titled "Azure Status" (Azure status feed)`}, ""
		}
	}
	if m := sioFeedPath.FindStringSubmatch(base.Path); m != nil {
		id, linked := m[1], 0
		for _, it := range f.Items {
			if it == nil {
				continue
			}
			if l := it.Link; strings.Contains(l, "/pages/incident/"+id+"/") || strings.Contains(l, "/pages/maintenance/"+id+"/") {
				linked++
			}
		}
		if linked > 0 || len(f.Items) == 0 {
			return &Detection{Kind: KindStatusIO, URL: u.String(),
				Evidence: "URL is the status.io history feed /pages/" + id + "/rss"}, ""
		}
	}
	kind := "RSS"
	if f.FeedType == "atom" {
		kind = "Atom"
	}
	ev := "URL answers an " + kind + " feed"
	if title != "" {
		ev += " titled " + quoteShort(title)
	}
	return &Detection{Kind: KindFeed, URL: u.String(), Evidence: ev}, ""
}

// quoteShort quotes vendor text for the evidence: escaped (no tab or newline survives)
// and cut to a few words.
func quoteShort(s string) string {
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
	return quoteShort(s)
}

// ---- Structural probes ----

// A detectProbe reads one endpoint relative to the page and judges its answer. check
// returns the kind and the evidence (after the path) when the shape is a platform's, else
// why not.
type detectProbe struct {
	rel   string
	check func(contentType string, body []byte) (kind, evidence, why string)
}

// detectProbes, in order: the most common platform first. incident.io and Instatus
// answer Statuspage's /api/v2/summary.json too; one check tells the three apart.
var detectProbes = []detectProbe{
	{"api/v2/summary.json", checkV2Summary},
	{"summary.json", checkInstatusOnly},
	{"index.json", checkBetterStack},
	{"api/v1/incidents?per_page=5", checkCachet},
	{"incidents.json", checkGCP},
	{"api/v2.0.0/current", checkSlackCurrent},
}

// Identifier shapes.
var (
	// spID is an Atlassian Statuspage id: 12 lower-case letters and digits ("kctbh9vrtdwd").
	spID = regexp.MustCompile(`^[a-z0-9]{12}$`)
	// ulid is a ULID, incident.io's ids: 26 characters of Crockford base32, the first
	// at most 7 (https://github.com/ulid/spec).
	ulid = regexp.MustCompile(`^[0-7][0-9A-HJKMNP-TV-Z]{25}$`)
	// instatusWord is Instatus's page status: one upper-case word (UP, HASISSUES,
	// UNDERMAINTENANCE, and ONEMAJOROUTAGE in the wild).
	instatusWord = regexp.MustCompile(`^[A-Z]{2,32}$`)
)

// spIndicators are the page status indicators of the Statuspage v2 API (shared by
// incident.io's compatible copy).
var spIndicators = map[string]bool{"none": true, "minor": true, "major": true, "critical": true, "maintenance": true}

// spOnlyComponentKeys are component fields Atlassian's summary has and incident.io's
// compatible copy lacks (see the captures in testdata/statuspage and testdata/incident.io).
var spOnlyComponentKeys = []string{"group", "only_show_if_degraded", "showcase", "group_id"}

// sampleSize bounds how many list items a check looks at.
const sampleSize = 20

// decodeObject decodes a JSON object leniently (the adapters' options). nil when the body
// is not one; why says what it is instead.
func decodeObject(contentType string, body []byte) (map[string]any, string) {
	b, err := checkJSONBody(contentType, body)
	if err != nil {
		return nil, jsonWhy(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m, jsonOptions); err != nil {
		return nil, "invalid JSON"
	}
	return m, ""
}

// jsonWhy turns a checkJSONBody/checkJSONArray error into a few words.
func jsonWhy(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}

// Accessors of decoded JSON: the value under key when it has that type.
func objAt(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

func strAt(m map[string]any, key string) (string, bool) {
	v, ok := m[key].(string)
	return v, ok
}

func arrAt(m map[string]any, key string) ([]any, bool) {
	v, ok := m[key].([]any)
	return v, ok
}

// objects returns the first sampleSize items of a list, false when one is no object.
func objects(list []any) ([]map[string]any, bool) {
	out := make([]map[string]any, 0, min(len(list), sampleSize))
	for _, v := range list[:min(len(list), sampleSize)] {
		o, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		out = append(out, o)
	}
	return out, true
}

// hasAny reports whether m has one of keys.
func hasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// isNumber reports whether v is a JSON number, or a string of digits (ids and counts
// some APIs send as strings).
func isNumber(v any) bool {
	switch x := v.(type) {
	case float64:
		return true
	case string:
		return x != "" && strings.Trim(x, "0123456789") == ""
	}
	return false
}

// checkV2Summary tells Atlassian Statuspage, incident.io and Instatus apart by the shape
// of their /api/v2/summary.json.
func checkV2Summary(contentType string, body []byte) (string, string, string) {
	m, why := decodeObject(contentType, body)
	if m == nil {
		return "", "", why
	}
	page := objAt(m, "page")
	if page == nil {
		return "", "", `JSON without a "page" object`
	}
	if kind, ev := instatusShape(m, page); kind != "" {
		if _, err := decodeInstatusSummary(contentType, body); err != nil {
			return "", "", "Instatus-like, but " + jsonWhy(err)
		}
		return kind, ev, ""
	}
	id, _ := strAt(page, "id")
	status := objAt(m, "status")
	indicator, _ := strAt(status, "indicator")
	if !spIndicators[indicator] {
		return "", "", fmt.Sprintf("page.id %s without a Statuspage status.indicator", quoteShort(id))
	}
	if _, err := decodeStatuspageSummary(contentType, body); err != nil {
		return "", "", jsonWhy(err)
	}
	comps, ok := arrAt(m, "components")
	if !ok && m["components"] != nil {
		return "", "", `"components" is no list`
	}
	cs, ok := objects(comps)
	if !ok {
		return "", "", "components[] holds a non-object"
	}
	switch {
	case spID.MatchString(id):
		// Atlassian: every component has a Statuspage id, the page's id as page_id and
		// Atlassian's own fields; both lists are always present.
		for _, c := range cs {
			cid, _ := strAt(c, "id")
			pid, _ := strAt(c, "page_id")
			if !spID.MatchString(cid) || pid != id || !hasAny(c, spOnlyComponentKeys...) {
				return "", "", fmt.Sprintf("page.id %s but components[] lack Statuspage's id, page_id and group/showcase fields", quoteShort(id))
			}
		}
		_, hasIncidents := arrAt(m, "incidents")
		_, hasMaint := arrAt(m, "scheduled_maintenances")
		if !hasIncidents || !hasMaint {
			return "", "", fmt.Sprintf("page.id %s but no incidents[] and scheduled_maintenances[]", quoteShort(id))
		}
		if len(cs) == 0 {
			if _, ok := strAt(page, "time_zone"); !ok {
				return "", "", fmt.Sprintf("page.id %s, no components[] and no page.time_zone", quoteShort(id))
			}
			return KindStatuspage, fmt.Sprintf("has page.id %q, page.time_zone and no components (Statuspage shape)", id), ""
		}
		return KindStatuspage, fmt.Sprintf("has page.id %q and components[] with page_id and group/showcase (Statuspage shape)", id), ""
	case ulid.MatchString(id):
		// incident.io's compatible copy: ULIDs everywhere, components without
		// Atlassian's fields, incidents without shortlink.
		for _, c := range cs {
			cid, _ := strAt(c, "id")
			if !ulid.MatchString(cid) || hasAny(c, spOnlyComponentKeys...) {
				return "", "", fmt.Sprintf("ULID page.id %s but components[] unlike incident.io's", quoteShort(id))
			}
		}
		incs, _ := arrAt(m, "incidents")
		is, ok := objects(incs)
		if !ok {
			return "", "", "incidents[] holds a non-object"
		}
		for _, in := range is {
			iid, _ := strAt(in, "id")
			if !ulid.MatchString(iid) || hasAny(in, "shortlink") {
				return "", "", fmt.Sprintf("ULID page.id %s but incidents[] unlike incident.io's", quoteShort(id))
			}
		}
		return KindIncidentIO, fmt.Sprintf("has ULID page.id %q and ULID ids, no shortlink or Statuspage component fields (incident.io's Statuspage-compatible shape)", id), ""
	}
	return "", "", fmt.Sprintf("page.id %s is neither a Statuspage id nor a ULID", quoteShort(id))
}

// checkInstatusOnly accepts Instatus's documented /summary.json and nothing else.
func checkInstatusOnly(contentType string, body []byte) (string, string, string) {
	m, why := decodeObject(contentType, body)
	if m == nil {
		return "", "", why
	}
	page := objAt(m, "page")
	if page == nil {
		return "", "", `JSON without a "page" object`
	}
	kind, ev := instatusShape(m, page)
	if kind == "" {
		return "", "", "not Instatus's shape (page.status is no upper-case word)"
	}
	if _, err := decodeInstatusSummary(contentType, body); err != nil {
		return "", "", "Instatus-like, but " + jsonWhy(err)
	}
	return kind, ev, ""
}

// instatusShape recognises Instatus's summary: page.status one upper-case word, page.name,
// no Statuspage page id or status object, and active items (when listed) with a name,
// an upper-case status and an id or URL.
func instatusShape(m, page map[string]any) (kind, evidence string) {
	st, _ := strAt(page, "status")
	if !instatusWord.MatchString(st) {
		return "", ""
	}
	if _, ok := strAt(page, "name"); !ok {
		return "", ""
	}
	if objAt(m, "status") != nil {
		return "", ""
	}
	if id, _ := strAt(page, "id"); spID.MatchString(id) || ulid.MatchString(id) {
		return "", ""
	}
	var lists []string
	for _, key := range []string{"activeIncidents", "activeMaintenances"} {
		v, present := m[key]
		if !present || v == nil {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return "", ""
		}
		items, ok := objects(list)
		if !ok {
			return "", ""
		}
		for _, it := range items {
			_, hasName := strAt(it, "name")
			s, _ := strAt(it, "status")
			if !hasName || !instatusWord.MatchString(s) || !hasAny(it, "id", "url") {
				return "", ""
			}
		}
		lists = append(lists, key+"[]")
	}
	ev := fmt.Sprintf("has page.status %q", st)
	if len(lists) > 0 {
		ev += " and " + strings.Join(lists, " and ")
	}
	return KindInstatus, ev + " (Instatus shape)"
}

// checkBetterStack accepts Better Stack's /index.json: JSON:API whose data is the
// status_page resource, with its aggregate_state.
func checkBetterStack(contentType string, body []byte) (string, string, string) {
	m, why := decodeObject(contentType, body)
	if m == nil {
		return "", "", why
	}
	data := objAt(m, "data")
	if data == nil {
		return "", "", `JSON without a JSON:API "data" object`
	}
	if t, _ := strAt(data, "type"); t != "status_page" {
		return "", "", fmt.Sprintf("JSON:API data.type is %s, not \"status_page\"", quoteShort(t))
	}
	attrs := objAt(data, "attributes")
	if id, _ := strAt(data, "id"); (id == "" && !isNumber(data["id"])) || attrs == nil {
		return "", "", "data.type \"status_page\" without an id and attributes"
	}
	if _, ok := strAt(attrs, "aggregate_state"); !ok {
		return "", "", "data.type \"status_page\" without attributes.aggregate_state"
	}
	if inc, present := m["included"]; present && inc != nil {
		if _, ok := inc.([]any); !ok {
			return "", "", `"included" is no list`
		}
	}
	if _, err := decodeBetterStack(contentType, body); err != nil {
		return "", "", "Better Stack-like, but " + jsonWhy(err)
	}
	return KindBetterStack, `is JSON:API with data.type "status_page" and aggregate_state (Better Stack shape)`, ""
}

// checkCachet accepts Cachet 2.x's /api/v1/incidents: meta.pagination (Laravel's
// paginator) and data[], incidents with a numeric id and a status code 0–4.
func checkCachet(contentType string, body []byte) (string, string, string) {
	m, why := decodeObject(contentType, body)
	if m == nil {
		return "", "", why
	}
	pg := objAt(objAt(m, "meta"), "pagination")
	if pg == nil {
		return "", "", "JSON without meta.pagination"
	}
	for _, k := range []string{"total", "per_page", "current_page", "total_pages"} {
		if !isNumber(pg[k]) {
			return "", "", "meta.pagination without " + k
		}
	}
	list, ok := arrAt(m, "data")
	if !ok {
		return "", "", "meta.pagination without data[]"
	}
	items, ok := objects(list)
	if !ok {
		return "", "", "data[] holds a non-object"
	}
	for _, it := range items {
		_, hasName := strAt(it, "name")
		st := it["status"]
		code, _ := st.(float64)
		if s, ok := st.(string); ok && len(s) == 1 {
			code = float64(s[0] - '0')
		}
		if !isNumber(it["id"]) || !hasName || !isNumber(st) || code < 0 || code > 4 {
			return "", "", "data[] items unlike Cachet incidents (numeric id, name, status 0-4)"
		}
	}
	if _, err := decodeCachetIncidents(contentType, body); err != nil {
		return "", "", "Cachet-like, but " + jsonWhy(err)
	}
	return KindCachet, "has meta.pagination and data[] of incidents with status codes (Cachet shape)", ""
}

// checkGCP accepts Google Cloud's /incidents.json: an array of incidents with id, number,
// external_desc, begin, updates[] and the affected product or service. Only the first
// few items are decoded: the document is the whole history, megabytes of it.
func checkGCP(contentType string, body []byte) (string, string, string) {
	b, err := checkJSONArray(contentType, body)
	if err != nil {
		return "", "", jsonWhy(err)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsonOptions)
	if _, err := dec.ReadToken(); err != nil {
		return "", "", "invalid JSON"
	}
	n := 0
	for ; n < 5 && dec.PeekKind() != ']'; n++ {
		v, err := dec.ReadValue()
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return "", "", "truncated JSON"
			}
			return "", "", "invalid JSON"
		}
		var it map[string]any
		if err := json.Unmarshal(v, &it, jsonOptions); err != nil {
			return "", "", "an array of non-objects"
		}
		id, _ := strAt(it, "id")
		_, hasDesc := strAt(it, "external_desc")
		_, hasBegin := strAt(it, "begin")
		_, hasUpdates := arrAt(it, "updates")
		_, hasProducts := arrAt(it, "affected_products")
		_, hasService := strAt(it, "service_name")
		if id == "" || !hasDesc || !hasBegin || !hasUpdates || !(hasProducts || hasService) || !hasAny(it, "number") {
			return "", "", "an array whose items lack Google Cloud's id, number, external_desc, begin and updates"
		}
	}
	if n == 0 {
		return "", "", "an empty array (nothing to tell its platform by)"
	}
	return KindGCP, "is an array of incidents with number, external_desc, begin and updates[] (Google Cloud shape)", ""
}

// checkSlackCurrent accepts Slack's /api/v2.0.0/current: status, active_incidents[] and
// its dates; listed incidents have Slack's type, status and notes.
func checkSlackCurrent(contentType string, body []byte) (string, string, string) {
	m, why := decodeObject(contentType, body)
	if m == nil {
		return "", "", why
	}
	st, ok := strAt(m, "status")
	list, hasList := arrAt(m, "active_incidents")
	if !ok || !hasList {
		return "", "", "JSON without status and active_incidents[]"
	}
	if _, ok := strAt(m, "date_updated"); !ok {
		if _, ok := strAt(m, "date_created"); !ok {
			return "", "", "status and active_incidents[] without date_created/date_updated"
		}
	}
	items, ok := objects(list)
	if !ok {
		return "", "", "active_incidents[] holds a non-object"
	}
	for _, it := range items {
		_, hasTitle := strAt(it, "title")
		_, hasType := strAt(it, "type")
		if !isNumber(it["id"]) || !hasTitle || !hasType || !hasAny(it, "notes", "services") {
			return "", "", "active_incidents[] unlike Slack's (id, title, type, notes)"
		}
	}
	if _, err := decodeSlackCurrent(contentType, body); err != nil {
		return "", "", "Slack-like, but " + jsonWhy(err)
	}
	return KindSlack, fmt.Sprintf("has status %s and active_incidents[] (Slack shape)", quoteShort(st)), ""
}
