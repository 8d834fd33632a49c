// The AWS adapter reads the AWS Health Dashboard's service health
// (https://docs.aws.amazon.com/health/latest/ug/aws-health-dashboard-status.html): the
// RSS feed of every post, https://status.aws.amazon.com/rss/all.rss (RSS 2.0,
// https://www.rssboard.org/rss-specification), and the JSON list of the events open now
// that the dashboard itself loads, https://health.aws.amazon.com/public/currentevents
// (undocumented; served as UTF-16 with a byte-order mark).

package aws

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"strings"

	"github.com/mmcdole/gofeed"

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
// polls without it. See poll.
const awsEpisodeState = "episodes/"

func init() {
	fetch.Register(fetch.Platform{
		Kind:          Kind,
		Poll:          poll,
		Endpoints:     []string{EndpointRSS, EndpointCurrentEvents},
		Hosts:         []string{"health.aws.amazon.com", "status.aws.amazon.com"},
		PageURL:       func(u *url.URL) string { return u.String() }, // the adapter reads fixed URLs on the official hosts
		EndpointPaths: []string{"/rss/all.rss", "/public/currentevents"},
		Feed:          awsFeedDetection,
	})
}

// poll reads the RSS feed and currentevents of the AWS Health Dashboard conditionally,
// and combines the two endpoints into one history snapshot:
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
// the fetch state (awsEpisodeState, as model.Episode), and the oldest
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
func poll(pl *fetch.Poll, ctx context.Context) (*model.Snapshot, error) {
	req := pl.Req
	rssURL, ceURL, err := awsEndpoints(req.Source)
	if err != nil {
		return nil, err
	}
	rss, err := pl.Read(ctx, EndpointRSS, rssURL)
	if err != nil {
		return nil, err
	}
	ce, err := pl.Read(ctx, EndpointCurrentEvents, ceURL)
	if err != nil {
		return nil, err
	}
	// While an episode is missed once, an unchanged poll is still the second well-formed
	// answer without it: it must be parsed, or the miss would wait for the next change.
	memo := awsMemoFrom(req.State)
	if !fetch.ToParse(rss) && !fetch.ToParse(ce) && !memo.pending() {
		return nil, nil
	}
	if !fetch.ToParse(rss) {
		if rss, err = pl.Reread(ctx, EndpointRSS, rssURL); err != nil {
			return nil, err
		}
	}
	if !fetch.ToParse(ce) {
		if ce, err = pl.Reread(ctx, EndpointCurrentEvents, ceURL); err != nil {
			return nil, err
		}
	}

	feed, err := decodeAWSRSS(rss.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", EndpointRSS, rssURL, err)
	}
	events, err := decodeAWSCurrentEvents(ce.ContentType, ce.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", EndpointCurrentEvents, ceURL, err)
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
	return &model.Snapshot{
		Source:    req.Source.Name,
		FetchedAt: req.Now.UTC(),
		PageTitle: feed.title,
		Listings:  []model.Listing{listing},
		Incidents: incidents,
	}, nil
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
