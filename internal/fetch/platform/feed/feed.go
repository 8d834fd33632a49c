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
// no dated paragraph at all is one update. The reader (internal/fetch/historyfeed) is
// shared: platform/instatus reads history.atom and platform/incidentio reads feed.atom
// with it.

package feed

import (
	"context"
	"fmt"
	"net/url"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/historyfeed"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Kind is the provider kind of a bare RSS or Atom history feed.
const Kind = "feed"

func init() {
	fetch.Register(fetch.Platform{
		Kind:      Kind,
		Poll:      poll,
		Endpoints: []string{fetch.EndpointFeed},
		PageURL:   func(u *url.URL) string { return u.String() }, // a feed is its own URL
		ReadsFeed: func(body []byte) error { _, err := historyfeed.Parse(body); return err },
	})
}

// poll reads the feed conditionally, and nothing else.
//
// A feed is a history provider: the feed lists
// recent incidents whatever their state.
func poll(pl *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	u, err := feedURL(pl.Req.Source)
	if err != nil {
		return nil, err
	}
	f, parsed, err := fetch.ReadAt(ctx, pl, fetch.EndpointFeed, u, func(_ string, body []byte) (*historyfeed.Feed, error) { return historyfeed.Parse(body) })
	if err != nil || !parsed {
		return nil, err
	}
	snap := pl.Snapshot()
	snap.PageTitle = f.PageTitle()
	snap.Incidents, snap.Listings = f.Incidents(snap.FetchedAt, pl.Req.Archived)
	return snap, nil
}

// feedURL is the feed of a kind feed source: the endpoint override, else the source URL
// as is (for kind feed the URL is the feed, not a directory).
func feedURL(src model.Source) (string, error) {
	raw := src.Endpoints[fetch.EndpointFeed]
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
