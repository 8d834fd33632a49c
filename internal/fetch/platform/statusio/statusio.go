// The status.io adapter reads a status.io page through status.io's Public Status API,
// documented at https://kb.status.io/developers/public-status-api/ :
// https://api.status.io/1.0/status/<page id> answers the page's components, its open
// incidents and its active and upcoming maintenance, each with its messages. The API keeps
// no history, so the page's RSS history feed (<page>/pages/<page id>/rss, the feed status.io
// pages link to) adds the incidents that are over.

package statusio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Kind is the provider kind of status.io pages.
const Kind = "statusio"

// Endpoint names of the status.io adapter, besides fetch.EndpointFeed (<page>/pages/{id}/rss).
// Source.Endpoints may override "status" and "feed"; a "{id}" in an override stands for
// the page id.
const (
	EndpointPage   = "page"   // the status page itself, read once to find its id
	EndpointStatus = "status" // https://api.status.io/1.0/status/{id}
)

// statusIOAPI is the Public Status API of a page; it lives on status.io's host, not the
// page's.
const statusIOAPI = "https://api.status.io/1.0/status/{id}"

// statusIOPageIDState is the prefix of the state key that remembers a page id found on the
// page, so the page is read once, not every poll.
const statusIOPageIDState = "page-id/"

func init() {
	fetch.Register(fetch.Platform{
		Kind:         Kind,
		Poll:         poll,
		Endpoints:    []string{EndpointPage, EndpointStatus, fetch.EndpointFeed},
		Components:   EndpointStatus,
		HostSuffixes: []string{".status.io"},
		NotPages: []string{"www.status.io", "api.status.io", "app.status.io", "kb.status.io",
			"image.status.io", "cdn.status.io"},
		PageURL: func(u *url.URL) string { return u.String() }, // the adapter cuts a /pages/<id> tail itself
		Feed:    statusIOFeedDetection,
		Page:    statusIOPageDetection,
	})
}

// poll reads, when the page id is not known yet, the page once to find it; then the API
// and the feed, each conditionally. A poll parses both or neither: which feed items are
// over depends on what the API lists, so when only one of them changed, the other is read
// again without validators. The feed is best effort: when it cannot be read, the API alone
// is parsed (everything open is still seen) and the feed is retried next poll.
//
// status.io's API lists only what is open, so its
// snapshots are open-only (an incident absent twice is resolved); the history
// feed adds, as resolved or completed, what the API no longer lists.
//
// Mapping:
//   - incidents: a message's state 100 investigating, 200 identified, 300 monitoring; the
//     incident's status is its latest message's, StatusRaw that state code.
//   - impact: the worst status code over the incident and its messages, 300 degraded
//     performance → minor, 400 partial service disruption → major, 500 service disruption
//     → critical, 100 operational → none; 600 (security event) says nothing of the impact
//     and is unknown. ImpactRaw keeps the code. Taking the worst over all messages keeps a
//     monitoring message (often back to 100) from downgrading the incident.
//   - maintenance: active → in_progress, upcoming → scheduled, with the planned window.
//   - components: the names of components_affected (containers, i.e. locations, are not
//     components).
//   - component states: the API's status list, by status_code (sioComponentWords).
//   - updates: the messages, with their ids when the API gives them, else the key of an update without id.
//   - from the feed: an item is an update of the incident its link names
//     (/pages/incident/<page>/<id>); an incident the API does not list is over: resolved
//     (maintenance: completed), resolved_at its latest item. When the archive already has
//     it (it was open, from the API), that version is kept and only the items posted after
//     its last update are added, so its end reads as a resolution, not as a rewrite of its
//     timeline.
func poll(pl *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	id, derived, err := statusIOPageID(pl, ctx, false)
	if err != nil {
		return nil, err
	}
	snap, err := statusIOWith(pl, ctx, id)
	if err != nil && derived && errors.Is(err, errStatusIORefused) {
		// The API does not know the id the page gave: the page may have a new one. Read
		// the page again, once, and retry with the id it gives now.
		fresh, _, perr := statusIOPageID(pl, ctx, true)
		if perr != nil || fresh == id {
			return nil, err
		}
		delete(pl.Res.State, statusIOPageIDState+id)
		return statusIOWith(pl, ctx, fresh)
	}
	return snap, err
}

// errStatusIORefused is matched by the error of an API answer that refuses the page id.
var errStatusIORefused = errors.New("status.io refused the page id")

// statusIOWith reads the API and the feed of page id (see poll).
func statusIOWith(pl *fetch.Poll, ctx context.Context, id string) (*model.Snapshot, error) {
	src := pl.Req.Source
	// A source URL that is a page's own address (https://acme.status.io/pages/<id>) has
	// its feed and incident pages beside /pages/, not under it.
	if loc := sioPagePath.FindStringIndex(src.URL); loc != nil {
		src.URL = src.URL[:loc[0]]
	}
	base, err := fetch.BaseURL(src.URL)
	if err != nil {
		return nil, err
	}
	statusURL, err := fetch.EndpointURL(src, EndpointStatus, statusIOAPI, id)
	if err != nil {
		return nil, err
	}
	feedURL, err := fetch.EndpointURL(src, fetch.EndpointFeed, "pages/{id}/rss", id)
	if err != nil {
		return nil, err
	}

	sResp, err := pl.Read(ctx, EndpointStatus, statusURL)
	if err != nil {
		return nil, err
	}
	fResp, fErr := pl.Read(ctx, fetch.EndpointFeed, feedURL)
	if ctx.Err() != nil {
		return nil, ctx.Err() // a poll cut short is not one that saw nothing new
	}
	sChanged := !sResp.NotModified && !sResp.Unchanged
	fChanged := fErr == nil && !fResp.NotModified && !fResp.Unchanged
	if !sChanged && !fChanged {
		if fErr != nil {
			unread(pl, fetch.EndpointFeed)
		}
		return nil, nil
	}
	if !sChanged {
		if sResp, err = pl.Reread(ctx, EndpointStatus, statusURL); err != nil {
			return nil, err
		}
	}
	if fErr == nil && !fChanged {
		fResp, fErr = pl.Reread(ctx, fetch.EndpointFeed, feedURL)
	}

	res, err := decodeStatusIO(sResp.ContentType, sResp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", EndpointStatus, statusURL, err)
	}
	var feed *sioFeed
	if fErr == nil {
		feed, fErr = decodeStatusIOFeed(fResp.ContentType, fResp.Body)
	}
	if fErr != nil {
		unread(pl, fetch.EndpointFeed)
	}

	snap := pl.Snapshot()
	snap.OpenOnly = true
	snap.Listings = []model.Listing{{Kind: model.KindIncident}, {Kind: model.KindMaintenance}}
	if feed != nil {
		snap.PageTitle = feed.title
	}
	if sChanged {
		// The component states are the API's: read again only for the feed, its
		// unchanged answer says nothing new of them.
		snap.Components = res.components
	}
	snap.Incidents = normaliseStatusIO(res, feed, id, base, pl.Req.Archived)
	return snap, nil
}

// unread undoes the read of an endpoint whose answer could not be used: its state goes
// back to what it was, so the next poll reads it again, and its body is not evidence.
func unread(pl *fetch.Poll, name string) {
	if prev, ok := pl.Req.State[name]; ok {
		pl.Res.State[name] = prev
	} else {
		delete(pl.Res.State, name)
	}
	pl.Res.Bodies = slices.DeleteFunc(pl.Res.Bodies, func(b model.Body) bool { return b.Endpoint == name })
}

var (
	// sioPageID is a status.io page id (a MongoDB ObjectId).
	sioPageID = regexp.MustCompile(`^[0-9a-fA-F]{24}$`)
	// sioPageIDInPage finds the page id in a status.io page, a source URL or a feed URL:
	// status.io pages link their feeds and incidents as /pages/<id>/rss and
	// /pages/incident/<id>/<incident id>, and some embed the API URL.
	sioPageIDInPage = regexp.MustCompile(`(?:/pages/(?:incident/|maintenance/|history/)?|api\.status\.io/1\.0/status/|statuspage_?id["']?\s*[:=]\s*["']?)([0-9a-fA-F]{24})\b`)
	// sioPagePath is the /pages/<id>… tail of a source URL that is a page's address.
	sioPagePath = regexp.MustCompile(`/pages/(?:[a-z]+/)?[0-9a-fA-F]{24}(?:[/?#].*)?$`)
	// sioHexID finds 24-hex ids in feed links and guids.
	sioHexID = regexp.MustCompile(`\b[0-9a-fA-F]{24}\b`)
)

// statusIOPageID finds the page id: in the endpoint overrides or the source URL, else
// remembered from an earlier poll, else on the page, read once (fromPage: read it now
// whatever is remembered). derived reports that it came from the page, now or earlier. An
// empty id with a nil error means no endpoint needs one.
func statusIOPageID(pl *fetch.Poll, ctx context.Context, fromPage bool) (id string, derived bool, err error) {
	src := pl.Req.Source
	if fromPage {
		return readStatusIOPageID(pl, ctx)
	}
	needs := func(name string) bool {
		u := src.Endpoints[name]
		return u == "" || strings.Contains(u, "{id}")
	}
	if st := src.Endpoints[EndpointStatus]; st != "" && !strings.Contains(st, "{id}") {
		if u, err := url.Parse(st); err == nil {
			if last := u.Path[strings.LastIndexByte(u.Path, '/')+1:]; sioPageID.MatchString(last) {
				return last, false, nil
			}
		}
	}
	for _, s := range []string{src.Endpoints[fetch.EndpointFeed], src.URL} {
		if m := sioPageIDInPage.FindStringSubmatch(s); m != nil {
			return m[1], false, nil
		}
	}
	if !needs(EndpointStatus) && !needs(fetch.EndpointFeed) {
		return "", false, nil
	}
	for k := range pl.Req.State {
		if id, ok := strings.CutPrefix(k, statusIOPageIDState); ok && sioPageID.MatchString(id) {
			return id, true, nil
		}
	}
	return readStatusIOPageID(pl, ctx)
}

// readStatusIOPageID reads the page and the id on it, and remembers the id in the state.
func readStatusIOPageID(pl *fetch.Poll, ctx context.Context) (string, bool, error) {
	u, err := fetch.EndpointURL(pl.Req.Source, EndpointPage, "", "")
	if err != nil {
		return "", false, err
	}
	resp, err := pl.Reread(ctx, EndpointPage, u)
	if err != nil {
		return "", false, err
	}
	delete(pl.Res.State, EndpointPage)
	m := sioPageIDInPage.FindSubmatch(resp.Body)
	if m == nil {
		return "", false, fmt.Errorf("%s %s: %w: no status.io page id on the page; set endpoints.status to %s with the page's id",
			EndpointPage, u, payload.ErrMalformed, statusIOAPI)
	}
	id := string(m[1])
	pl.Res.State[statusIOPageIDState+id] = model.EndpointState{Hash: resp.State.Hash}
	return id, true, nil
}

// ---- Normalisation ----

// normaliseStatusIO maps the API's open incidents and maintenance, then the feed's items
// of everything else. archived may be nil.
func normaliseStatusIO(api *sioAPI, feed *sioFeed, pageID string, base *url.URL, archived func(string) *model.Incident) []model.Incident {
	out := []model.Incident{}
	open := map[string]bool{}
	add := func(list []sioEvent, kind model.Kind, status model.Status, raw string) {
		for i := range list {
			inc := list[i].normalise(kind, status, raw, pageID, base)
			if open[inc.ID] {
				continue
			}
			open[inc.ID] = true
			out = append(out, inc)
		}
	}
	add(api.incidents, model.KindIncident, "", "")
	add(api.active, model.KindMaintenance, model.StatusInProgress, "active")
	add(api.upcoming, model.KindMaintenance, model.StatusScheduled, "upcoming")
	if feed == nil {
		return out
	}

	// Group the items by incident, in feed order. An item names its incident by the id in
	// its link; failing that, by any id it holds that the API lists, so an item of an open
	// incident is never taken for another, closed one.
	var order []string
	groups := map[string][]sioItem{}
	for _, it := range feed.items {
		id := ""
		for _, x := range it.ids {
			if open[x] {
				id = x
			}
		}
		if id == "" {
			for _, x := range slices.Backward(it.ids) {
				if !strings.EqualFold(x, pageID) {
					id = x
					break
				}
			}
		}
		if id == "" {
			id = it.key
		}
		if groups[id] == nil {
			order = append(order, id)
		}
		groups[id] = append(groups[id], it)
	}
	for _, id := range order {
		if open[id] {
			continue // the API is the authority on what is open
		}
		var prev *model.Incident
		if archived != nil {
			prev = archived(id)
		}
		if prev != nil && prev.Open() && !newerItem(groups[id], prev) {
			// The API stopped listing an incident the archive holds open, and the feed says
			// nothing new about it: one glitchy answer is no resolution. Leaving it out lets
			// the archive's two-misses-in-a-row rule for open-only pages decide.
			continue
		}
		out = append(out, closedFromFeed(id, groups[id], prev))
	}
	return out
}

// newerItem reports whether the feed has an item about an incident posted after the
// latest update the archive holds of it.
func newerItem(items []sioItem, prev *model.Incident) bool {
	var latest time.Time
	for _, u := range prev.Updates {
		if u.PostedAt.After(latest) {
			latest = u.PostedAt
		}
	}
	for _, it := range items {
		if it.posted.After(latest) {
			return true
		}
	}
	return false
}

// normalise maps one event the API lists as open.
func (ev *sioEvent) normalise(kind model.Kind, status model.Status, raw, pageID string, base *url.URL) model.Incident {
	id := ev.id()
	inc := model.Incident{
		ID:         id,
		Kind:       kind,
		Status:     status,
		StatusRaw:  raw,
		Title:      strings.TrimSpace(ev.Name),
		StartedAt:  payload.ParseTime(ev.DatetimeOpen),
		Components: sioComponents(ev.Components),
	}
	if pageID != "" {
		inc.URL = base.JoinPath("pages", string(kind), pageID, id).String()
	}
	ups := make([]model.Update, len(ev.Messages))
	stamps := make([]string, len(ev.Messages))
	for i, m := range ev.Messages {
		body, format, html := fetch.VendorBody(m.Details, model.FormatText)
		ups[i] = model.Update{ID: string(m.ID), Body: body, Format: format, HTML: html, PostedAt: payload.ParseTime(m.Datetime)}
		if kind == model.KindIncident {
			ups[i].Status = sioState(m.State)
		}
		stamps[i] = fetch.StableStamp(m.Datetime)
	}
	inc.Updates = fetch.KeyUpdates(id, ups, stamps)

	if kind == model.KindMaintenance {
		inc.Impact = model.ImpactMaintenance
		inc.ScheduledFor, inc.ScheduledUntil = payload.ParseTime(ev.PlannedStart), payload.ParseTime(ev.PlannedEnd)
		if !inc.ScheduledFor.IsZero() {
			inc.StartedAt = inc.ScheduledFor
		}
		return inc
	}
	inc.Status = model.StatusInvestigating
	if n := len(ev.Messages); n > 0 {
		// The latest message by time: the API lists them in no documented order.
		latest := ev.Messages[0]
		for _, m := range ev.Messages[1:] {
			if !payload.ParseTime(m.Datetime).Before(payload.ParseTime(latest.Datetime)) {
				latest = m
			}
		}
		if s := sioState(latest.State); s != "" {
			inc.Status = s
		}
		inc.StatusRaw = string(latest.State)
	}
	inc.Impact, inc.ImpactRaw = model.ImpactUnknown, ""
	consider := func(code payload.FlexID) {
		if i := sioImpact(code); i.Worse(inc.Impact) {
			inc.Impact, inc.ImpactRaw = i, string(code)
		}
	}
	consider(ev.StatusCode)
	for _, m := range ev.Messages {
		consider(m.Status)
	}
	return inc
}

// closedFromFeed builds an incident the API no longer lists from its feed items, or from
// its archived version plus the items posted since (see poll).
func closedFromFeed(id string, items []sioItem, prev *model.Incident) model.Incident {
	slices.SortStableFunc(items, func(a, b sioItem) int { return a.posted.Compare(b.posted) })
	last := items[len(items)-1]
	toUpdates := func(its []sioItem) []model.Update {
		ups := make([]model.Update, len(its))
		stamps := make([]string, len(its))
		for i, it := range its {
			body, format, html := fetch.VendorBody(it.body, model.FormatText)
			ups[i] = model.Update{Body: body, Format: format, HTML: html, PostedAt: it.posted}
			stamps[i] = it.stamp
		}
		return fetch.KeyUpdates(id, ups, stamps)
	}
	var inc model.Incident
	if prev != nil {
		inc = *prev
		inc.Components = slices.Clone(prev.Components)
		inc.Updates = slices.Clone(prev.Updates)
		if prev.Postmortem != nil {
			pm := *prev.Postmortem
			inc.Postmortem = &pm
		}
		var after time.Time
		for _, u := range inc.Updates {
			if u.PostedAt.After(after) {
				after = u.PostedAt
			}
		}
		var newer []sioItem
		for _, it := range items {
			if it.posted.After(after) {
				newer = append(newer, it)
			}
		}
		inc.Updates = append(inc.Updates, toUpdates(newer)...)
	} else {
		inc = model.Incident{
			ID:         id,
			Kind:       last.kind,
			Title:      last.title,
			StartedAt:  items[0].posted,
			Components: []string{},
			Updates:    toUpdates(items),
			URL:        last.link,
		}
		inc.Impact = model.ImpactUnknown
		if inc.Kind == model.KindMaintenance {
			inc.Impact = model.ImpactMaintenance
		}
	}
	inc.Status, inc.StatusRaw = model.StatusResolved, ""
	if inc.Kind == model.KindMaintenance {
		inc.Status = model.StatusCompleted
	}
	if inc.ResolvedAt.IsZero() {
		inc.ResolvedAt = last.posted
		if n := len(inc.Updates); inc.ResolvedAt.IsZero() && n > 0 {
			inc.ResolvedAt = inc.Updates[n-1].PostedAt
		}
	}
	if inc.Updates == nil {
		inc.Updates = []model.Update{}
	}
	return inc
}

// sioState maps a status.io message state.
func sioState(code payload.FlexID) model.Status {
	switch string(code) {
	case "100":
		return model.StatusInvestigating
	case "200":
		return model.StatusIdentified
	case "300":
		return model.StatusMonitoring
	}
	return ""
}

// sioImpact maps a status.io status code (see poll).
func sioImpact(code payload.FlexID) model.Impact {
	switch string(code) {
	case "100":
		return model.ImpactNone
	case "300":
		return model.ImpactMinor
	case "400":
		return model.ImpactMajor
	case "500":
		return model.ImpactCritical
	}
	return model.ImpactUnknown
}

func sioComponents(list []sioNamed) []string {
	names := make([]string, 0, len(list))
	for _, c := range list {
		names = append(names, c.Name)
	}
	return fetch.SortedNames(names)
}

// statusIOFeedDetection recognises a status.io page's /pages/<id>/rss whose items link
// that page's incidents (or that has no item yet).
func statusIOFeedDetection(u *url.URL, f *gofeed.Feed) *fetch.Detection {
	base := *u
	base.RawQuery, base.RawPath = "", ""
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
			return &fetch.Detection{Kind: Kind, URL: u.String(),
				Evidence: "URL is the status.io history feed /pages/" + id + "/rss"}
		}
	}
	return nil
}

// statusIOPageDetection recognises a page that names its status.io page id.
func statusIOPageDetection(u *url.URL, body []byte) *fetch.Detection {
	if id, ok := statusIOPageOn(body); ok {
		return &fetch.Detection{Kind: Kind, URL: u.String(), Evidence: "page names status.io page id " + id}
	}
	return nil
}

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
