package fetch

import (
	"cmp"
	"context"
	"maps"
	"net/url"
	"slices"

	"github.com/mmcdole/gofeed"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Platform is one kind of status page: how to poll it and how detection recognises it.
// Each platform registers itself from init (Register), so adding a platform is adding a
// package and one import line, never a case in a switch or an entry in a central list.
type Platform struct {
	// Kind is the provider kind a source's kind: names.
	Kind string
	// Poll makes one poll of a source through pl (the client, the request, the
	// bookkeeping) and returns its snapshot: nil, nil when nothing was parsed (every
	// endpoint answered 304 or a byte-identical body). An error fails the poll, which
	// then reports only its requests (runPoll).
	Poll func(pl *Poll, ctx context.Context) (*model.Snapshot, error)
	// Endpoints are the names of the endpoints a source's endpoints: may override.
	Endpoints []string
	// Components is the endpoint (one of Endpoints) the platform reads its pages'
	// component states from into Snapshot.Components; "" for a platform that publishes
	// none, whose snapshots never carry any.
	Components string

	// Hosts are host names (lower case) that are one of this platform's pages.
	Hosts []string
	// HostSuffixes are the platform's default page domains, ".statuspage.io": a host
	// <page><suffix> is a page of it, unless it is one of NotPages.
	HostSuffixes []string
	// NotPages are the platform's own hosts under HostSuffixes that are no status page
	// (its site, app, API and asset hosts).
	NotPages []string
	// PageURL is the source URL for a page a host rule recognised; nil means the page as
	// a directory, its platform endpoint (if any) cut off.
	PageURL func(u *url.URL) string
	// EndpointPaths are the platform's endpoint paths: a URL given as one of them is cut
	// back to its page.
	EndpointPaths []string
	// Headers are response headers only this platform's pages send.
	Headers []string
	// Probes read the platform's endpoints relative to the page and judge their shape.
	Probes []Probe
	// Feed recognises the platform's own feed: u is the URL that answered the feed f.
	// nil when f is not the platform's.
	Feed func(u *url.URL, f *gofeed.Feed) *Detection
	// ReadsFeed is the generic feed platform's: nil when it reads body as a feed. A feed
	// that no platform's Feed recognises is detected as this platform's.
	ReadsFeed func(body []byte) error
	// Page recognises a page that names the platform in its body (after every probe
	// failed); nil when it does not.
	Page func(u *url.URL, body []byte) *Detection
}

// Probe is one structural probe: Rel is read relative to the page, and Check returns the
// kind and the evidence (after the path) when the answer has a platform's shape, else
// why not. Probes of several platforms on the same Rel share one request: their checks
// judge its answer in Order until one returns a kind or a why; a check that returns
// neither leaves the answer to the next.
type Probe struct {
	// Order places the probe among every platform's: the most common platform first.
	Order int
	Rel   string
	Check func(contentType string, body []byte) (kind, evidence, why string)
}

// registry holds every platform by kind. It is written only from init functions.
var registry = map[string]Platform{}

// Register adds a platform; it is called from init functions only, and panics on a
// kind registered twice or without a Poll.
func Register(p Platform) {
	if _, dup := registry[p.Kind]; dup {
		panic("fetch: provider " + p.Kind + " registered twice")
	}
	if p.Kind == "" || p.Poll == nil {
		panic("fetch: provider registered without a kind or a Poll")
	}
	p.Endpoints = slices.Compact(slices.Sorted(slices.Values(p.Endpoints)))
	if p.Components != "" && !slices.Contains(p.Endpoints, p.Components) {
		panic("fetch: provider " + p.Kind + " reads components from " + p.Components + ", none of its endpoints")
	}
	registry[p.Kind] = p
}

// Lookup returns the platform registered as kind.
func Lookup(kind string) (Platform, bool) {
	p, ok := registry[kind]
	return p, ok
}

// platforms returns every registered platform, sorted by kind.
func platforms() []Platform {
	out := make([]Platform, 0, len(registry))
	for _, k := range slices.Sorted(maps.Keys(registry)) {
		out = append(out, registry[k])
	}
	return out
}

// probes returns every platform's probes in their order, those on the same Rel together
// (where the first of them is), each group one request.
func probes() [][]Probe {
	var all []Probe
	for _, p := range platforms() {
		all = append(all, p.Probes...)
	}
	slices.SortStableFunc(all, func(a, b Probe) int { return cmp.Compare(a.Order, b.Order) })
	var out [][]Probe
	at := map[string]int{}
	for _, p := range all {
		if i, ok := at[p.Rel]; ok {
			out[i] = append(out[i], p)
			continue
		}
		at[p.Rel] = len(out)
		out = append(out, []Probe{p})
	}
	return out
}
