// The Azure adapter reads the RSS feed of the public Azure status page,
// https://azure.status.microsoft/en-us/status/feed/ (RSS 2.0,
// https://www.rssboard.org/rss-specification; the page is described at
// https://learn.microsoft.com/en-us/azure/service-health/azure-status-overview). The feed
// lists only the issues open now, one item each, and is an empty channel when all is well.

package azure

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/htmltext"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/sanitize"
)

// Kind is the provider kind of the Azure status page.
const Kind = "azure"

func init() {
	fetch.Register(fetch.Platform{
		Kind:      Kind,
		Poll:      poll,
		Endpoints: []string{fetch.EndpointFeed}, // feed/ under the page
		Hosts:     []string{"azure.status.microsoft", "status.azure.com"},
		PageURL:   azurePageURL,
		// feed/ is no endpoint path: that is any bespoke feed's name too.
		Feed: azureFeedDetection,
	})
}

// poll reads the feed conditionally; a 304 or byte-identical body is not parsed.
//
// The Azure status feed is open-only: the
// snapshot is marked OpenOnly, so the archive resolves an incident that two well-formed
// polls in a row no longer list, and an empty channel is a healthy page — a snapshot
// with the incident listing and no incident. An HTML page, an empty body or truncated XML
// is a failed fetch (ErrMalformed), never a healthy page.
//
// Mapping, one incident per item:
//   - id: the guid, else the link (an item with neither is malformed: identity is never
//     a title); title: the title; components: the item's categories (services and
//     regions), sorted; url: the page (the items link to an internal host).
//   - status: investigating (status_raw empty): the feed only lists open issues, and
//     their resolution is inferred by the archive from their absence.
//   - impact: the feed states none. A title naming an outage is major, one naming a
//     degradation minor (impact_raw: the word); anything else is unknown, which passes
//     every min_impact filter.
//   - updates: Azure rewrites an item's one description as the issue goes on and moves
//     its pubDate. Each (pubDate, description) is an update, keyed, as every update without id, by
//     (incident id, pubDate as UTC RFC 3339, 0): a rewrite under a new pubDate is a new
//     update, one under the same pubDate an edit of it. Earlier updates, which the feed
//     no longer carries, are carried over from the archived version (Request.Archived),
//     so the incident's timeline is the sequence of texts Azure posted, and
//     started_at stays the first pubDate seen. The description's HTML becomes clean
//     text in Body and sanitised HTML in HTML.
func poll(pl *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	feed, parsed, err := fetch.ReadEndpoint(ctx, pl, fetch.EndpointFeed, "feed/", func(_ string, body []byte) (*azureFeed, error) { return decodeAzure(body) })
	if err != nil || !parsed {
		return nil, err
	}
	snap := pl.Snapshot()
	snap.PageTitle = feed.title
	snap.Listings = []model.Listing{{Kind: model.KindIncident}}
	snap.Incidents = normaliseAzure(feed.items, pl.Req.Source.URL, pl.Req.Archived)
	snap.OpenOnly = true
	return snap, nil
}

// ---- Decoding ----

// azureItem is one decoded item of the Azure feed.
type azureItem struct {
	id, title, link string
	description     string
	categories      []string
	published       time.Time
	stamp           string // the pubDate as keyed: UTC RFC 3339, else as written
}

type azureFeed struct {
	title string
	items []azureItem
}

// decodeAzure parses the feed. An item needs an id (guid, else link).
func decodeAzure(body []byte) (*azureFeed, error) {
	f, err := payload.ParseStatusFeed(body)
	if err != nil {
		return nil, err
	}
	out := &azureFeed{title: strings.TrimSpace(f.Title), items: make([]azureItem, 0, len(f.Items))}
	for i, it := range payload.FeedItems(f) {
		item := azureItem{
			id:          strings.TrimSpace(it.GUID),
			title:       strings.TrimSpace(it.Title),
			link:        strings.TrimSpace(it.Link),
			description: it.Description,
			categories:  it.Categories,
		}
		if item.id == "" {
			item.id = item.link
		}
		if item.id == "" {
			return nil, fmt.Errorf("%w: item [%d] %q has neither guid nor link", payload.ErrMalformed, i, item.title)
		}
		if item.description == "" {
			item.description = it.Content
		}
		item.stamp = strings.TrimSpace(it.Published)
		if t, stamp := payload.FeedPosted(it); stamp != "" {
			item.published, item.stamp = t, stamp
		}
		out.items = append(out.items, item)
	}
	return out, nil
}

// ---- Normalisation ----

// normaliseAzure maps the items to incidents; an id listed twice is taken once, first
// wins. pageURL is every incident's URL: the items link to an internal host of the page
// (azurestatusprod….azurewebsites.net) that changes from poll to poll. archived (may be
// nil) gives the archived version of an incident, whose earlier updates and start are
// carried over.
func normaliseAzure(items []azureItem, pageURL string, archived func(id string) *model.Incident) []model.Incident {
	out := make([]model.Incident, 0, len(items))
	seen := make(map[string]bool, len(items))
	for i := range items {
		it := &items[i]
		if seen[it.id] {
			continue
		}
		seen[it.id] = true
		inc := model.Incident{
			ID:         it.id,
			Kind:       model.KindIncident,
			Status:     model.StatusInvestigating,
			Title:      it.title,
			StartedAt:  it.published,
			URL:        pageURL,
			Components: fetch.SortedNames(it.categories),
		}
		inc.Impact, inc.ImpactRaw = azureImpact(it.title)
		var updates []model.Update
		if html := strings.TrimSpace(it.description); html != "" {
			updates = append(updates, model.Update{
				ID:       fetch.UpdateKey(it.id, it.stamp, 0),
				Status:   model.StatusInvestigating,
				Body:     htmltext.FromString(html),
				Format:   model.FormatHTML,
				HTML:     sanitize.HTML(html),
				PostedAt: it.published,
			})
		}
		if archived != nil {
			if prev := archived(it.id); prev != nil {
				for _, u := range prev.Updates {
					if len(updates) == 0 || u.ID != updates[0].ID {
						updates = append(updates, u)
					}
				}
				if !prev.StartedAt.IsZero() && (inc.StartedAt.IsZero() || prev.StartedAt.Before(inc.StartedAt)) {
					inc.StartedAt = prev.StartedAt
				}
			}
		}
		slices.SortStableFunc(updates, func(a, b model.Update) int { return a.PostedAt.Compare(b.PostedAt) })
		if updates == nil {
			updates = []model.Update{}
		}
		inc.Updates = updates
		out = append(out, inc)
	}
	return out
}

// azureImpact reads an impact from a title that names one; see poll.
func azureImpact(title string) (model.Impact, string) {
	t := strings.ToLower(title)
	switch {
	case strings.Contains(t, "outage"):
		return model.ImpactMajor, "outage"
	case strings.Contains(t, "degradation"), strings.Contains(t, "degraded"):
		return model.ImpactMinor, "degradation"
	}
	return model.ImpactUnknown, ""
}

// azureFeedDetection recognises the Azure status feed, feed/ of an RSS channel titled "Azure Status".
func azureFeedDetection(u *url.URL, f *gofeed.Feed) *fetch.Detection {
	base := *u
	base.RawQuery, base.RawPath = "", ""
	if strings.TrimSpace(f.Title) == "Azure Status" {
		p := strings.TrimSuffix(base.Path, "/")
		if q, ok := strings.CutSuffix(p, "/feed"); ok {
			base.Path = q + "/"
			return &fetch.Detection{Kind: Kind, URL: base.String(),
				Evidence: `URL is feed/ of an RSS channel titled "Azure Status" (Azure status feed)`}
		}
	}
	return nil
}

// azurePageURL is the source URL of an Azure page a host rule recognised: the adapter
// reads feed/ under the status page, which lives under a locale:
// https://azure.status.microsoft/en-us/status/.
func azurePageURL(u *url.URL) string {
	c := *u
	c.RawQuery, c.RawPath = "", ""
	p := strings.TrimSuffix(strings.TrimSuffix(c.Path, "/"), "/feed")
	if !strings.Contains(p+"/", "/status/") {
		p = "/en-us/status"
	}
	c.Path = p + "/"
	return c.String()
}
