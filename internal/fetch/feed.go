// The feed adapter reads any RSS 2.0 (https://www.rssboard.org/rss-specification) or Atom
// (RFC 4287, https://www.rfc-editor.org/rfc/rfc4287) incident-history feed: the fallback
// for bespoke status pages (kind feed). The source URL is the feed itself. The
// feed is parsed with github.com/mmcdole/gofeed (https://github.com/mmcdole/gofeed) after
// a conditional GET through our Client, never with gofeed's ParseURL.
//
// An entry is an incident; its content's dated paragraphs are its updates. The common
// shape is Statuspage's history.atom / history.rss
// (https://support.atlassian.com/statuspage/docs/enable-notifications-and-subscribers/),
// newest first:
//
//	<p><small>Nov <var data-var='date'>30</var>, <var data-var='time'>10:00</var> UTC</small><br>
//	<strong>Resolved</strong> - This incident has been resolved.</p>
//	<p>This incident affected: API Requests and Webhooks.</p>
//
// Bespoke feeds (Yandex Cloud-like) date their paragraphs in the text itself ("08.09.2020
// 10:43 MSK. Resolved - …", "2020-09-08 10:43 UTC — …"), and incident.io's feed carries
// only the latest message under "Status: X" with an "Affected components" list. What has
// no dated paragraph at all is one update. The helpers here (parseHistoryFeed,
// feedEntry.incident) are shared: instatus.go reads history.atom and incidentio.go reads
// feed.atom with them.

package fetch

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/statuswatch/statuswatch/internal/model"
)

// KindFeed is the provider kind of a bare RSS or Atom history feed.
const KindFeed = "feed"

// EndpointFeed names the feed of a kind feed source: the key of Source.Endpoints that
// overrides its URL (normally the source URL itself) and of its model.FetchState.
const EndpointFeed = "feed"

// feedTruncatedAt is the entry count from which a feed is taken to show only a window of
// the page's history: platforms cap their feeds at round numbers (10, 20, 25, 50). A
// shorter feed is taken as the page's whole history. Taking a whole history for a window
// would mark the incidents that scroll out as removed; the reverse only misses the removal
// of an incident older than the window, so the threshold errs low.
const feedTruncatedAt = 10

func init() {
	Register(Platform{
		Kind:      KindFeed,
		New:       func(c *Client) Provider { return &HistoryFeed{c: c} },
		Endpoints: []string{EndpointFeed},
		PageURL:   func(u *url.URL) string { return u.String() }, // a feed is its own URL
	})
}

// HistoryFeed is the Provider of kind feed. It is a history provider: the feed lists
// recent incidents whatever their state.
type HistoryFeed struct{ c *Client }

var _ Provider = (*HistoryFeed)(nil)

// Poll reads the feed conditionally, and nothing else. On error the Result is non-nil
// only to report Requests.
func (p *HistoryFeed) Poll(ctx context.Context, req Request) (*Result, error) {
	r := NewPoll(p.c, req)
	u, err := feedURL(req.Source)
	if err != nil {
		return r.Failed(), err
	}
	resp, err := r.Read(ctx, EndpointFeed, u)
	if err != nil {
		return r.Failed(), err
	}
	if !ToParse(resp) {
		return r.Res, nil
	}
	f, err := parseHistoryFeed(resp.Body)
	if err != nil {
		return r.Failed(), fmt.Errorf("%s %s: %w", EndpointFeed, RedactURL(u), err)
	}
	now := req.Now.UTC()
	incidents, listings := f.incidents(now, req.Archived)
	r.Res.Snapshot = &model.Snapshot{
		Source:    req.Source.Name,
		FetchedAt: now,
		PageTitle: f.pageTitle(),
		Listings:  listings,
		Incidents: incidents,
	}
	return r.Res, nil
}

// feedURL is the feed of a kind feed source: the endpoint override, else the source URL
// as is (for kind feed the URL is the feed, not a directory).
func feedURL(src model.Source) (string, error) {
	raw := src.Endpoints[EndpointFeed]
	if raw == "" {
		raw = src.URL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("feed url: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("feed url %q: want an absolute http(s) URL", u.Redacted())
	}
	return raw, nil
}

// ---- Parsing ----

// historyFeed is a parsed RSS or Atom feed, reduced to what we use.
type historyFeed struct {
	title   string
	entries []feedEntry
}

// feedEntry is one entry (Atom) or item (RSS).
type feedEntry struct {
	id      string // Atom id or RSS guid
	link    string
	title   string
	content string // HTML: the content, else the summary/description
	// published and updated are the entry's times (UTC), with the strings the provider
	// wrote; an RSS item has only published (pubDate).
	published, updated       time.Time
	publishedRaw, updatedRaw string
	// zone is the offset the entry's own time (updated, else published) was written in:
	// the vendor's zone, which reads the zone abbreviations of its paragraphs
	// (parseFeedStamp). Nil when the entry has no time.
	zone *time.Location
}

// feedRoots are the end tags a complete feed document ends with; a body ending otherwise
// was cut short (gofeed's parser is lenient about a missing end).
var feedRoots = regexp.MustCompile(`(?i)</(?:[a-z0-9_-]+:)?(?:feed|rss|rdf)>\s*$`)

// trimTrailingComments returns the end of a document without the XML comments some
// generators and caches append after the root element ("<!-- generated in 0.2 s -->").
func trimTrailingComments(b []byte) []byte {
	for bytes.HasSuffix(b, []byte("-->")) {
		i := bytes.LastIndex(b, []byte("<!--"))
		if i < 0 {
			break
		}
		b = bytes.TrimSpace(b[:i])
	}
	return b[max(0, len(b)-64):]
}

// parseHistoryFeed parses an RSS or Atom document. What is not one (HTML, JSON, an empty
// or truncated body) is ErrMalformed: a fetch failure, never an empty feed.
func parseHistoryFeed(body []byte) (f *historyFeed, err error) {
	b := bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: empty body", ErrMalformed)
	}
	head := bytes.ToLower(b[:min(len(b), 512)])
	if bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html")) {
		return nil, fmt.Errorf("%w: got HTML, not a feed", ErrMalformed)
	}
	switch gofeed.DetectFeedType(bytes.NewReader(b[:min(len(b), 4096)])) {
	case gofeed.FeedTypeAtom, gofeed.FeedTypeRSS:
	default:
		return nil, fmt.Errorf("%w: not an RSS or Atom feed", ErrMalformed)
	}
	if !feedRoots.Match(trimTrailingComments(b)) {
		return nil, fmt.Errorf("%w: feed document cut short", ErrMalformed)
	}
	// gofeed is third-party code fed vendor bytes: should it ever panic, that is a feed
	// we cannot read, not a crashed daemon.
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("%w: feed parser failed: %v", ErrMalformed, p)
		}
	}()
	parsed, err := gofeed.NewParser().Parse(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	f = &historyFeed{title: strings.TrimSpace(parsed.Title), entries: make([]feedEntry, 0, len(parsed.Items))}
	for _, it := range parsed.Items {
		if it == nil {
			continue
		}
		e := feedEntry{
			id:           strings.TrimSpace(it.GUID),
			link:         strings.TrimSpace(it.Link),
			title:        strings.TrimSpace(it.Title),
			content:      it.Content,
			publishedRaw: strings.TrimSpace(it.Published),
			updatedRaw:   strings.TrimSpace(it.Updated),
		}
		if strings.TrimSpace(e.content) == "" {
			e.content = it.Description
		}
		// gofeed gives its times in UTC: the offset is read from what the vendor wrote.
		for _, raw := range []string{e.publishedRaw, e.updatedRaw} {
			if z := writtenZone(raw); z != nil {
				e.zone = z
			}
		}
		if it.PublishedParsed != nil {
			e.published = it.PublishedParsed.UTC()
		}
		if it.UpdatedParsed != nil {
			e.updated = it.UpdatedParsed.UTC()
		}
		f.entries = append(f.entries, e)
	}
	return f, nil
}

// pageTitle is the feed's title without the " - Incident History" Statuspage appends.
func (f *historyFeed) pageTitle() string {
	t := f.title
	for _, suffix := range []string{" - Incident History", " Incident History", " - Status History"} {
		t = strings.TrimSuffix(t, suffix)
	}
	return strings.TrimSpace(t)
}

// incidents normalises every entry, in feed order, an id listed twice taken once (first
// wins), and describes the listings: a feed lists incidents and maintenances alike, and a
// feed that looks truncated covers only what started since its oldest entry. archived
// (may be nil) gives the archived version of an incident, for carryOverMessages.
func (f *historyFeed) incidents(now time.Time, archived func(id string) *model.Incident) ([]model.Incident, []model.Listing) {
	out := make([]model.Incident, 0, len(f.entries))
	seen := make(map[string]bool, len(f.entries))
	var oldest time.Time
	for i := range f.entries {
		inc, oneMessage, ok := f.entries[i].normalise(now)
		if !ok || seen[inc.ID] {
			continue
		}
		seen[inc.ID] = true
		if oneMessage && archived != nil {
			carryOverMessages(&inc, archived(inc.ID))
		}
		if !inc.StartedAt.IsZero() && (oldest.IsZero() || inc.StartedAt.Before(oldest)) {
			oldest = inc.StartedAt
		}
		out = append(out, inc)
	}
	var since time.Time
	if len(f.entries) >= feedTruncatedAt {
		since = oldest
	}
	return out, []model.Listing{{Kind: model.KindIncident, Since: since}, {Kind: model.KindMaintenance, Since: since}}
}

// carryOverMessages keeps the history of an entry that holds only its latest message (no
// dated paragraph: one update as of the entry's time, as Better Stack's and incident.io's
// feeds write them). Each message is an update keyed by the entry's time; when a newer one
// replaces it in the feed, the earlier ones are carried over from the archived version
// rather than shown as removed, and the start stays the earliest seen.
func carryOverMessages(inc *model.Incident, prev *model.Incident) {
	if prev == nil || len(inc.Updates) != 1 {
		return
	}
	cur := inc.Updates[0]
	var earlier []model.Update
	for _, u := range prev.Updates {
		if u.ID != cur.ID && u.PostedAt.Before(cur.PostedAt) {
			earlier = append(earlier, u)
		}
	}
	inc.Updates = append(earlier, cur)
	if !prev.StartedAt.IsZero() && (inc.StartedAt.IsZero() || prev.StartedAt.Before(inc.StartedAt)) {
		inc.StartedAt = prev.StartedAt
	}
}

// ---- Normalisation of one entry ----

// incident normalises an entry. The id is the entry's id (guid), else its link; an entry
// with neither cannot be told from another and is skipped (ok false). now stands in for
// the entry's own time when it has none, to read the year-less dates of its paragraphs.
func (e *feedEntry) incident(now time.Time) (model.Incident, bool) {
	inc, _, ok := e.normalise(now)
	return inc, ok
}

// normalise is incident, also reporting whether the entry held one undated message.
func (e *feedEntry) normalise(now time.Time) (inc model.Incident, oneMessage, ok bool) {
	id := e.id
	if id == "" {
		id = e.link
	}
	if id == "" {
		return model.Incident{}, false, false
	}
	ref := e.updated
	if ref.IsZero() {
		ref = e.published
	}
	if ref.IsZero() {
		ref = now
	} else if e.zone != nil {
		ref = ref.In(e.zone) // the same instant, in the zone the vendor wrote it in
	}
	title, tlabel := splitTitleLabel(e.title)
	c := parseFeedContent(e.content, ref)

	paras := c.dated
	if len(paras) == 0 {
		// Nothing dated: the entry is one update, as of the entry's own time (its updated
		// time: an entry holding one message is as new as that message).
		p := c.undated
		if p.label == "" {
			p.label = tlabel
		}
		p.stamp, p.at = e.updatedRaw, e.updated
		if p.stamp == "" {
			p.stamp, p.at = e.publishedRaw, e.published
		}
		if p.text != "" || p.label != "" {
			paras = []feedPara{p}
			oneMessage = true
		}
	}

	inc = model.Incident{
		ID:             id,
		Kind:           model.KindIncident,
		Title:          title,
		URL:            e.link,
		Components:     c.components,
		ScheduledFor:   c.scheduledFor,
		ScheduledUntil: c.scheduledUntil,
	}
	if c.maintenance {
		inc.Kind = model.KindMaintenance
	}
	for _, p := range paras {
		if s, ok := labelStatus(p.label); ok && isMaintenanceStatus(s) {
			inc.Kind = model.KindMaintenance
		}
	}
	applyFeedTimeline(&inc, paras)
	// An entry's published time is when the incident was posted; without dated
	// paragraphs, it is a better start than the time of the latest message.
	if inc.StartedAt.IsZero() || (oneMessage && !e.published.IsZero() && e.published.Before(inc.StartedAt)) {
		inc.StartedAt = e.published
	}
	if !inc.Status.Open() && inc.ResolvedAt.IsZero() {
		inc.ResolvedAt = ref
	}
	inc.Impact = model.ImpactUnknown
	if inc.Kind == model.KindMaintenance {
		inc.Impact = model.ImpactMaintenance
	}
	slices.Sort(inc.Components)
	inc.Components = slices.Compact(inc.Components)
	if inc.Components == nil {
		inc.Components = []string{}
	}
	return inc, oneMessage, true
}

// applyFeedTimeline sets the updates (oldest first, keyed as updates without
// provider ids are), the postmortem, and the status, start and resolution they imply:
// the status is the one in force after the newest labelled update (an "Update" carries the
// status on); investigating (maintenance: scheduled) when nothing is labelled. StatusRaw is
// the newest label as the provider wrote it.
func applyFeedTimeline(inc *model.Incident, paras []feedPara) {
	paras = oldestFirst(paras)
	status := model.StatusInvestigating
	if inc.Kind == model.KindMaintenance {
		status = model.StatusScheduled
	}
	ordinals := map[string]int{}
	var closedAt time.Time
	inc.Updates = make([]model.Update, 0, len(paras))
	for _, p := range paras {
		if p.label != "" {
			inc.StatusRaw = p.label
		}
		if s, ok := labelStatus(p.label); ok {
			if status.Open() && !s.Open() {
				closedAt = p.at
			} else if s.Open() {
				closedAt = time.Time{}
			}
			status = s
		}
		if inc.StartedAt.IsZero() && !p.at.IsZero() {
			inc.StartedAt = p.at
		}
		key := UpdateKey(inc.ID, p.stamp, ordinals[p.stamp])
		ordinals[p.stamp]++
		if status == model.StatusPostmortem && strings.EqualFold(p.label, "postmortem") {
			// Statuspage feeds list the postmortem as a paragraph of its own; the model
			// keeps it apart from the timeline, as the JSON API does.
			inc.Postmortem = &model.Postmortem{Body: p.text, Format: model.FormatHTML, PublishedAt: p.at, HTML: p.html}
			continue
		}
		inc.Updates = append(inc.Updates, model.Update{
			ID:       key,
			Status:   status,
			Body:     p.text,
			Format:   model.FormatHTML,
			PostedAt: p.at,
			HTML:     p.html,
		})
	}
	inc.Status = status
	if !status.Open() {
		inc.ResolvedAt = closedAt
	}
}

// oldestFirst orders dated paragraphs by time. Feeds list them newest first (Statuspage)
// or oldest first (Instatus); the document order decides which of two paragraphs with
// the same time is older, so the order is read from the paragraphs whose times differ,
// newest first when that says nothing.
func oldestFirst(paras []feedPara) []feedPara {
	asc, desc := 0, 0
	for i := 1; i < len(paras); i++ {
		switch paras[i-1].at.Compare(paras[i].at) {
		case -1:
			asc++
		case 1:
			desc++
		}
	}
	out := slices.Clone(paras)
	if asc <= desc {
		slices.Reverse(out)
	}
	slices.SortStableFunc(out, func(a, b feedPara) int { return a.at.Compare(b.at) })
	return out
}

// feedLabels are the status words feeds put before an update, lower case, longest first
// so that "in progress" is tried before "in".
var feedLabels = []string{
	"not started yet", "investigating", "in progress", "identified", "monitoring",
	"postmortem", "inprogress", "scheduled", "verifying", "completed", "resolved", "update",
}

// labelStatus maps a feed's update label to a status; "Update" and unknown words map to
// none (ok false): they carry the status in force on.
func labelStatus(label string) (model.Status, bool) {
	l := strings.ToLower(strings.TrimSpace(label))
	switch l {
	case "not started yet", "notstartedyet":
		return model.StatusScheduled, true
	case "inprogress", "in progress":
		return model.StatusInProgress, true
	case "", "update", "updated":
		return "", false
	}
	if s, ok := KnownStatus(l); ok {
		return s, true
	}
	return "", false
}

func isMaintenanceStatus(s model.Status) bool {
	switch s {
	case model.StatusScheduled, model.StatusInProgress, model.StatusVerifying, model.StatusCompleted:
		return true
	}
	return false
}

// feedTitleLabel matches a title that starts with a bracketed status, "[Resolved] API errors"
// (Better Stack-style feeds, one item per update).
var feedTitleLabel = regexp.MustCompile(`^\[([^\[\]]{1,30})\]\s*`)

// splitTitleLabel takes a leading bracketed status off a title, so the title does not
// change with every update: the status goes to the update instead.
func splitTitleLabel(title string) (string, string) {
	m := feedTitleLabel.FindStringSubmatchIndex(title)
	if m == nil {
		return title, ""
	}
	label := title[m[2]:m[3]]
	if _, ok := labelStatus(label); !ok && !strings.EqualFold(label, "update") {
		return title, ""
	}
	return strings.TrimSpace(title[m[1]:]), label
}

// ---- Content: dated paragraphs ----

// feedContent is what an entry's HTML says.
type feedContent struct {
	dated      []feedPara // the dated paragraphs, in document order
	undated    feedPara   // everything, as one paragraph, when nothing is dated
	components []string
	// maintenance is set by a "THIS IS A SCHEDULED EVENT …" banner, which also gives the
	// window.
	maintenance                  bool
	scheduledFor, scheduledUntil time.Time
}

// feedPara is one update of an entry: a dated paragraph and the undated ones after it.
type feedPara struct {
	stamp string    // the provider's timestamp as written, e.g. "Nov 30, 10:00 UTC"
	at    time.Time // that timestamp, UTC; zero when unreadable
	label string    // "Resolved", as written; "" when none
	html  string    // sanitised HTML of the body
	text  string    // clean text of the body
}

// feedBodyContext is the context vendor fragments are parsed in.
var feedBodyContext = &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}

// parseFeedContent splits an entry's HTML into dated paragraphs. ref is the time the
// year-less dates are read against (Statuspage writes "Nov 30, 10:00 UTC").
func parseFeedContent(content string, ref time.Time) feedContent {
	var fc feedContent
	nodes, err := html.ParseFragment(strings.NewReader(content), feedBodyContext)
	if err != nil {
		t := CleanBody(content)
		fc.undated = feedPara{text: t, html: SanitizeHTML(html.EscapeString(t))}
		return fc
	}
	root := &html.Node{Type: html.DocumentNode}
	for _, n := range nodes {
		root.AppendChild(n)
	}
	fc.components = takeComponentLists(root)

	var undated []*html.Node
	for _, seg := range feedSegments(root) {
		text := htmlText(seg, nil)
		if text == "" {
			continue
		}
		if names, ok := affectedLine(text); ok {
			fc.components = append(fc.components, names...)
			continue
		}
		if rest, ok := cutBanner(text); ok {
			fc.maintenance = true
			if st, ok := parseFeedStamp(rest, ref); ok {
				fc.scheduledFor, fc.scheduledUntil = st.at, st.until
			}
			continue
		}
		if st, ok := parseFeedStamp(text, ref); ok {
			label, n := leadLabel(text[st.n:], seg)
			feedTrimLeading(seg, feedNonSpace(text[:st.n+n]))
			p := feedPara{stamp: feedCollapseSpace(text[:st.n]), at: st.at, label: label}
			p.html, p.text = renderSegment(seg)
			fc.dated = append(fc.dated, p)
			continue
		}
		if at, stamp, ok := embeddedStamp(seg, ref); ok {
			text = htmlText(seg, nil)
			label, n := leadLabel(text, seg)
			feedTrimLeading(seg, feedNonSpace(text[:n]))
			p := feedPara{stamp: stamp, at: at, label: label}
			p.html, p.text = renderSegment(seg)
			fc.dated = append(fc.dated, p)
			continue
		}
		if k := len(fc.dated); k > 0 {
			// An undated paragraph after a dated one continues it.
			h, t := renderSegment(seg)
			fc.dated[k-1].html = feedJoin(fc.dated[k-1].html, h, "")
			fc.dated[k-1].text = feedJoin(fc.dated[k-1].text, t, "\n\n")
			continue
		}
		undated = append(undated, seg)
	}
	if len(fc.dated) == 0 && len(undated) > 0 {
		text := htmlText(undated[0], nil)
		label, n := leadLabel(text, undated[0])
		feedTrimLeading(undated[0], feedNonSpace(text[:n]))
		p := feedPara{label: label}
		for _, seg := range undated {
			h, t := renderSegment(seg)
			p.html = feedJoin(p.html, h, "")
			p.text = feedJoin(p.text, t, "\n\n")
		}
		fc.undated = p
	}
	return fc
}

func feedJoin(a, b, sep string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}

// renderSegment returns a segment's sanitised HTML and its clean text (the walker behind
// HTMLToText, on the tree already parsed).
func renderSegment(seg *html.Node) (string, string) {
	feedTrimLeadingBlank(seg)
	feedTrimTrailingBlank(seg)
	var b strings.Builder
	for c := seg.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(&b, c); err != nil {
			break
		}
	}
	return SanitizeHTML(b.String()), CleanBody(htmlText(seg, nil))
}

// embeddedStamp finds the date of a paragraph that does not start with one: a <time
// datetime="…"> anywhere in it, or a date in a <small> at its end (the layout of
// Statuspage's own incident pages: "<strong>Update</strong> - text<br><small>Jan 12,
// 16:04 UTC</small>"). The element is removed from the tree; the stamp is its datetime or
// its text.
func embeddedStamp(seg *html.Node, ref time.Time) (time.Time, string, bool) {
	if el := feedFind(seg, func(n *html.Node) bool { return n.DataAtom == atom.Time && feedAttr(n, "datetime") != "" }); el != nil {
		v := strings.TrimSpace(feedAttr(el, "datetime"))
		if t := ParseTime(v); !t.IsZero() {
			el.Parent.RemoveChild(el)
			return t, v, true
		}
	}
	var last *html.Node
	feedFind(seg, func(n *html.Node) bool {
		if n.DataAtom == atom.Small {
			last = n
		}
		return false
	})
	if last == nil || !feedEndsSegment(seg, last) {
		return time.Time{}, "", false
	}
	text := htmlText(last, nil)
	st, ok := parseFeedStamp(text, ref)
	if !ok || strings.TrimSpace(text[st.n:]) != "" {
		return time.Time{}, "", false
	}
	if p := last.PrevSibling; p != nil && p.Type == html.ElementNode && p.DataAtom == atom.Br {
		p.Parent.RemoveChild(p)
	}
	last.Parent.RemoveChild(last)
	return st.at, feedCollapseSpace(text), true
}

// feedFind returns the first element under n, in document order, for which match is
// true.
func feedFind(n *html.Node, match func(*html.Node) bool) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if match(c) {
			return c
		}
		if f := feedFind(c, match); f != nil {
			return f
		}
	}
	return nil
}

func feedAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// feedEndsSegment reports whether nothing but blank text follows el within seg.
func feedEndsSegment(seg, el *html.Node) bool {
	for n := el; n != nil && n != seg; n = n.Parent {
		for c := n.NextSibling; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode || (c.Type == html.TextNode && strings.TrimSpace(c.Data) != "") {
				return false
			}
		}
	}
	return true
}

// feedSegments cuts the content into paragraphs: every block element at the top (below a
// lone wrapping div) is one, and so is every run of inline content between them. A block
// that holds several dated blocks (a list whose items are updates, a div of dated
// paragraphs) is cut into them, level by level; so is a run whose lines start with dates
// (<br>-separated updates). List items count as blocks with or without their list around
// them: vendor feeds carry bare <li>s. Each segment is a document node holding the moved
// nodes.
func feedSegments(root *html.Node) []*html.Node {
	parent := root
	for {
		only := feedSoleElement(parent)
		if only == nil {
			break
		}
		switch only.DataAtom {
		case atom.Div, atom.Section, atom.Article, atom.Main, atom.Body, atom.Html:
			parent = only
			continue
		}
		break
	}
	return feedCut(parent, 0)
}

// feedMaxNesting bounds how deep feedCut looks for dated blocks: vendor HTML is untrusted,
// and real updates sit one or two levels down.
const feedMaxNesting = 8

// feedCut moves parent's children into segments (see feedSegments); depth counts the
// blocks it has opened on the way down.
func feedCut(parent *html.Node, depth int) []*html.Node {
	var segs []*html.Node
	var run *html.Node
	for c := parent.FirstChild; c != nil; {
		next := c.NextSibling
		parent.RemoveChild(c)
		if c.Type == html.ElementNode && isBlock(c.DataAtom) {
			run = nil
			seg := &html.Node{Type: html.DocumentNode}
			if feedDatedItem(c) {
				// An update written as a list item is an update, not a bullet of one.
				for g := c.FirstChild; g != nil; {
					gn := g.NextSibling
					c.RemoveChild(g)
					seg.AppendChild(g)
					g = gn
				}
			} else {
				seg.AppendChild(c)
			}
			segs = append(segs, seg)
		} else {
			if run == nil {
				run = &html.Node{Type: html.DocumentNode}
				segs = append(segs, run)
			}
			run.AppendChild(c)
		}
		c = next
	}
	var out []*html.Node
	for _, s := range segs {
		if el := s.FirstChild; el.Type == html.ElementNode && el.NextSibling == nil && depth < feedMaxNesting && feedDatedBlocks(el) >= 2 {
			out = append(out, feedCut(el, depth+1)...)
			continue
		}
		out = append(out, splitDatedLines(s)...)
	}
	return out
}

// feedDatedBlocks counts the children of el that are blocks starting with a date.
func feedDatedBlocks(el *html.Node) int {
	n := 0
	for c := el.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && isBlock(c.DataAtom) && feedStartsDated(c) {
			n++
		}
	}
	return n
}

// feedStartsDated reports whether a block's text starts with a date; a list item's text
// is read without its "- ".
func feedStartsDated(el *html.Node) bool {
	text := strings.TrimSpace(htmlText(el, nil))
	if el.DataAtom == atom.Li {
		text = strings.TrimPrefix(text, "- ")
	}
	_, ok := parseFeedStamp(text, time.Time{})
	return ok
}

// feedDatedItem reports whether el is a list item that starts with a date.
func feedDatedItem(el *html.Node) bool {
	return el.DataAtom == atom.Li && feedStartsDated(el)
}

// feedSoleElement returns n's only element child when every other child is blank text.
func feedSoleElement(n *html.Node) *html.Node {
	var only *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.ElementNode:
			if only != nil {
				return nil
			}
			only = c
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
		case c.Type == html.CommentNode:
		default:
			return nil
		}
	}
	return only
}

// splitDatedLines cuts an inline run at the <br>s that start a dated line, when at least
// two of its lines are dated: "10 Sep 10:00 UTC — Investigating…<br>10 Sep 11:00 UTC —
// Resolved…" is two updates. Any other segment is returned as is.
func splitDatedLines(seg *html.Node) []*html.Node {
	var cuts []*html.Node
	dated := 0
	if lineStartsDated(seg.FirstChild) {
		dated++
	}
	for c := seg.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Br && lineStartsDated(c.NextSibling) {
			cuts = append(cuts, c)
			dated++
		}
	}
	if dated < 2 {
		return []*html.Node{seg}
	}
	var out []*html.Node
	part := &html.Node{Type: html.DocumentNode}
	for c := seg.FirstChild; c != nil; {
		next := c.NextSibling
		seg.RemoveChild(c)
		if slices.Contains(cuts, c) {
			out = append(out, part)
			part = &html.Node{Type: html.DocumentNode}
		} else {
			part.AppendChild(c)
		}
		c = next
	}
	return append(out, part)
}

// lineStartsDated reports whether the inline content from n up to the next <br> starts
// with a date.
func lineStartsDated(n *html.Node) bool {
	var b strings.Builder
	for c := n; c != nil && b.Len() < 64; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Br {
			break
		}
		b.WriteString(htmlText(c, nil))
		b.WriteByte(' ')
	}
	_, ok := parseFeedStamp(strings.TrimSpace(b.String()), time.Time{})
	return ok
}

// ---- Content: components ----

var componentHeadings = map[string]bool{
	"affected components": true, "components affected": true, "affected component": true,
	"affected services": true, "services affected": true,
}

// takeComponentLists removes every "Affected components" heading followed by a list (the
// incident.io feed's shape) and returns the names of the list items.
func takeComponentLists(root *html.Node) []string {
	var names []string
	type hit struct{ heading, list *html.Node }
	var hits []hit
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.B, atom.Strong, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.P, atom.Div, atom.Span:
				t := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(htmlText(c, nil)), ":"))
				if componentHeadings[t] {
					h := c
					l := feedNextElement(h)
					if l == nil && feedSoleElement(h.Parent) == h && h.Parent != root {
						h = h.Parent
						l = feedNextElement(h)
					}
					if l != nil && (l.DataAtom == atom.Ul || l.DataAtom == atom.Ol) {
						hits = append(hits, hit{h, l})
						continue
					}
				}
			}
			walk(c)
		}
	}
	walk(root)
	for _, h := range hits {
		for li := h.list.FirstChild; li != nil; li = li.NextSibling {
			if li.Type == html.ElementNode && li.DataAtom == atom.Li {
				// htmlText writes a list item as "- name".
				if n := stripComponentStatus(strings.TrimPrefix(htmlText(li, nil), "- ")); n != "" {
					names = append(names, n)
				}
			}
		}
		for c := h.heading.NextSibling; c != nil && c != h.list; {
			next := c.NextSibling
			c.Parent.RemoveChild(c) // the <br>s and blanks between heading and list
			c = next
		}
		if h.heading.Parent != nil {
			h.heading.Parent.RemoveChild(h.heading)
		}
		if h.list.Parent != nil {
			h.list.Parent.RemoveChild(h.list)
		}
	}
	return names
}

// feedNextElement returns the element after n, skipping blank text and <br>s; nil when the
// next thing is anything else.
func feedNextElement(n *html.Node) *html.Node {
	for c := n.NextSibling; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
		case c.Type == html.ElementNode && c.DataAtom == atom.Br:
		case c.Type == html.ElementNode:
			return c
		default:
			return nil
		}
	}
	return nil
}

// componentStatus matches the status incident.io writes after a component name,
// "Conversations (Operational)"; any other parenthesis is part of the name.
var componentStatus = regexp.MustCompile(`(?i)\s*\((?:operational|degraded performance|partial outage|full outage|major outage|under maintenance|degraded|outage|maintenance)\)$`)

func stripComponentStatus(s string) string {
	return strings.TrimSpace(componentStatus.ReplaceAllString(strings.TrimSpace(s), ""))
}

// affectedPrefixes start Statuspage's closing paragraph, "This incident affected: API
// Requests, Issues, and Webhooks."
var affectedPrefixes = []string{
	"this incident affected:", "this scheduled maintenance affected:", "this maintenance affected:",
	"affected components:", "components affected:", "affected services:",
}

// affectedLine reads a "This incident affected: A, B, and C." paragraph.
func affectedLine(text string) ([]string, bool) {
	for _, p := range affectedPrefixes {
		if len(text) < len(p) || !strings.EqualFold(text[:len(p)], p) {
			continue
		}
		rest := strings.TrimSuffix(strings.TrimSpace(text[len(p):]), ".")
		var names []string
		parts := strings.Split(rest, ", ")
		if len(parts) == 1 {
			parts = strings.Split(rest, " and ")
		}
		for _, part := range parts {
			part = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "and "))
			if part != "" {
				names = append(names, stripComponentStatus(part))
			}
		}
		return names, true
	}
	return nil, false
}

// cutBanner reads Statuspage's maintenance banner, "THIS IS A SCHEDULED EVENT Nov 30,
// 10:00 - 12:00 UTC", returning the window's text.
func cutBanner(text string) (string, bool) {
	const banner = "this is a scheduled event"
	if len(text) < len(banner) || !strings.EqualFold(text[:len(banner)], banner) {
		return "", false
	}
	return strings.TrimSpace(text[len(banner):]), true
}

// ---- Content: labels and trimming ----

// leadLabel finds the status label at the start of rest (what follows a date): a known
// status word, or the text of the segment's first <strong>/<b>, followed by a separator
// ("Resolved - …", "Resolved: …"), or a "Status: X" line (incident.io). It returns the
// label and how many bytes of rest it and the separators around it take; without a label,
// "" and the leading separators ("10:43 MSK. We are …").
func leadLabel(rest string, seg *html.Node) (string, int) {
	i := feedSkipSeparators(rest, 0)
	s := rest[i:]
	if len(s) >= 7 && strings.EqualFold(s[:7], "status:") {
		line, _, _ := strings.Cut(s[7:], "\n")
		label := strings.TrimSpace(line)
		if label != "" && len(label) <= 40 {
			return label, feedSkipSeparators(rest, i+7+len(line))
		}
	}
	candidates := feedLabels
	if b := feedFirstBold(seg); b != "" && len(b) <= 40 {
		candidates = append([]string{b}, feedLabels...)
	}
	for _, c := range candidates {
		if len(s) < len(c) || !strings.EqualFold(s[:len(c)], c) {
			continue
		}
		after := s[len(c):]
		if after != "" {
			r, _ := utf8.DecodeRuneInString(after)
			if !unicode.IsSpace(r) && !strings.ContainsRune("-–—:.|", r) {
				continue // a word that merely starts like a label: "Updated …"
			}
		}
		if !feedHasSeparator(after) {
			// A label is followed by a separator, not by the sentence it starts:
			// "Resolved - Fixed" is a label, "Resolved the issue" is a body.
			continue
		}
		return strings.TrimSpace(s[:len(c)]), feedSkipSeparators(rest, i+len(c))
	}
	return "", i
}

// feedHasSeparator reports whether s starts, after spaces, with a label separator or a line
// break.
func feedHasSeparator(s string) bool {
	for _, r := range s {
		switch {
		case r == '\n' || strings.ContainsRune("-–—:.|", r):
			return true
		case unicode.IsSpace(r):
		default:
			return false
		}
	}
	return true
}

// feedSkipSeparators skips spaces and separator punctuation in s from i.
func feedSkipSeparators(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) && !strings.ContainsRune("-–—:.|", r) {
			break
		}
		i += n
	}
	return i
}

// feedFirstBold returns the text of the first <strong> or <b> under n.
func feedFirstBold(n *html.Node) string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			if c.DataAtom == atom.Strong || c.DataAtom == atom.B {
				return strings.TrimSpace(htmlText(c, nil))
			}
			if t := feedFirstBold(c); t != "" {
				return t
			}
		}
	}
	return ""
}

// feedNonSpace counts the runes of s that are not white space: the measure by which the date
// and label are cut from the front of a segment, since the text and the tree agree on
// those runes whatever they do with white space.
func feedNonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

// feedTrimLeading removes the first k non-space runes of text from under n, and the elements
// it leaves empty; it returns how many are left to remove.
func feedTrimLeading(n *html.Node, k int) int {
	for c := n.FirstChild; c != nil && k > 0; {
		next := c.NextSibling
		switch c.Type {
		case html.TextNode:
			i := 0
			for i < len(c.Data) && k > 0 {
				r, size := utf8.DecodeRuneInString(c.Data[i:])
				if !unicode.IsSpace(r) {
					k--
				}
				i += size
			}
			c.Data = c.Data[i:]
			if c.Data == "" {
				n.RemoveChild(c)
			}
		case html.ElementNode:
			if feedSkipped(c.DataAtom) {
				break
			}
			k = feedTrimLeading(c, k)
			if c.FirstChild == nil {
				n.RemoveChild(c) // emptied, or a <br> inside the cut
			}
		}
		c = next
	}
	return k
}

// feedTrimLeadingBlank removes the blank text and <br>s a cut leaves at the front.
func feedTrimLeadingBlank(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
			n.RemoveChild(c)
		case c.Type == html.TextNode:
			c.Data = strings.TrimLeftFunc(c.Data, unicode.IsSpace)
			return
		case c.Type == html.ElementNode && c.DataAtom == atom.Br:
			n.RemoveChild(c)
		case c.Type == html.ElementNode:
			feedTrimLeadingBlank(c)
			return
		default:
			return
		}
		c = next
	}
}

// feedTrimTrailingBlank removes blank text and <br>s at the end.
func feedTrimTrailingBlank(n *html.Node) {
	for c := n.LastChild; c != nil; {
		prev := c.PrevSibling
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) == "":
			n.RemoveChild(c)
		case c.Type == html.TextNode:
			c.Data = strings.TrimRightFunc(c.Data, unicode.IsSpace)
			return
		case c.Type == html.ElementNode && c.DataAtom == atom.Br:
			n.RemoveChild(c)
		case c.Type == html.ElementNode:
			feedTrimTrailingBlank(c)
			return
		default:
			return
		}
		c = prev
	}
}

// feedSkipped lists what htmlText leaves out, which feedTrimLeading must not count.
func feedSkipped(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Svg, atom.Iframe, atom.Object:
		return true
	}
	return false
}

func feedCollapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ---- Dates ----

// feedStamp is a date read at the start of a paragraph.
type feedStamp struct {
	at    time.Time // UTC
	until time.Time // the end of a "10:00 - 12:00" window, else zero
	n     int       // bytes of the text it took
}

// stampDate matches a date and time at the start of a text: "Nov 30, 10:00", "Nov 30,
// 2023 10:00", "September 8, 2020, 10:43", "8 Sep 2020 10:43", "2020-09-08 10:43",
// "2020-09-08T10:43:00", "08.09.2020 10:43", "09/08/2020 10:43 AM", with an optional
// leading weekday. The zone after it is read by feedZone.
var stampDate = regexp.MustCompile(`^(?:(?i:mon|tue|wed|thu|fri|sat|sun)[a-zA-Z]*\.?,?\s+)?` +
	`(?:(\d{4})-(\d{1,2})-(\d{1,2})` + // 1-3: ISO
	`|(\d{1,2})([./])(\d{1,2})[./](\d{4})` + // 4-7: d.m.y or m/d/y
	`|([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?` + // 8-10: Month D[, YYYY]
	`|(\d{1,2})\s+([A-Za-z]{3,9})\.?(?:,?\s+(\d{4}))?)` + // 11-13: D Month[ YYYY]
	`(?:T|,?\s+(?:at\s+)?|,\s*|\s*-\s*)` +
	`(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?` + // 14-16: time
	`(?:\s*([AaPp][Mm])\b)?`) // 17

var feedMonthNames = []string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

// feedMonth reads an English month name or its abbreviation; 0 when it is none.
func feedMonth(s string) time.Month {
	s = strings.ToLower(s)
	if len(s) < 3 {
		return 0
	}
	for i, m := range feedMonthNames {
		if strings.HasPrefix(m, s) {
			return time.Month(i + 1)
		}
	}
	return 0
}

// parseFeedStamp reads the date at the start of s. A date without a year is taken in the
// year that puts it at most two days after ref (a zero ref: the current year); a time
// without zone, or with one we do not know, is UTC.
func parseFeedStamp(s string, ref time.Time) (feedStamp, bool) {
	m := stampDate.FindStringSubmatchIndex(s)
	if m == nil {
		return feedStamp{}, false
	}
	g := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return s[m[2*i]:m[2*i+1]]
	}
	num := func(i int) int {
		v, _ := strconv.Atoi(g(i))
		return v
	}
	var year, day int
	var month time.Month
	switch {
	case g(1) != "":
		year, month, day = num(1), time.Month(num(2)), num(3)
	case g(4) != "":
		year, day, month = num(7), num(4), time.Month(num(6))
		if g(5) == "/" && num(4) <= 12 { // 09/08/2020 is American: month first
			day, month = num(6), time.Month(num(4))
		}
	case g(8) != "":
		month, day = feedMonth(g(8)), num(9)
		if g(10) != "" {
			year = num(10)
		}
	default:
		day, month = num(11), feedMonth(g(12))
		if g(13) != "" {
			year = num(13)
		}
	}
	hour, minute, sec := num(14), num(15), num(16)
	switch strings.ToLower(g(17)) {
	case "am":
		if hour == 12 {
			hour = 0
		}
	case "pm":
		if hour < 12 {
			hour += 12
		}
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 {
		return feedStamp{}, false
	}
	n := m[1]
	var endH, endM int
	hasEnd := false
	if em := stampRangeEnd.FindStringSubmatchIndex(s[n:]); em != nil {
		endH, _ = strconv.Atoi(s[n+em[2] : n+em[3]])
		endM, _ = strconv.Atoi(s[n+em[4] : n+em[5]])
		hasEnd = endH <= 23 && endM <= 59
		n += em[1]
	}
	offset, zn := feedZone(s[n:])
	zone := usZoneAsRefSays(strings.TrimSpace(s[n:n+zn]), offset, ref)
	if zone == nil {
		zone = time.FixedZone("", offset)
	}
	n += zn
	if year == 0 {
		if ref.IsZero() {
			ref = time.Now()
		}
		year = ref.Year()
		if time.Date(year, month, day, hour, minute, sec, 0, zone).After(ref.Add(48 * time.Hour)) {
			year--
		}
	}
	at := time.Date(year, month, day, hour, minute, sec, 0, zone)
	if at.Day() != day || at.Month() != month {
		return feedStamp{}, false // Feb 30
	}
	st := feedStamp{at: at.UTC(), n: n}
	if hasEnd {
		end := time.Date(year, month, day, endH, endM, 0, 0, zone)
		if end.Before(at) {
			end = end.AddDate(0, 0, 1) // 22:00 - 02:00 ends the next day
		}
		st.until = end.UTC()
	}
	return st, true
}

// writtenOffset matches the numeric offset a timestamp ends with: "-0700", "-07:00".
var writtenOffset = regexp.MustCompile(`\d:\d{2}(?::\d{2}(?:\.\d+)?)?\s*([+-])(\d{2}):?(\d{2})$`)

// writtenZone is the fixed zone of the numeric offset a timestamp was written with, nil
// when it has none.
func writtenZone(raw string) *time.Location {
	m := writtenOffset.FindStringSubmatch(strings.TrimSpace(raw))
	if m == nil {
		return nil
	}
	h, _ := strconv.Atoi(m[2])
	mi, _ := strconv.Atoi(m[3])
	off := h*3600 + mi*60
	if m[1] == "-" {
		off = -off
	}
	return time.FixedZone("", off)
}

// usZones are the US zones whose abbreviations vendors use loosely ("PST" all year), by
// abbreviation: the zone and its standard and daylight offsets.
var usZones = map[string]struct {
	name     string
	std, dst int
}{
	"PST": {"America/Los_Angeles", -8 * 3600, -7 * 3600}, "PDT": {"America/Los_Angeles", -8 * 3600, -7 * 3600},
	"MST": {"America/Denver", -7 * 3600, -6 * 3600}, "MDT": {"America/Denver", -7 * 3600, -6 * 3600},
	"CST": {"America/Chicago", -6 * 3600, -5 * 3600}, "CDT": {"America/Chicago", -6 * 3600, -5 * 3600},
	"EST": {"America/New_York", -5 * 3600, -4 * 3600}, "EDT": {"America/New_York", -5 * 3600, -4 * 3600},
}

// usZoneAsRefSays returns the zone a paragraph's time is read in when its US zone
// abbreviation contradicts the feed item's own numeric timestamp (ref's offset) by exactly
// the daylight-saving hour: "10:00 PST" in an item stamped -07:00 is a vendor writing PST
// all year, and the time is read in US Pacific time, which gives it the offset in force
// on its own date. Nil when the abbreviation is to be taken as written: not a US one, no
// ref, or no contradiction (an item stamped -07:00 in Arizona writes MST all year, and
// rightly).
func usZoneAsRefSays(abbr string, offset int, ref time.Time) *time.Location {
	z, ok := usZones[abbr]
	if !ok || ref.IsZero() {
		return nil
	}
	_, refOff := ref.Zone()
	if refOff == offset || (refOff != z.std && refOff != z.dst) {
		return nil
	}
	if loc, err := time.LoadLocation(z.name); err == nil {
		return loc
	}
	return time.FixedZone("", refOff) // no zone data: the item's own offset is the best guess
}

// stampRangeEnd matches the end of a window after a time, " - 12:00".
var stampRangeEnd = regexp.MustCompile(`^\s*[-–]\s*(\d{1,2}):(\d{2})\b`)

// feedZoneOffsets are the zone abbreviations status pages write (a page shows times in its own
// zone), in seconds east of UTC. CST is taken as US Central, the commoner on status pages.
var feedZoneOffsets = map[string]int{
	"UTC": 0, "GMT": 0, "UT": 0, "Z": 0, "WET": 0, "WEST": 3600, "BST": 3600,
	"CET": 3600, "CEST": 7200, "EET": 7200, "EEST": 3 * 3600, "MSK": 3 * 3600,
	"IST": 5*3600 + 1800, "SGT": 8 * 3600, "HKT": 8 * 3600, "AWST": 8 * 3600,
	"JST": 9 * 3600, "KST": 9 * 3600, "ACST": 9*3600 + 1800, "ACDT": 10*3600 + 1800,
	"AEST": 10 * 3600, "AEDT": 11 * 3600, "NZST": 12 * 3600, "NZDT": 13 * 3600,
	"EST": -5 * 3600, "EDT": -4 * 3600, "CST": -6 * 3600, "CDT": -5 * 3600,
	"MST": -7 * 3600, "MDT": -6 * 3600, "PST": -8 * 3600, "PDT": -7 * 3600,
	"AKST": -9 * 3600, "AKDT": -8 * 3600, "HST": -10 * 3600,
}

// feedZoneRE matches a zone after a time: "UTC", "GMT+3", "UTC+05:30", "+03:00", "-0700", "Z".
var feedZoneRE = regexp.MustCompile(`^\s*(?:([A-Z]{1,5})(?:([+-])(\d{1,2})(?::?(\d{2}))?)?|([+-])(\d{2}):?(\d{2}))\b`)

// feedZone reads the zone at the start of s: its offset in seconds and the bytes it takes.
// An unknown abbreviation is not taken (it may be the first word of the text).
func feedZone(s string) (int, int) {
	m := feedZoneRE.FindStringSubmatchIndex(s)
	if m == nil {
		return 0, 0
	}
	g := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return s[m[2*i]:m[2*i+1]]
	}
	offset := func(sign, h, mm string) int {
		hh, _ := strconv.Atoi(h)
		mi, _ := strconv.Atoi(mm)
		o := hh*3600 + mi*60
		if sign == "-" {
			o = -o
		}
		return o
	}
	if g(5) != "" {
		return offset(g(5), g(6), g(7)), m[1]
	}
	base, ok := feedZoneOffsets[g(1)]
	if !ok {
		return 0, 0
	}
	if g(2) != "" {
		if g(1) != "UTC" && g(1) != "GMT" {
			return base, m[3] // "PDT" then something else
		}
		return offset(g(2), g(3), g(4)), m[1]
	}
	return base, m[1]
}
