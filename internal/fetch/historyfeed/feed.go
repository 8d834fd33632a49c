// Package historyfeed reads the incident-history feeds of status pages: RSS 2.0 or Atom
// documents whose entries are incidents and whose content's dated paragraphs are their
// updates. The feed platform, Instatus's history.atom and incident.io's feed.atom read
// them with it. The common shape is Statuspage's history.atom / history.rss
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
// no dated paragraph at all is one update.
package historyfeed

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// feedTruncatedAt is the entry count from which a feed is taken to show only a window of
// the page's history: platforms cap their feeds at round numbers (10, 20, 25, 50). A
// shorter feed is taken as the page's whole history. Taking a whole history for a window
// would mark the incidents that scroll out as removed; the reverse only misses the removal
// of an incident older than the window, so the threshold errs low.
const feedTruncatedAt = 10

// ---- Parsing ----

// Feed is a parsed RSS or Atom feed, reduced to what we use.
type Feed struct {
	title   string
	Entries []Entry
}

// Entry is one entry (Atom) or item (RSS).
type Entry struct {
	ID      string // Atom id or RSS guid
	Link    string
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

// Parse parses an RSS or Atom document. What is not one (HTML, JSON, an empty
// or truncated body) is ErrMalformed: a fetch failure, never an empty feed.
func Parse(body []byte) (*Feed, error) {
	b, err := payload.FeedBody(body)
	if err != nil {
		return nil, err
	}
	switch gofeed.DetectFeedType(bytes.NewReader(b[:min(len(b), 4096)])) {
	case gofeed.FeedTypeAtom, gofeed.FeedTypeRSS:
	default:
		return nil, fmt.Errorf("%w: not an RSS or Atom feed", payload.ErrMalformed)
	}
	if !feedRoots.Match(trimTrailingComments(b)) {
		return nil, fmt.Errorf("%w: feed document cut short", payload.ErrMalformed)
	}
	parsed, err := payload.ParseFeed(b)
	if err != nil {
		return nil, err
	}
	f := &Feed{title: strings.TrimSpace(parsed.Title), Entries: make([]Entry, 0, len(parsed.Items))}
	for _, it := range payload.FeedItems(parsed) {
		e := Entry{
			ID:           strings.TrimSpace(it.GUID),
			Link:         strings.TrimSpace(it.Link),
			title:        strings.TrimSpace(it.Title),
			content:      payload.FeedText(it),
			publishedRaw: strings.TrimSpace(it.Published),
			updatedRaw:   strings.TrimSpace(it.Updated),
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
		f.Entries = append(f.Entries, e)
	}
	return f, nil
}

// PageTitle is the feed's title without the " - Incident History" Statuspage appends.
func (f *Feed) PageTitle() string {
	t := f.title
	for _, suffix := range []string{" - Incident History", " Incident History", " - Status History"} {
		t = strings.TrimSuffix(t, suffix)
	}
	return strings.TrimSpace(t)
}

// Incidents normalises every entry, in feed order, an id listed twice taken once (first
// wins), and describes the listings: a feed lists Incidents and maintenances alike, and a
// feed that looks truncated covers only what started since its oldest entry. archived
// (may be nil) gives the archived version of an incident, for carryOverMessages.
func (f *Feed) Incidents(now time.Time, archived func(id string) *model.Incident) ([]model.Incident, []model.Listing) {
	out := make([]model.Incident, 0, len(f.Entries))
	seen := make(map[string]bool, len(f.Entries))
	var oldest time.Time
	for i := range f.Entries {
		inc, oneMessage, ok := f.Entries[i].normalise(now)
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
	if len(f.Entries) >= feedTruncatedAt {
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

// LastSegment is the last path segment of the entry's link, else of its id: the id a
// platform's other endpoints know the incident by, when its entries are
// https://<page>/…/<id> (incident.io's feed.atom, Instatus's history.atom).
func (e *Entry) LastSegment() string {
	if id := fetch.LastURLSegment(e.Link); id != "" {
		return id
	}
	return fetch.LastURLSegment(e.ID)
}

// Incident normalises an entry. The id is the entry's id (guid), else its link; an entry
// with neither cannot be told from another and is skipped (ok false). now stands in for
// the entry's own time when it has none, to read the year-less dates of its paragraphs.
func (e *Entry) Incident(now time.Time) (model.Incident, bool) {
	inc, _, ok := e.normalise(now)
	return inc, ok
}

// normalise is incident, also reporting whether the entry held one undated message.
func (e *Entry) normalise(now time.Time) (inc model.Incident, oneMessage, ok bool) {
	id := e.ID
	if id == "" {
		id = e.Link
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
		URL:            e.Link,
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
		key := fetch.UpdateKey(inc.ID, p.stamp, ordinals[p.stamp])
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
	if s, ok := fetch.KnownStatus(l); ok {
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
