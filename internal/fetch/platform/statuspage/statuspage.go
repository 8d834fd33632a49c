// The Atlassian Statuspage adapter reads the public page API v2, documented at
// https://doers.statuspage.io/api/v2/ (e.g. https://www.githubstatus.com/api/v2/): the
// 50 newest incidents, the scheduled maintenances, the summary, and per incident the
// JSON and the HTML page when a postmortem has to be looked up. The documents are read by
// statuspagev2, which incident.io's compatible copy shares.
package statuspage

import (
	"context"
	"fmt"
	"strings"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/statuspagev2"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Kind is the provider kind of Atlassian Statuspage pages.
const Kind = "statuspage"

// Endpoint names besides fetch.EndpointIncidents (/api/v2/incidents.json),
// statuspagev2.EndpointMaintenances (/api/v2/scheduled-maintenances.json) and
// fetch.EndpointSummary (/api/v2/summary.json). The per-incident ones are URL templates in
// which "{id}" stands for the incident id; their state is kept under "incident/<id>" and
// records that the postmortem lookup for that incident was done.
const (
	EndpointIncident     = "incident"      // /api/v2/incidents/{id}.json
	EndpointIncidentPage = "incident-page" // /incidents/{id} (HTML)
)

// listSize is how many items Statuspage lists at most; a full list covers only part of
// the history (model.Listing.Since).
const listSize = 50

// options are Atlassian Statuspage's: 50 items, every list always present, plain-text
// bodies.
var options = statuspagev2.Options{ListSize: listSize, Format: model.FormatText}

func init() {
	fetch.Register(fetch.Platform{
		Kind:       Kind,
		Poll:       poll,
		Endpoints:  []string{fetch.EndpointIncidents, statuspagev2.EndpointMaintenances, fetch.EndpointSummary, EndpointIncident, EndpointIncidentPage},
		Components: fetch.EndpointSummary,
		// Atlassian's own pages run on Statuspage (metastatuspage.com is Statuspage's).
		Hosts:        []string{"status.atlassian.com", "metastatuspage.com"},
		HostSuffixes: []string{".statuspage.io", ".status.atlassian.com"},
		NotPages:     []string{"www.statuspage.io", "api.statuspage.io", "manage.statuspage.io"},
		EndpointPaths: []string{"/api/v2/summary.json", "/api/v2/status.json", "/api/v2/incidents.json",
			"/api/v2/incidents/unresolved.json", "/api/v2/scheduled-maintenances.json",
			"/api/v2/components.json", "/history.atom", "/history.rss", "/feed.atom"},
		// Statuspage answers every request with these (seen on githubstatus.com's
		// responses; both are also its signatures in the intrigue-ident fingerprint set).
		Headers: []string{"X-Statuspage-Version", "X-Statuspage-Skip-Logging"},
		// The most common platform's probe comes first. incident.io and Instatus answer
		// /api/v2/summary.json too; one check tells the three apart.
		Probes: []fetch.Probe{{Order: 10, Rel: "api/v2/summary.json", Check: checkV2Summary}},
	})
}

// poll reads, in this order and nothing more: incidents.json (conditionally); when
// Source.Maintenance, scheduled-maintenances.json (conditionally); summary.json
// (conditionally, on every poll: the page name and the component states); and, once per
// incident, the postmortem of an incident in status postmortem whose JSON lacks
// postmortem_body (its JSON, then its HTML page).
func poll(pl *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	req := pl.Req
	base, err := fetch.BaseURL(req.Source.URL)
	if err != nil {
		return nil, err
	}
	snap := pl.Snapshot()
	parsed := false

	var incidents []model.Incident
	doc, err := readList(ctx, pl, fetch.EndpointIncidents, "api/v2/incidents.json")
	if err != nil {
		return nil, err
	}
	incidentsParsed := doc != nil
	if doc != nil {
		list, listing := options.NormaliseList(doc.List, model.KindIncident, base)
		incidents = list
		snap.Listings = append(snap.Listings, listing)
		snap.PageTitle = doc.Page
		parsed = true
	}

	now := req.Now
	if req.Source.Maintenance && !fetch.SkipAbsent(req.State[statuspagev2.EndpointMaintenances], now) {
		doc, err := readList(ctx, pl, statuspagev2.EndpointMaintenances, "api/v2/scheduled-maintenances.json")
		switch {
		case fetch.Gone(err):
			// The page has no maintenance list: no listing, so no archived maintenance is
			// taken as missed, and the list is asked again in AbsentRetry.
			pl.Absent(statuspagev2.EndpointMaintenances, "maintenance list", err)
		case ctx.Err() != nil:
			return nil, err
		case err != nil:
			// The incident list alone decides whether the page can be read: a maintenance
			// list that fails is left out of this poll (no listing, its remembered state
			// kept so the next poll reads it again), and so are the maintenances of the
			// incident list, which would otherwise be recorded from the wrong list.
			pl.GoesOnWithout(statuspagev2.EndpointMaintenances, "maintenance list", err)
			incidents = statuspagev2.WithoutMaintenance(incidents)
		}
		if doc != nil {
			list, listing := options.NormaliseList(doc.List, model.KindMaintenance, base)
			incidents = statuspagev2.MergeMaintenances(incidents, list)
			snap.Listings = append(snap.Listings, listing)
			if snap.PageTitle == "" {
				snap.PageTitle = doc.Page
			}
			parsed = true
		}
	}

	sum, err := statuspagev2.ReadSummary(ctx, pl)
	if err != nil {
		return nil, err
	}
	if sum != nil {
		snap.PageTitle = sum.Page
		snap.Components = sum.Components
		parsed = true
	}

	if incidentsParsed {
		if err := postmortems(ctx, pl, incidents); err != nil {
			return nil, err
		}
	}

	if !parsed {
		return nil, nil
	}
	if incidents != nil {
		snap.Incidents = incidents
	}
	return snap, nil
}

// readList fetches a list endpoint conditionally and decodes it. It returns nil, nil
// when the endpoint answered 304 or a byte-identical body: nothing to parse.
func readList(ctx context.Context, pl *fetch.Poll, name, rel string) (*statuspagev2.List, error) {
	key := "incidents"
	if name == statuspagev2.EndpointMaintenances {
		key = "scheduled_maintenances"
	}
	doc, _, err := fetch.ReadEndpoint(ctx, pl, name, rel, func(contentType string, body []byte) (*statuspagev2.List, error) {
		return options.DecodeList(contentType, body, key)
	})
	return doc, err
}

// lookupKey is the state key that records the postmortem lookup of incident id as done,
// "incident/<id>": the key every version of the adapter has written, so the state of an
// existing archive still means "already looked up".
func lookupKey(id string) string { return EndpointIncident + "/" + id }

// postmortems fills in the postmortem of every incident in status postmortem whose JSON
// lacks one, fetching it only once per incident: an archived postmortem is carried over,
// and a lookup that found nothing is remembered in the state under lookupKey.
//
// A lookup that fails for a reason that may pass (network, 5xx, 429) does not fail the
// poll: the incidents endpoint keeps its previous state instead, so the next poll parses
// the list again and retries.
func postmortems(ctx context.Context, pl *fetch.Poll, incidents []model.Incident) error {
	req := pl.Req
	want := map[string]bool{}
	retry := false
	for i := range incidents {
		inc := &incidents[i]
		if inc.Status != model.StatusPostmortem || inc.Postmortem != nil {
			continue
		}
		want[inc.ID] = true
		if req.Archived != nil {
			if a := req.Archived(inc.ID); a != nil && a.Postmortem != nil {
				pm := *a.Postmortem
				inc.Postmortem = &pm
				continue
			}
		}
		if _, tried := req.State[lookupKey(inc.ID)]; tried || !pathSafe(inc.ID) {
			continue
		}
		pm, err := fetchPostmortem(ctx, pl, inc.ID)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			retry = true
			continue
		}
		inc.Postmortem = pm
	}
	// Forget lookups of incidents that left the list or the postmortem status, so the
	// state stays as small as the list.
	for k := range pl.Res.State {
		if id, ok := strings.CutPrefix(k, EndpointIncident+"/"); ok && !want[id] {
			delete(pl.Res.State, k)
		}
	}
	if retry {
		if prev, ok := req.State[fetch.EndpointIncidents]; ok {
			pl.Res.State[fetch.EndpointIncidents] = prev
		} else {
			delete(pl.Res.State, fetch.EndpointIncidents)
		}
	}
	return nil
}

// fetchPostmortem looks up an incident's postmortem: the per-incident JSON, and when that
// lacks it too, the HTML incident page. A nil postmortem with a nil error means the vendor
// has none to give; the lookup is then recorded as done, the hash of the body that
// answered last under lookupKey.
func fetchPostmortem(ctx context.Context, pl *fetch.Poll, id string) (*model.Postmortem, error) {
	key := lookupKey(id)
	u, err := fetch.EndpointURL(pl.Req.Source, EndpointIncident, "api/v2/incidents/{id}.json", id)
	if err != nil {
		return nil, err
	}
	resp, err := pl.Lookup(ctx, key, u)
	switch {
	case err == nil:
		// A malformed per-incident JSON is no worse than one lacking the postmortem:
		// the HTML page is the next place to look.
		if pm, err := decodePostmortem(resp.ContentType, resp.Body); err == nil && pm != nil {
			pl.Res.State[key] = model.EndpointState{Hash: resp.State.Hash}
			return pm, nil
		}
	case !fetch.Permanent(err):
		return nil, err
	}

	u, err = fetch.EndpointURL(pl.Req.Source, EndpointIncidentPage, "incidents/{id}", id)
	if err != nil {
		return nil, err
	}
	resp, err = pl.Lookup(ctx, EndpointIncidentPage+"/"+id, u)
	if err != nil {
		if fetch.Permanent(err) {
			pl.Res.State[key] = model.EndpointState{}
			return nil, nil
		}
		return nil, err
	}
	pl.Res.State[key] = model.EndpointState{Hash: resp.State.Hash}
	return postmortemFromHTML(resp.Body), nil
}

// pathSafe reports whether a vendor's incident id may go into a URL path as is. Ids are
// vendor data: one like ".." would move the request elsewhere on the host. Statuspage ids
// are 12 lower-case alphanumerics, incident.io's are ULIDs; anything odder is not looked up.
func pathSafe(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// checkV2Summary recognises Atlassian Statuspage by the shape of its
// /api/v2/summary.json. A fetch.ULID page id is incident.io's compatible copy: left to its
// check, on the same answer (Instatus's was judged before).
func checkV2Summary(contentType string, body []byte) (string, string, string) {
	m, page, id, cs, why := statuspagev2.SummaryShape(contentType, body)
	if m == nil {
		return "", "", why
	}
	switch {
	case fetch.StatuspageID.MatchString(id):
		// Atlassian: every component has a Statuspage id, the page's id as page_id and
		// Atlassian's own fields; both lists are always present.
		for _, c := range cs {
			cid, _ := fetch.StrAt(c, "id")
			pid, _ := fetch.StrAt(c, "page_id")
			if !fetch.StatuspageID.MatchString(cid) || pid != id || !fetch.HasAny(c, statuspagev2.StatuspageOnlyComponentKeys...) {
				return "", "", fmt.Sprintf("page.id %s but components[] lack Statuspage's id, page_id and group/showcase fields", fetch.QuoteShort(id))
			}
		}
		_, hasIncidents := fetch.ArrAt(m, "incidents")
		_, hasMaint := fetch.ArrAt(m, "scheduled_maintenances")
		if !hasIncidents || !hasMaint {
			return "", "", fmt.Sprintf("page.id %s but no incidents[] and scheduled_maintenances[]", fetch.QuoteShort(id))
		}
		if len(cs) == 0 {
			if _, ok := fetch.StrAt(page, "time_zone"); !ok {
				return "", "", fmt.Sprintf("page.id %s, no components[] and no page.time_zone", fetch.QuoteShort(id))
			}
			return Kind, fmt.Sprintf("has page.id %q, page.time_zone and no components (Statuspage shape)", id), ""
		}
		return Kind, fmt.Sprintf("has page.id %q and components[] with page_id and group/showcase (Statuspage shape)", id), ""
	case fetch.ULID.MatchString(id):
		return "", "", ""
	}
	return "", "", fmt.Sprintf("page.id %s is neither a Statuspage id nor a fetch.ULID", fetch.QuoteShort(id))
}

// decodePostmortem returns the postmortem of a per-incident document, nil if it has none.
func decodePostmortem(contentType string, body []byte) (*model.Postmortem, error) {
	in, err := statuspagev2.DecodeIncident(contentType, body)
	if err != nil {
		return nil, err
	}
	return in.Postmortem(), nil
}
