// The AWS adapter reads the AWS Health Dashboard's service health
// (https://docs.aws.amazon.com/health/latest/ug/aws-health-dashboard-status.html): the
// RSS feed of every post, https://status.aws.amazon.com/rss/all.rss (RSS 2.0,
// https://www.rssboard.org/rss-specification), and the JSON list of the events open now
// that the dashboard itself loads, https://health.aws.amazon.com/public/currentevents
// (undocumented; served as UTF-16 with a byte-order mark).

package aws

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"
	"golang.org/x/text/encoding/unicode"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Kind is the provider kind of the AWS Health Dashboard.
const Kind = "aws"

// Endpoint names of the aws adapter (keys of Source.Endpoints and model.FetchState).
const (
	EndpointRSS           = "rss"           // rss/all.rss, on status.aws.amazon.com
	EndpointCurrentEvents = "currentevents" // public/currentevents, on health.aws.amazon.com
)

// awsEpisodeState prefixes the fetch-state keys that remember, per AWS service, the
// episodes (incidents) seen in the last parse, so an incident keeps its id after its
// first posts fell out of the feed, and one that left currentevents is resolved after two
// polls without it. See AWS.
const awsEpisodeState = "episodes/"

func init() {
	fetch.Register(fetch.Platform{
		Kind:          Kind,
		New:           func(c *fetch.Client) fetch.Provider { return &AWS{c: c} },
		Endpoints:     []string{EndpointRSS, EndpointCurrentEvents},
		Hosts:         []string{"health.aws.amazon.com", "status.aws.amazon.com"},
		PageURL:       func(u *url.URL) string { return u.String() }, // the adapter reads fixed URLs on the official hosts
		EndpointPaths: []string{"/rss/all.rss", "/public/currentevents"},
		Feed:          awsFeedDetection,
	})
}

// AWS is the Provider of the AWS Health Dashboard. It combines two endpoints into one
// history snapshot:
//
//   - The RSS feed is the history: one item per post, the newest 50 or so, for every
//     service and region. An item's guid is "https://status.aws.amazon.com/#<service>_<unix
//     time of the post>", where <service> is a service and region ("ec2-us-east-1",
//     "multipleservices-me-central-1"). Items are grouped into incidents by <service>,
//     and a group is split after each resolution post ("Service is operating
//     normally: [RESOLVED] …"), so the next event of the same service months later is a
//     new incident rather than a new version of the old one.
//   - currentevents lists the events open now (open only), each with its service, its
//     start ("date"), its impacted services and its whole log of posts, whose
//     timestamps are the ones in the RSS guids.
//
// How they combine: an open event is matched with the RSS incident of its service that
// shares a post with it (else the one starting when it started). A matched incident
// takes the event's start (its true start, when its first posts fell out of the feed),
// the event's impacted services as extra components, and the event's posts the feed no
// longer holds. An open event missing from the RSS (not yet posted there) still appears,
// built from the event alone. The latest post wins for the status: resolved when it is a
// resolution, else investigating, whichever endpoint it came from.
//
// The incident id is "<service>_<unix start>": for an open event exactly its service and
// date. An incident's first posts fall out of the 50-item feed while it is still
// listed; to keep its id, the spans of the episodes seen in the last parse are kept in
// the fetch state (awsEpisodeState; the encoding is on awsMemoFrom), and the oldest
// episode of a service takes the start of the remembered (or open) one it continues.
// The posts that fell out are carried over from the archived version
// (Request.Archived), so the timeline does not shrink as the feed rolls on; so are the
// components once currentevents stops listing the event.
//
// Both bodies are needed to build any incident: when one endpoint changed and the other
// answered 304 or the same bytes, the other is read again without validators (one extra
// request, only on a poll where something changed), so a snapshot is always a function
// of both. A poll where both are unchanged reads two conditional requests and parses
// nothing, except while an episode is missed once (below): then both are read again and
// parsed, since that unchanged answer is the second well-formed poll without it. A
// failure of either endpoint, or a body either decoder rejects, fails the poll and counts
// for nothing.
//
// The snapshot is a history snapshot: its listing covers what started since the oldest
// RSS item, so an incident that fell out of the feed is never taken for removed, while
// one that vanished from both endpoints inside that window is removed after two polls,
// as on any history page. AWS normally closes an event with a resolution post, which
// resolves it here with the post's time. But currentevents is an open-only list, and an
// event can leave it without one (the post never came, or rolled out of the feed first).
// The archive's own absence rule cannot see that: the feed still lists the incident, so
// it is present in every snapshot, open by its posts. So the rule of open-only lists
// runs here, kept in the episode memo (times in unix seconds):
//
//   - An episode matched with an open event on the last parse, still open by its posts
//     and absent from a well-formed currentevents now, is missed once: the memo keeps
//     the time of that poll and the incident stays as it was.
//   - Absent again on the next well-formed poll, still with no resolution post and no
//     newer post, it is resolved, inferred: resolved_at the time it was first missed,
//     status_raw empty (AWS never said it), as the archive does for other open-only
//     lists. The memo remembers that, so it stays resolved on later parses although the
//     feed still shows its posts unresolved.
//   - Listed in currentevents again, it is open with its event as before and the miss is
//     forgotten (after an inferred resolution too: the open list says it is going on). A
//     resolution post resolves it with the post's own time, whatever the memo holds.
//   - A post newer than the memo knows, not a resolution, while it is still absent: AWS is
//     still writing about it, so it reopens (or stays open), and that poll counts as its
//     first miss; without another post or its event, the next poll resolves it again, at
//     that poll's time. Feed-only episodes that currentevents never listed (an old post
//     without its resolution) are left open: absent from currentevents all along, no
//     poll saw them leave it, so none could date a resolution.
//   - An episode gone from the feed as well as from currentevents is followed the same
//     way through its archived version (Request.Archived), which the snapshot repeats
//     while it is missed once and carries, resolved, while the feed's window covers its
//     start, so the history rule never takes it for removed.
//
// Mapping. The RSS title is "<level>: <summary>"; currentevents gives the level
// as a number (0 normal, 1 informational, 2 degradation, 3 disruption). Impact is the
// level of the latest post that is not a resolution, kept in impact_raw as the vendor
// wrote it (the title prefix, or the number):
//
//	"Informational message", "Service impact", 1        → minor
//	"Performance issues", "Service degradation", 2      → major
//	"Service disruption", "Service outage", 3           → critical
//	anything else                                       → unknown (passes every filter)
//
// "Service impact" is how the 2026 feed titles the posts currentevents rates 1. Status:
// "Service is operating normally", a summary starting "[RESOLVED]" or level 0 → resolved
// (resolved_at: that post), else investigating; status_raw is the latest post's level.
// Updates are the posts, id "<service>_<unix time>" as in the guid, bodies as HTML (text
// with line breaks and the odd link). Components: the service, plus the impacted services
// of the event while currentevents lists it.
type AWS struct{ c *fetch.Client }

var _ fetch.Provider = (*AWS)(nil)

// Poll reads the RSS feed and currentevents conditionally; see AWS.
func (p *AWS) Poll(ctx context.Context, req fetch.Request) (*fetch.Result, error) {
	pl := fetch.NewPoll(p.c, req)
	rssURL, ceURL, err := awsEndpoints(req.Source)
	if err != nil {
		return pl.Failed(), err
	}
	rss, err := pl.Read(ctx, EndpointRSS, rssURL)
	if err != nil {
		return pl.Failed(), err
	}
	ce, err := pl.Read(ctx, EndpointCurrentEvents, ceURL)
	if err != nil {
		return pl.Failed(), err
	}
	// While an episode is missed once, an unchanged poll is still the second well-formed
	// answer without it: it must be parsed, or the miss would wait for the next change.
	memo := awsMemoFrom(req.State)
	if !fetch.ToParse(rss) && !fetch.ToParse(ce) && !memo.pending() {
		return pl.Res, nil
	}
	if !fetch.ToParse(rss) {
		if rss, err = pl.Reread(ctx, EndpointRSS, rssURL); err != nil {
			return pl.Failed(), err
		}
	}
	if !fetch.ToParse(ce) {
		if ce, err = pl.Reread(ctx, EndpointCurrentEvents, ceURL); err != nil {
			return pl.Failed(), err
		}
	}

	feed, err := decodeAWSRSS(rss.Body)
	if err != nil {
		return pl.Failed(), fmt.Errorf("%s %s: %w", EndpointRSS, rssURL, err)
	}
	events, err := decodeAWSCurrentEvents(ce.ContentType, ce.Body)
	if err != nil {
		return pl.Failed(), fmt.Errorf("%s %s: %w", EndpointCurrentEvents, ceURL, err)
	}
	b := awsBuild{
		feed:     feed,
		events:   events,
		memo:     memo,
		archived: req.Archived,
		pageURL:  req.Source.URL,
		now:      req.Now.UTC(),
	}
	incidents, listing, memo := b.run()
	for k := range pl.Res.State {
		if strings.HasPrefix(k, awsEpisodeState) {
			delete(pl.Res.State, k)
		}
	}
	maps.Copy(pl.Res.State, memo.state())
	pl.Res.Snapshot = &model.Snapshot{
		Source:    req.Source.Name,
		FetchedAt: req.Now.UTC(),
		PageTitle: feed.title,
		Listings:  []model.Listing{listing},
		Incidents: incidents,
	}
	return pl.Res, nil
}

// awsEndpoints derives the two endpoint URLs. Source.Endpoints overrides either. The
// dashboard's own hosts (health.aws.amazon.com, status.aws.amazon.com) read the real
// endpoints, which live on two hosts; any other page (a mirror, a proxy, a test server)
// serves both relative to its URL, as rss/all.rss and public/currentevents.
func awsEndpoints(src model.Source) (rss, ce string, err error) {
	official := false
	if u, perr := url.Parse(src.URL); perr == nil {
		switch strings.ToLower(u.Hostname()) {
		case "health.aws.amazon.com", "status.aws.amazon.com":
			official = true
		}
	}
	resolve := func(name, rel, abs string) (string, error) {
		if u := src.Endpoints[name]; u != "" || !official {
			return fetch.EndpointURL(src, name, rel, "")
		}
		return abs, nil
	}
	if rss, err = resolve(EndpointRSS, "rss/all.rss", "https://status.aws.amazon.com/rss/all.rss"); err != nil {
		return "", "", err
	}
	ce, err = resolve(EndpointCurrentEvents, "public/currentevents", "https://health.aws.amazon.com/public/currentevents")
	return rss, ce, err
}

// ---- Decoding ----

// awsPost is one post, from an RSS item or a currentevents log entry.
type awsPost struct {
	service  string
	at       int64  // unix seconds: the guid's timestamp, else pubDate
	summary  string // the title after the level, without "[RESOLVED]"
	raw      string // the level as the vendor wrote it: title prefix, or the number
	level    int    // 0 normal … 3 disruption; -1 unknown
	resolved bool
	body     string // HTML
	rss      bool   // from the RSS feed
}

// awsFeed is the decoded RSS feed.
type awsFeed struct {
	title string
	posts []awsPost
}

// decodeAWSRSS parses all.rss with gofeed. An item without a guid (or whose guid is not
// "…#<service>_<unix>" and that has no readable pubDate) is malformed: without it, a post
// cannot be placed in an incident.
func decodeAWSRSS(body []byte) (*awsFeed, error) {
	f, err := fetch.ParseStatusFeed(body)
	if err != nil {
		return nil, err
	}
	out := &awsFeed{title: strings.TrimSpace(f.Title), posts: make([]awsPost, 0, len(f.Items))}
	for i, it := range f.Items {
		if it == nil {
			continue
		}
		guid := strings.TrimSpace(it.GUID)
		if guid == "" {
			return nil, fmt.Errorf("%w: item [%d] has no guid", fetch.ErrMalformed, i)
		}
		service, at := awsSplitGUID(guid)
		if at == 0 && it.PublishedParsed != nil {
			at = it.PublishedParsed.Unix()
		}
		if service == "" || at <= 0 {
			return nil, fmt.Errorf("%w: item [%d] guid %q: want …#<service>_<unix time>", fetch.ErrMalformed, i, guid)
		}
		p := awsPost{service: service, at: at, body: it.Description, rss: true}
		p.raw, p.summary = awsSplitTitle(it.Title)
		p.level, p.resolved = awsTitleLevel(p.raw, p.summary)
		p.summary = awsStripResolved(p.summary)
		out.posts = append(out.posts, p)
	}
	return out, nil
}

// awsSplitGUID splits "https://status.aws.amazon.com/#ec2-us-east-1_1787025679" into
// "ec2-us-east-1" and 1787025679. A guid without a "_<unix>" suffix is all service, at 0.
func awsSplitGUID(guid string) (string, int64) {
	if i := strings.LastIndexByte(guid, '#'); i >= 0 {
		guid = guid[i+1:]
	}
	if i := strings.LastIndexByte(guid, '_'); i > 0 {
		if n, err := strconv.ParseInt(guid[i+1:], 10, 64); err == nil && n > 0 {
			return guid[:i], n
		}
	}
	return guid, 0
}

// awsSplitTitle splits "Service disruption: Increased Error Rates" at its first ": ".
func awsSplitTitle(title string) (level, summary string) {
	title = strings.TrimSpace(title)
	if l, s, ok := strings.Cut(title, ": "); ok {
		return strings.TrimSpace(l), strings.TrimSpace(s)
	}
	return "", title
}

// awsTitleLevel reads the level of an RSS title prefix; see the table on AWS.
func awsTitleLevel(prefix, summary string) (level int, resolved bool) {
	resolved = hasPrefixFold(summary, "[resolved]")
	switch strings.ToLower(prefix) {
	case "service is operating normally":
		return 0, true
	case "informational message", "service impact":
		return 1, resolved
	case "performance issues", "service degradation", "degraded performance":
		return 2, resolved
	case "service disruption", "service outage":
		return 3, resolved
	}
	return -1, resolved
}

func awsStripResolved(s string) string {
	if hasPrefixFold(s, "[resolved]") {
		return strings.TrimSpace(s[len("[resolved]"):])
	}
	return s
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// awsEvent is one open event of currentevents; only the fields we use.
type awsEvent struct {
	Date             awsNumber              `json:"date"`
	Service          string                 `json:"service"`
	Summary          string                 `json:"summary"`
	Status           awsNumber              `json:"status"`
	EventLog         []awsLogEntry          `json:"event_log"`
	ImpactedServices map[string]jsonIgnored `json:"impacted_services"`
}

type awsLogEntry struct {
	Summary   string    `json:"summary"`
	Message   string    `json:"message"`
	Status    awsNumber `json:"status"`
	Timestamp awsNumber `json:"timestamp"`
}

// jsonIgnored decodes any JSON value into nothing: of the impacted services we keep only
// their keys.
type jsonIgnored struct{}

// UnmarshalJSON implements json.Unmarshaler.
func (jsonIgnored) UnmarshalJSON([]byte) error { return nil }

// awsNumber reads a number sent as a JSON number or a string ("date": "1772369485",
// "timestamp": 1772369485); anything else, or unreadable, is -1.
type awsNumber int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *awsNumber) UnmarshalJSON(b []byte) error {
	*n = -1
	s := string(bytes.Trim(b, `"`))
	if v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
		*n = awsNumber(v)
	} else if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && f >= 0 && f < 1e15 {
		*n = awsNumber(f)
	}
	return nil
}

// awsUTF8 returns the body as UTF-8: UTF-16 (big or little endian) with a byte-order
// mark, as currentevents is served, is converted; so is UTF-16 without a mark, told by
// its NUL bytes; UTF-8 passes (its mark dropped).
func awsUTF8(body []byte) ([]byte, error) {
	enc := unicode.UTF8BOM
	switch {
	case bytes.HasPrefix(body, []byte{0xfe, 0xff}), bytes.HasPrefix(body, []byte{0xff, 0xfe}):
		enc = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	case len(body) >= 2 && body[0] == 0 && body[1] != 0:
		enc = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	case len(body) >= 2 && body[0] != 0 && body[1] == 0:
		enc = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", fetch.ErrMalformed, err)
	}
	return out, nil
}

// decodeAWSCurrentEvents decodes currentevents: a JSON array of open events, each with a
// service. An empty array is a healthy dashboard.
func decodeAWSCurrentEvents(contentType string, body []byte) ([]awsEvent, error) {
	u, err := awsUTF8(body)
	if err != nil {
		return nil, err
	}
	var events []awsEvent
	if err := fetch.DecodeJSONArray(contentType, u, &events); err != nil {
		return nil, err
	}
	for i := range events {
		if strings.TrimSpace(events[i].Service) == "" {
			return nil, fmt.Errorf("%w: event [%d] has no service", fetch.ErrMalformed, i)
		}
	}
	return events, nil
}

// posts returns the event's log as posts, and its start: the date, else its oldest post.
func (ev *awsEvent) posts() ([]awsPost, int64) {
	service := strings.TrimSpace(ev.Service)
	out := make([]awsPost, 0, len(ev.EventLog))
	start := int64(ev.Date)
	for _, e := range ev.EventLog {
		if e.Timestamp <= 0 {
			continue
		}
		at := int64(e.Timestamp)
		if at > 1e11 { // milliseconds
			at /= 1000
		}
		level := int(e.Status)
		if level < 0 || level > 3 {
			level = -1
		}
		summary := strings.TrimSpace(e.Summary)
		if summary == "" {
			summary = strings.TrimSpace(ev.Summary)
		}
		p := awsPost{service: service, at: at, level: level, resolved: level == 0, body: e.Message}
		if e.Status >= 0 {
			p.raw = strconv.FormatInt(int64(e.Status), 10)
		}
		p.summary = awsStripResolved(summary)
		out = append(out, p)
		if start <= 0 || at < start {
			start = at
		}
	}
	return out, start
}

// ---- Combining (see AWS) ----

// awsSpan is what the fetch state remembers of an episode: its start and its latest
// post, whether it was still open, and where it stands in the absence rule (see AWS).
// listed and missed are only ever set on an open span, inferred on a closed one.
type awsSpan struct {
	start, last int64
	open        bool
	listed      bool  // open, and listed by currentevents
	missed      int64 // open, listed until currentevents first lacked it at this unix time
	inferred    int64 // resolved by inference: first missed at this unix time, missed again since
}

// tracked reports whether the absence rule applies to the episode: currentevents listed
// it once, so its absence from there says something.
func (s awsSpan) tracked() bool { return s.listed || s.missed > 0 || s.inferred > 0 }

// awsMemo holds the remembered episodes per service.
type awsMemo map[string][]awsSpan

// awsMemoFrom reads the episodes remembered in the fetch state: one key per service,
// "episodes/<service>", whose Hash field holds one entry per episode, joined by commas:
//
//	<start>-<last>             resolved by a post
//	<start>-<last>+            open, not listed by currentevents (feed only)
//	<start>-<last>+e           open, listed by currentevents
//	<start>-<last>+m<unix>     open, absent from currentevents since that poll (missed once)
//	<start>-<last>i<unix>      resolved by inference, resolved_at that time
//
// The first two are the encoding of the versions before the absence rule, which read the
// same (an open episode of theirs counts as not listed: the rule starts with the next
// parse that finds it in currentevents). Unreadable entries are skipped.
func awsMemoFrom(st model.FetchState) awsMemo {
	m := awsMemo{}
	for k, v := range st {
		service, ok := strings.CutPrefix(k, awsEpisodeState)
		if !ok {
			continue
		}
		for _, f := range strings.Split(v.Hash, ",") {
			if s, ok := awsParseSpan(f); ok {
				m[service] = append(m[service], s)
			}
		}
	}
	return m
}

// awsParseSpan reads one entry of the memo; see awsMemoFrom.
func awsParseSpan(f string) (awsSpan, bool) {
	a, rest, ok := strings.Cut(f, "-")
	if !ok {
		return awsSpan{}, false
	}
	i := 0
	for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	start, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(rest[:i], 10, 64)
	if err1 != nil || err2 != nil || start < 0 || last < start {
		return awsSpan{}, false
	}
	s := awsSpan{start: start, last: last}
	flags := rest[i:]
	flags, s.open = strings.CutPrefix(flags, "+")
	at := func(v string) int64 {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return 0
		}
		return n
	}
	switch {
	case flags == "":
	case s.open && flags == "e":
		s.listed = true
	case s.open && flags[0] == 'm':
		s.missed = at(flags[1:])
		ok = s.missed > 0
	case !s.open && flags[0] == 'i':
		s.inferred = at(flags[1:])
		ok = s.inferred > 0
	default:
		ok = false
	}
	return s, ok
}

// pending reports whether an episode is missed once: the next well-formed poll decides it.
func (m awsMemo) pending() bool {
	for _, spans := range m {
		for _, s := range spans {
			if s.open && s.missed > 0 {
				return true
			}
		}
	}
	return false
}

// state writes the memo as fetch-state entries.
func (m awsMemo) state() model.FetchState {
	st := make(model.FetchState, len(m))
	for service, spans := range m {
		slices.SortFunc(spans, func(a, b awsSpan) int { return cmp.Compare(a.start, b.start) })
		parts := make([]string, len(spans))
		for i, s := range spans {
			parts[i] = strconv.FormatInt(s.start, 10) + "-" + strconv.FormatInt(s.last, 10)
			switch {
			case s.open && s.missed > 0:
				parts[i] += "+m" + strconv.FormatInt(s.missed, 10)
			case s.open && s.listed:
				parts[i] += "+e"
			case s.open:
				parts[i] += "+"
			case s.inferred > 0:
				parts[i] += "i" + strconv.FormatInt(s.inferred, 10)
			}
		}
		st[awsEpisodeState+service] = model.EndpointState{Hash: strings.Join(parts, ",")}
	}
	return st
}

// awsEpisode is one incident being built: the posts of one service between resolutions.
type awsEpisode struct {
	service string
	start   int64
	posts   []awsPost // oldest first
	event   *awsEvent // the open event matched with it, if any
}

// awsBuild combines one RSS feed and one currentevents list into incidents.
type awsBuild struct {
	feed     *awsFeed
	events   []awsEvent
	memo     awsMemo
	archived func(id string) *model.Incident // may be nil
	pageURL  string
	now      time.Time
}

// run builds the incidents, the listing and the memo to remember.
func (b *awsBuild) run() ([]model.Incident, model.Listing, awsMemo) {
	// Group the RSS posts by service, oldest first; a post listed twice counts once.
	groups := map[string][]awsPost{}
	seen := map[string]bool{}
	var oldest int64
	for _, p := range b.feed.posts {
		key := p.service + "_" + strconv.FormatInt(p.at, 10)
		if seen[key] {
			continue
		}
		seen[key] = true
		groups[p.service] = append(groups[p.service], p)
		if oldest == 0 || p.at < oldest {
			oldest = p.at
		}
	}
	services := slices.Sorted(maps.Keys(groups))

	// Split each group into episodes after each resolution post.
	var episodes []*awsEpisode
	first := map[string]*awsEpisode{} // the oldest episode of each service
	for _, s := range services {
		g := groups[s]
		slices.SortStableFunc(g, func(x, y awsPost) int { return cmp.Compare(x.at, y.at) })
		var cur *awsEpisode
		for _, p := range g {
			if cur == nil {
				cur = &awsEpisode{service: s, start: p.at}
				episodes = append(episodes, cur)
				if first[s] == nil {
					first[s] = cur
				}
			}
			cur.posts = append(cur.posts, p)
			if p.resolved {
				cur = nil
			}
		}
	}

	// Parse the open events once.
	type openEvent struct {
		ev    *awsEvent
		posts []awsPost
		start int64
		last  int64
	}
	var open []openEvent
	for i := range b.events {
		ev := &b.events[i]
		// An event with neither date nor post starts at 0 ("not given"): a stable id
		// beats one that moves with the clock.
		posts, start := ev.posts()
		start = max(start, 0)
		last := start
		for _, p := range posts {
			last = max(last, p.at)
		}
		open = append(open, openEvent{ev: ev, posts: posts, start: start, last: last})
	}

	// The oldest episode of each service may have lost its first posts: it continues the
	// latest remembered or open episode that started before it and was still open or
	// reached past its first post.
	for s, e := range first {
		cands := slices.Clone(b.memo[s])
		for _, o := range open {
			if strings.TrimSpace(o.ev.Service) == s {
				cands = append(cands, awsSpan{start: o.start, last: o.last, open: true})
			}
		}
		t1 := e.posts[0].at
		var best *awsSpan
		for i := range cands {
			c := &cands[i]
			if c.start <= t1 && (best == nil || c.start > best.start) {
				best = c
			}
		}
		if best != nil && (best.open || t1 <= best.last) {
			e.start = best.start
		}
	}

	// Match each open event with the episode of its service that shares a post with it,
	// else the one that starts when it starts; an event matching none is an episode of
	// its own.
	for _, o := range open {
		s := strings.TrimSpace(o.ev.Service)
		var match *awsEpisode
		for _, e := range episodes {
			if e.service != s || e.event != nil {
				continue
			}
			if e.start == o.start || awsSharePost(e.posts, o.posts) {
				match = e
				break
			}
		}
		if match == nil {
			match = &awsEpisode{service: s, start: o.start}
			episodes = append(episodes, match)
		}
		match.event = o.ev
		have := make(map[int64]bool, len(match.posts))
		for _, p := range match.posts {
			have[p.at] = true
		}
		for _, p := range o.posts {
			if !have[p.at] { // the RSS text wins for a post both list: they are the same
				have[p.at] = true
				match.posts = append(match.posts, p)
			}
		}
		slices.SortStableFunc(match.posts, func(x, y awsPost) int { return cmp.Compare(x.at, y.at) })
	}

	listing := model.Listing{Kind: model.KindIncident, Since: b.now}
	if oldest > 0 {
		listing.Since = time.Unix(oldest, 0).UTC()
	}
	out := make([]model.Incident, 0, len(episodes))
	memo := awsMemo{}
	ids := map[string]bool{}
	for _, e := range episodes {
		inc := b.incident(e, listing.Since)
		if ids[inc.ID] {
			continue
		}
		ids[inc.ID] = true
		last := e.start
		if n := len(e.posts); n > 0 {
			last = max(last, e.posts[n-1].at)
		}
		span := awsSpan{start: e.start, last: last, open: inc.Status.Open()}
		span.listed = span.open && e.event != nil
		if span.open && e.event == nil {
			if r, ok := b.memo.find(e.service, e.start); ok && r.tracked() {
				b.absent(&inc, &span, r)
			}
		}
		out = append(out, inc)
		memo[e.service] = append(memo[e.service], span)
	}

	// An episode currentevents listed may be gone from the feed too (it rolled out, or
	// never reached it): the absence rule still runs its course, on the archived version.
	for _, s := range slices.Sorted(maps.Keys(b.memo)) {
		for _, r := range b.memo[s] {
			id := s + "_" + strconv.FormatInt(r.start, 10)
			if ids[id] || !r.tracked() || b.archived == nil {
				continue
			}
			prev := b.archived(id)
			if prev == nil {
				continue
			}
			inc, span := *prev, r
			switch {
			case r.inferred > 0:
				// Resolved already; listed while the feed's window covers its start, so
				// that a history snapshot does not take it for removed.
				if r.start < listing.Since.Unix() {
					continue
				}
				if inc.Open() {
					inc = awsInferResolved(inc, r.inferred)
				}
			case !inc.Open():
				continue // resolved in the archive already: nothing left to infer
			case r.missed > 0:
				inc = awsInferResolved(inc, r.missed)
				span = awsSpan{start: r.start, last: r.last, inferred: r.missed}
			default:
				if !b.miss(&span) {
					continue
				}
			}
			ids[id] = true
			out = append(out, inc)
			memo[s] = append(memo[s], span)
		}
	}
	return out, listing, memo
}

// find returns the remembered episode of service that started at start.
func (m awsMemo) find(service string, start int64) (awsSpan, bool) {
	for _, s := range m[service] {
		if s.start == start {
			return s, true
		}
	}
	return awsSpan{}, false
}

// absent applies the absence rule (see AWS) to an episode that currentevents listed once
// and does not list now, although no post resolved it: r is what the memo remembers of
// it, inc and span what this parse built, open.
func (b *awsBuild) absent(inc *model.Incident, span *awsSpan, r awsSpan) {
	newer := span.last > r.last // a post since the last parse: it is going on after all
	span.last = max(span.last, r.last)
	switch {
	case r.inferred > 0 && !newer:
		*inc = awsInferResolved(*inc, r.inferred)
		span.open, span.inferred = false, r.inferred
	case r.missed > 0 && !newer:
		*inc = awsInferResolved(*inc, r.missed)
		span.open, span.inferred = false, r.missed
	default: // listed last time, or reopened by a post: this poll is its first miss
		b.miss(span)
	}
}

// miss marks an open span missed once, now. The clock is needed: without it (never in
// the daemon) nothing is counted.
func (b *awsBuild) miss(span *awsSpan) bool {
	now := b.now.Unix()
	if b.now.IsZero() || now <= 0 {
		return false
	}
	span.open, span.listed, span.missed = true, false, now
	return true
}

// awsInferResolved is inc resolved at the unix time at, marked inferred, as the archive
// resolves the incidents of other open-only lists (archive.inferResolved): status_raw is
// cleared, since AWS never posted that word.
func awsInferResolved(inc model.Incident, at int64) model.Incident {
	inc.Status = model.StatusResolved
	inc.StatusRaw = ""
	inc.ResolvedAt = time.Unix(at, 0).UTC()
	inc.ResolvedInferred = true
	return inc
}

// awsSharePost reports whether two lists of posts share a timestamp.
func awsSharePost(a, b []awsPost) bool {
	at := make(map[int64]bool, len(a))
	for _, p := range a {
		at[p.at] = true
	}
	for _, p := range b {
		if at[p.at] {
			return true
		}
	}
	return false
}

// incident normalises one episode. window is the time of the oldest RSS item: archived
// posts older than it are carried over when missing.
func (b *awsBuild) incident(e *awsEpisode, window time.Time) model.Incident {
	inc := model.Incident{
		ID:     e.service + "_" + strconv.FormatInt(e.start, 10),
		Kind:   model.KindIncident,
		Status: model.StatusInvestigating,
		Impact: model.ImpactUnknown,
		URL:    b.pageURL,
	}
	if e.start > 0 {
		inc.StartedAt = time.Unix(e.start, 0).UTC()
	}
	components := []string{e.service}
	if e.event != nil {
		components = append(components, slices.Collect(maps.Keys(e.event.ImpactedServices))...)
	}
	updates := make([]model.Update, 0, len(e.posts))
	for _, p := range e.posts {
		status := model.StatusInvestigating
		if p.resolved {
			status = model.StatusResolved
		}
		html := awsHTML(p.body)
		updates = append(updates, model.Update{
			ID:       p.service + "_" + strconv.FormatInt(p.at, 10),
			Status:   status,
			Body:     fetch.HTMLToText(html),
			Format:   model.FormatHTML,
			HTML:     fetch.SanitizeHTML(html),
			PostedAt: time.Unix(p.at, 0).UTC(),
		})
	}

	// Carry over what the sources no longer hold: posts older than the feed's window,
	// and the components once currentevents stops listing the event.
	if b.archived != nil {
		if prev := b.archived(inc.ID); prev != nil {
			have := make(map[string]bool, len(updates))
			for _, u := range updates {
				have[u.ID] = true
			}
			for _, u := range prev.Updates {
				if !have[u.ID] && u.PostedAt.Before(window) {
					have[u.ID] = true
					updates = append(updates, u)
				}
			}
			if e.event == nil {
				components = append(components, prev.Components...)
			}
		}
	}
	slices.SortStableFunc(updates, func(x, y model.Update) int { return x.PostedAt.Compare(y.PostedAt) })
	inc.Updates = updates

	for i := range components {
		components[i] = strings.TrimSpace(components[i])
	}
	components = slices.DeleteFunc(components, func(s string) bool { return s == "" })
	slices.Sort(components)
	inc.Components = slices.Compact(components)

	// Title, status and impact from the latest posts.
	for i := len(e.posts) - 1; i >= 0; i-- {
		if s := e.posts[i].summary; s != "" {
			inc.Title = s
			break
		}
	}
	if n := len(e.posts); n > 0 {
		last := e.posts[n-1]
		inc.StatusRaw = last.raw
		if last.resolved {
			inc.Status = model.StatusResolved
			inc.ResolvedAt = time.Unix(last.at, 0).UTC()
		}
	}
	for i := len(e.posts) - 1; i >= 0; i-- {
		if p := e.posts[i]; !p.resolved {
			inc.Impact, inc.ImpactRaw = awsImpact(p.level), p.raw
			break
		}
	}
	return inc
}

// awsImpact maps a level; see the table on AWS.
func awsImpact(level int) model.Impact {
	switch level {
	case 0:
		return model.ImpactNone
	case 1:
		return model.ImpactMinor
	case 2:
		return model.ImpactMajor
	case 3:
		return model.ImpactCritical
	}
	return model.ImpactUnknown
}

// awsHTML turns a post's body, text with line breaks and inline links, into HTML that
// keeps its paragraphs: blank lines part paragraphs, single newlines become <br>.
func awsHTML(body string) string {
	body = strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n"))
	if body == "" {
		return ""
	}
	var sb strings.Builder
	for _, para := range strings.Split(body, "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		sb.WriteString("<p>")
		sb.WriteString(strings.ReplaceAll(para, "\n", "<br>"))
		sb.WriteString("</p>")
	}
	return sb.String()
}

// awsFeedDetection recognises the AWS Health Dashboard's rss/all.rss, at the path the adapter reads.
func awsFeedDetection(u *url.URL, f *gofeed.Feed) *fetch.Detection {
	base := *u
	base.RawQuery, base.RawPath = "", ""
	if strings.Contains(f.Generator, "AWS Service Health Dashboard") {
		if p, ok := strings.CutSuffix(base.Path, "/rss/all.rss"); ok {
			base.Path = p + "/"
			return &fetch.Detection{Kind: Kind, URL: base.String(),
				Evidence: fmt.Sprintf("URL is rss/all.rss with generator %s (AWS Health Dashboard)", fetch.QuoteShort(f.Generator))}
		}
	}
	return nil
}
