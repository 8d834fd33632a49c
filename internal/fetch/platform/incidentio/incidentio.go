// The incident.io adapter reads incident.io status pages
// (https://incident.io/status-pages, e.g. https://status.openai.com), which serve a
// Statuspage-compatible copy of the public API v2 (https://doers.statuspage.io/api/v2/):
// /api/v2/incidents.json, /api/v2/scheduled-maintenances.json and /api/v2/summary.json,
// decoded and normalised by statuspagev2 (shared with Statuspage) with incident.io's
// differences (incidentIOOptions): ULID ids, the 25 newest items, lists left out of the
// document when empty, no ETag (the body hash does the work), markdown bodies.
//
// What the compatible JSON lacks is components: incidents carry neither "components" nor
// updates' "affected_components" (see testdata/incident.io, real summary.json captures).
// Their updates it does carry, with ids, so it is the timeline. Components come from the
// page's Atom feed, /feed.atom (offered in the page's Subscribe menu), whose entries list
// "Affected components"; the feed's own message stands in as the timeline only for an
// incident whose JSON has no updates. When a page has no feed, its /proxy/<host> — the
// JSON the status page's own front end reads (https://status.openai.com/proxy/
// status.openai.com; shape in testdata/incident.io/synthetic-incidentio-proxy.json) —
// gives the components of its ongoing incidents instead.

package incidentio

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/historyfeed"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/fetch/statuspagev2"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Kind is the provider kind of incident.io status pages.
const Kind = "incidentio"

// EndpointProxy names incident.io's /proxy/<host> endpoint. incident.io's other endpoints
// are named as Statuspage's (fetch.EndpointIncidents, statuspagev2.EndpointMaintenances,
// fetch.EndpointSummary) and fetch.EndpointFeed (/feed.atom).
const EndpointProxy = "proxy"

// incidentIOOptions are incident.io's differences from Statuspage's JSON.
var incidentIOOptions = statuspagev2.Options{ListSize: 25, LenientLists: true, Format: model.FormatMarkdown}

func init() {
	fetch.Register(fetch.Platform{
		Kind:       Kind,
		Poll:       poll,
		Endpoints:  []string{fetch.EndpointIncidents, statuspagev2.EndpointMaintenances, fetch.EndpointSummary, fetch.EndpointFeed, EndpointProxy},
		Components: fetch.EndpointSummary,
		// incident.io's own page, and the pages hosted under its domain without a custom
		// one: https://statuspage.incident.io/<slug>.
		Hosts: []string{"status.incident.io", "statuspage.incident.io"},
		// Its Statuspage-compatible summary is judged after Statuspage's check, on the
		// same request.
		Probes: []fetch.Probe{{Order: 11, Rel: "api/v2/summary.json", Check: checkV2Summary}},
	})
}

// checkV2Summary recognises incident.io's Statuspage-compatible /api/v2/summary.json:
// ULIDs everywhere, components without Atlassian's fields, incidents without shortlink.
func checkV2Summary(contentType string, body []byte) (string, string, string) {
	m, _, id, cs, why := statuspagev2.SummaryShape(contentType, body)
	if m == nil {
		return "", "", why
	}
	if !fetch.ULID.MatchString(id) {
		return "", "", ""
	}
	for _, c := range cs {
		cid, _ := fetch.StrAt(c, "id")
		if !fetch.ULID.MatchString(cid) || fetch.HasAny(c, statuspagev2.StatuspageOnlyComponentKeys...) {
			return "", "", fmt.Sprintf("ULID page.id %s but components[] unlike incident.io's", fetch.QuoteShort(id))
		}
	}
	incs, _ := fetch.ArrAt(m, "incidents")
	is, ok := fetch.Objects(incs)
	if !ok {
		return "", "", "incidents[] holds a non-object"
	}
	for _, in := range is {
		iid, _ := fetch.StrAt(in, "id")
		if !fetch.ULID.MatchString(iid) || fetch.HasAny(in, "shortlink") {
			return "", "", fmt.Sprintf("ULID page.id %s but incidents[] unlike incident.io's", fetch.QuoteShort(id))
		}
	}
	return Kind, fmt.Sprintf("has ULID page.id %q and ULID ids, no shortlink or Statuspage component fields (incident.io's Statuspage-compatible shape)", id), ""
}

// poll reads, in this order: incidents.json; when Source.Maintenance,
// scheduled-maintenances.json; feed.atom, or when the page has none (a 4xx), its
// /proxy/<host>, or nothing; and summary.json (the page's name and the component
// states, on every poll). All conditionally. The incident lists and the feed (or proxy) build the incidents together:
// when one of them changed, those that did not are read again in full, so no incident is
// built half from a body that was not parsed.
//
// incident.io is a history provider.
func poll(pl *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	src := pl.Req.Source
	base, err := fetch.BaseURL(src.URL)
	if err != nil {
		return nil, err
	}
	now := pl.Req.Now
	maintFailed := false
	lists := []*fetch.GroupRead{{Name: fetch.EndpointIncidents}}
	if src.Maintenance && !fetch.SkipAbsent(pl.Req.State[statuspagev2.EndpointMaintenances], now) {
		lists = append(lists, &fetch.GroupRead{Name: statuspagev2.EndpointMaintenances})
	}
	for i, g := range lists {
		rel := "api/v2/incidents.json"
		if g.Name == statuspagev2.EndpointMaintenances {
			rel = "api/v2/scheduled-maintenances.json"
		}
		if g.URL, err = fetch.EndpointURL(src, g.Name, rel, ""); err != nil {
			return nil, err
		}
		g.Resp, err = pl.Read(ctx, g.Name, g.URL)
		if i > 0 && err != nil && ctx.Err() == nil {
			// The incident list alone decides whether the page can be read. No maintenance
			// list on this page (404, 410): no listing, and asked again in AbsentRetry. One
			// that fails otherwise: left out of this poll, its state kept for the next.
			if fetch.Gone(err) {
				pl.Absent(g.Name, "maintenance list", err)
			} else {
				pl.GoesOnWithout(g.Name, "maintenance list", err)
				maintFailed = true
			}
			lists = lists[:i]
			break
		}
		if err != nil {
			return nil, err
		}
	}
	enrich, err := readEnrichment(ctx, pl, base)
	if err != nil {
		return nil, err
	}
	group := lists
	if enrich != nil {
		group = append(slices.Clone(lists), enrich)
	}
	if err := pl.RereadGroup(ctx, group); err != nil {
		return nil, err
	}

	now = now.UTC()
	snap := &model.Snapshot{Source: src.Name, FetchedAt: now, Incidents: []model.Incident{}}
	changed := fetch.ToParse(lists[0].Resp)
	if changed {
		var incidents []model.Incident
		for _, g := range lists {
			key := "incidents"
			kind := model.KindIncident
			if g.Name == statuspagev2.EndpointMaintenances {
				key, kind = "scheduled_maintenances", model.KindMaintenance
			}
			doc, err := incidentIOOptions.DecodeList(g.Resp.ContentType, g.Resp.Body, key)
			if err != nil {
				err = fmt.Errorf("%s %s: %w", g.Name, fetch.RedactURL(g.URL), err)
				if kind == model.KindIncident {
					return nil, err
				}
				pl.GoesOnWithout(g.Name, "maintenance list", err)
				maintFailed = true
				continue
			}
			list, listing := incidentIOOptions.NormaliseList(doc.List, kind, base)
			if kind == model.KindIncident {
				incidents = list
			} else {
				incidents = statuspagev2.MergeMaintenances(incidents, list)
			}
			snap.Listings = append(snap.Listings, listing)
			if snap.PageTitle == "" {
				snap.PageTitle = doc.Page
			}
		}
		if maintFailed {
			// Its maintenances are left out with the list: recorded from the incident
			// list, they would change back once the maintenance list answers again.
			incidents = statuspagev2.WithoutMaintenance(incidents)
		}
		var enr map[string]iioEnrichment
		if enrich != nil {
			if enr, err = parseEnrichment(enrich, now); err != nil {
				return nil, err
			}
		}
		applyEnrichment(incidents, enr, pl.Req.Archived)
		if incidents != nil {
			snap.Incidents = incidents
		}
	}

	// The summary last, once the incident list is known to be readable: a poll that
	// fails on it does not ask for the summary.
	sum, err := statuspagev2.ReadSummary(ctx, pl)
	if err != nil {
		return nil, err
	}
	if !changed && sum == nil {
		return nil, nil // nothing changed: the group was not read again, so nothing to parse
	}
	if sum != nil {
		if sum.Page != "" {
			snap.PageTitle = sum.Page // the summary's name wins over the lists'
		}
		snap.Components = sum.Components
	}
	return snap, nil
}

// readEnrichment reads the feed, or when the page has none the proxy, conditionally. It
// returns nil when the page has neither. "Has none" is a permanent answer (a 4xx other
// than 408 and 429); a 404 or 410 is remembered, and that endpoint is asked again only
// after AbsentRetry. Anything that may pass fails the poll, since without the feed the
// incidents would lose their components.
func readEnrichment(ctx context.Context, pl *fetch.Poll, base *url.URL) (*fetch.GroupRead, error) {
	src := pl.Req.Source
	now := pl.Req.Now
	read := func(name, u string) (*fetch.GroupRead, error) {
		if fetch.SkipAbsent(pl.Req.State[name], now) {
			return nil, nil
		}
		resp, err := pl.Read(ctx, name, u)
		switch {
		case err == nil:
			return &fetch.GroupRead{Name: name, URL: u, Resp: resp}, nil
		case fetch.Gone(err):
			pl.Absent(name, name, err)
			return nil, nil
		case fetch.Permanent(err):
			pl.Forget(name)
			return nil, nil
		}
		return nil, err
	}
	u, err := fetch.EndpointURL(src, fetch.EndpointFeed, "feed.atom", "")
	if err != nil {
		return nil, err
	}
	g, err := read(fetch.EndpointFeed, u)
	if err != nil || g != nil {
		if g != nil {
			pl.Forget(EndpointProxy)
		}
		return g, err
	}
	return read(EndpointProxy, incidentIOProxyURL(src, base))
}

// incidentIOProxyURL is the page's /proxy/<host>: a page on its own domain is its own
// host (https://status.openai.com/proxy/status.openai.com); a page under a path of
// incident.io's domain is its slug (https://statuspage.incident.io/proxy/<slug>).
func incidentIOProxyURL(src model.Source, base *url.URL) string {
	if u := src.Endpoints[EndpointProxy]; u != "" {
		return u
	}
	root := *base
	root.Path, root.RawPath = "/", ""
	key := base.Hostname()
	if p := strings.Trim(base.Path, "/"); p != "" {
		key = p[strings.LastIndexByte(p, '/')+1:]
	}
	return root.JoinPath("proxy", key).String()
}

// iioEnrichment is what the feed or the proxy says of one incident.
type iioEnrichment struct {
	components []string
	updates    []model.Update // its timeline, for an incident whose JSON has none
}

// parseEnrichment parses the feed or the proxy into what it says per incident id.
func parseEnrichment(g *fetch.GroupRead, now time.Time) (map[string]iioEnrichment, error) {
	if g.Name == EndpointProxy {
		out, err := decodeIncidentIOProxy(g.Resp.ContentType, g.Resp.Body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", g.Name, fetch.RedactURL(g.URL), err)
		}
		return out, nil
	}
	f, err := historyfeed.Parse(g.Resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", g.Name, fetch.RedactURL(g.URL), err)
	}
	out := make(map[string]iioEnrichment, len(f.Entries))
	for _, e := range f.Entries {
		// Entries are https://<page>/incidents/<ULID>: the last segment is the JSON's id.
		id := e.LastSegment()
		if _, dup := out[id]; dup || id == "" {
			continue
		}
		e.ID = id // keys the feed's update as the incident's
		inc, ok := e.Incident(now)
		if !ok {
			continue
		}
		out[id] = iioEnrichment{components: inc.Components, updates: inc.Updates}
	}
	return out, nil
}

// applyEnrichment adds what the feed or proxy says to the incidents of the JSON: its components,
// and its timeline where the JSON has none. An incident it does not cover (older than the
// feed's window, or not ongoing for the proxy) keeps what its archived version had, so
// that falling out of the feed is no change.
func applyEnrichment(incidents []model.Incident, enr map[string]iioEnrichment, archived func(id string) *model.Incident) {
	for i := range incidents {
		inc := &incidents[i]
		e, ok := enr[inc.ID]
		if !ok {
			if archived == nil {
				continue
			}
			a := archived(inc.ID)
			if a == nil {
				continue
			}
			e = iioEnrichment{components: a.Components, updates: a.Updates}
		}
		inc.Components = feedUnion(inc.Components, e.components)
		if len(inc.Updates) == 0 && len(e.updates) > 0 {
			inc.Updates = slices.Clone(e.updates)
		}
	}
}

// feedUnion is the sorted set of the names in a and b.
func feedUnion(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// ---- The proxy ----

// The iioProxy* types are the part of /proxy/<host> we read: the component names (the
// page's structure) and, per ongoing incident and maintenance, its affected components
// and its updates. It is the front end's own API, undocumented: we read it leniently and
// need only the summary object.
type iioProxyDoc struct {
	Summary *iioProxySummary `json:"summary"`
}

type iioProxySummary struct {
	Name       string              `json:"name"`
	Components []iioProxyComponent `json:"components"`
	Structure  struct {
		Items []struct {
			Group *struct {
				Name       string              `json:"name"`
				Components []iioProxyComponent `json:"components"`
			} `json:"group"`
			Component *iioProxyComponent `json:"component"`
		} `json:"items"`
	} `json:"structure"`
	OngoingIncidents       []iioProxyIncident `json:"ongoing_incidents"`
	ScheduledMaintenances  []iioProxyIncident `json:"scheduled_maintenances"`
	InProgressMaintenances []iioProxyIncident `json:"in_progress_maintenances"`
}

type iioProxyComponent struct {
	ID          string `json:"id"`
	ComponentID string `json:"component_id"`
	Name        string `json:"name"`
}

type iioProxyIncident struct {
	ID                 string              `json:"id"`
	ComponentImpacts   []iioProxyComponent `json:"component_impacts"`
	AffectedComponents []iioProxyComponent `json:"affected_components"`
	Updates            []struct {
		ID            string   `json:"id"`
		PublishedAt   string   `json:"published_at"`
		ToStatus      string   `json:"to_status"`
		MessageString string   `json:"message_string"`
		Message       *iioNode `json:"message"`
	} `json:"updates"`
}

// iioNode is a node of incident.io's rich text (a ProseMirror document under
// message.text_node): text at the leaves, paragraphs as content.
type iioNode struct {
	Type     string    `json:"type"`
	Text     string    `json:"text"`
	TextNode *iioNode  `json:"text_node"`
	Content  []iioNode `json:"content"`
}

// text flattens rich text: paragraphs and list items become lines.
func (n *iioNode) text() string {
	if n == nil {
		return ""
	}
	if n.TextNode != nil {
		return n.TextNode.text()
	}
	var b strings.Builder
	b.WriteString(n.Text)
	for i := range n.Content {
		c := &n.Content[i]
		t := c.text()
		if b.Len() > 0 && t != "" && (c.Type == "paragraph" || c.Type == "listItem" || c.Type == "heading") {
			b.WriteString("\n\n")
		}
		b.WriteString(t)
	}
	return b.String()
}

// decodeIncidentIOProxy decodes /proxy/<host> into what it says per ongoing incident or
// maintenance. A document without its summary object is malformed.
func decodeIncidentIOProxy(contentType string, body []byte) (map[string]iioEnrichment, error) {
	doc, err := payload.Object(contentType, body, `"summary" object`, func(d *iioProxyDoc) bool { return d.Summary != nil })
	if err != nil {
		return nil, err
	}
	s := doc.Summary
	names := map[string]string{}
	add := func(c iioProxyComponent) {
		id := c.ComponentID
		if id == "" {
			id = c.ID
		}
		if n := strings.TrimSpace(c.Name); id != "" && n != "" {
			names[id] = n
		}
	}
	for _, c := range s.Components {
		add(c)
	}
	for _, it := range s.Structure.Items {
		if it.Group != nil {
			for _, c := range it.Group.Components {
				add(c)
			}
		}
		if it.Component != nil {
			add(*it.Component)
		}
	}
	out := map[string]iioEnrichment{}
	for _, list := range [][]iioProxyIncident{s.OngoingIncidents, s.InProgressMaintenances, s.ScheduledMaintenances} {
		for _, in := range list {
			if in.ID == "" {
				continue
			}
			if _, dup := out[in.ID]; dup {
				continue
			}
			var comps []string
			for _, c := range slices.Concat(in.ComponentImpacts, in.AffectedComponents) {
				id := c.ComponentID
				if id == "" {
					id = c.ID
				}
				if n := names[id]; n != "" {
					comps = append(comps, n)
				} else if n := strings.TrimSpace(c.Name); n != "" {
					comps = append(comps, n)
				}
			}
			slices.Sort(comps)
			e := iioEnrichment{components: slices.Compact(comps)}
			seen := map[string]int{}
			for _, u := range in.Updates {
				body := fetch.CleanBody(u.MessageString)
				if body == "" {
					body = fetch.CleanBody(u.Message.text())
				}
				id := u.ID
				if id == "" {
					id = fetch.UpdateKey(in.ID, u.PublishedAt, seen[u.PublishedAt])
					seen[u.PublishedAt]++
				}
				e.updates = append(e.updates, model.Update{
					ID:       id,
					Status:   statuspagev2.UpdateStatus(u.ToStatus),
					Body:     body,
					Format:   model.FormatText,
					PostedAt: payload.ParseTime(u.PublishedAt),
				})
			}
			slices.SortStableFunc(e.updates, func(a, b model.Update) int { return a.PostedAt.Compare(b.PostedAt) })
			out[in.ID] = e
		}
	}
	return out, nil
}
