package fetch

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Endpoint names several platforms share: the keys of Source.Endpoints (to override an
// endpoint's URL) and of model.FetchState (what is remembered per endpoint). A platform's
// other endpoints are named in its own package.
const (
	EndpointIncidents = "incidents" // the incident list (Statuspage's /api/v2/incidents.json)
	EndpointSummary   = "summary"   // the page's summary (Statuspage's /api/v2/summary.json)
	// EndpointFeed names a history feed: the feed of a kind feed source (normally the
	// source URL itself), incident.io's feed.atom.
	EndpointFeed = "feed"
)

// Provider polls one kind of status page and normalises what it reads.
type Provider interface {
	Poll(ctx context.Context, req Request) (*Result, error)
}

// Request is what a Provider needs for one poll of one source.
type Request struct {
	Source model.Source
	// State is the source's remembered endpoint state from the last recorded poll.
	State model.FetchState
	// Archived returns the latest archived version of an incident by provider id, or nil.
	// It lets a provider carry over what it fetches only once (a postmortem). May be nil.
	Archived func(id string) *model.Incident
	// Now is the poll's time, stamped on the snapshot.
	Now time.Time
	// Log receives what a poll gets past without failing (an optional endpoint that
	// could not be read). May be nil.
	Log *slog.Logger
}

// Result is the outcome of a successful poll.
type Result struct {
	// Snapshot is nil when nothing was parsed: every endpoint answered 304 or a body
	// byte-identical to the last one.
	Snapshot *model.Snapshot
	// State is the new endpoint state. The caller saves it only after the snapshot is
	// recorded, so a crash in between re-reads rather than skips.
	State model.FetchState
	// Bodies holds one entry per endpoint read this poll; Data is set only for bodies
	// that differ from the stored hash.
	Bodies []model.Body
	// Requests counts the HTTP requests made.
	Requests int
}

// StateChanged reports whether r.State differs from prev, i.e. whether the archive has
// validators or hashes to write even when the snapshot brought no new version.
func (r *Result) StateChanged(prev model.FetchState) bool {
	return !r.State.Equal(prev)
}

// Kinds returns the registered provider kinds, sorted, for config validation.
func Kinds() []string {
	return slices.Sorted(maps.Keys(registry))
}

// EndpointNames returns, sorted, the endpoint names a source of kind may override in its
// endpoints: mapping. For "auto" and "", whose platform is known only once detected, it
// is every platform's names; for an unknown kind, nil.
func EndpointNames(kind string) []string {
	if kind != "" && kind != "auto" {
		if p, ok := registry[kind]; ok {
			return slices.Clone(p.Endpoints)
		}
		return nil
	}
	var all []string
	for _, p := range registry {
		all = append(all, p.Endpoints...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// defaultKind is what New takes "auto" and "" for: Statuspage (platform/statuspage), the
// platform of most vendor pages.
const defaultKind = "statuspage"

// New returns the Provider for kind; "auto" and "" mean defaultKind.
func New(kind string, c *Client) (Provider, error) {
	if kind == "" || kind == "auto" {
		kind = defaultKind
	}
	p, ok := registry[kind]
	if !ok {
		return nil, fmt.Errorf("unknown provider kind %q (known: %s)", kind, strings.Join(Kinds(), ", "))
	}
	return poller{c: c, poll: p.Poll}, nil
}

// poller is the Provider of a platform: each poll runs the platform's Poll over a new
// Poll (runPoll).
type poller struct {
	c    *Client
	poll func(*Poll, context.Context) (*model.Snapshot, error)
}

func (p poller) Poll(ctx context.Context, req Request) (*Result, error) {
	return runPoll(ctx, p.c, req, p.poll)
}

// EndpointURL resolves an endpoint of a source. Source.Endpoints[name] wins when set;
// otherwise rel is resolved against the source URL taken as a directory, so
// "http://host/acme" and "http://host/acme/" both give "http://host/acme/<rel>".
// A "{id}" in either is replaced by the path-escaped id.
func EndpointURL(src model.Source, name, rel, id string) (string, error) {
	if u := src.Endpoints[name]; u != "" {
		return strings.ReplaceAll(u, "{id}", url.PathEscape(id)), nil
	}
	base, err := BaseURL(src.URL)
	if err != nil {
		return "", err
	}
	ref, err := url.Parse(strings.ReplaceAll(rel, "{id}", url.PathEscape(id)))
	if err != nil {
		return "", fmt.Errorf("endpoint %s: %w", name, err)
	}
	return base.ResolveReference(ref).String(), nil
}

// BaseURL parses a source URL as a directory: its path gets a trailing slash, and query
// and fragment are dropped since every endpoint brings its own.
func BaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("source url: %w", err)
	}
	if u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("source url %q: want an absolute http(s) URL", raw)
	}
	b := *u
	b.RawQuery, b.Fragment, b.RawFragment = "", "", ""
	if !strings.HasSuffix(b.Path, "/") {
		b.Path += "/"
		if b.RawPath != "" {
			b.RawPath += "/"
		}
	}
	return &b, nil
}

// RedactURL is a URL as errors show it: a password in it is masked.
func RedactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(unreadable url)"
}

// ErrMalformed is payload.ErrMalformed, for the daemon, which tells a malformed answer
// from a failed request.
var ErrMalformed = payload.ErrMalformed
