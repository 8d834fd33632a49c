package fetch

// Poll is the helper every provider adapter (every package under platform/) polls with:
// it is the bookkeeping every poll does around Client.Get (count the requests, keep each
// body as evidence, remember the new endpoint state), plus the one rule adapters that join
// several endpoints into one snapshot need (Reread, RereadGroup).

import (
	"context"
	"fmt"
	"slices"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Poll reads the endpoints of one poll and builds the Result around them.
type Poll struct {
	c   *Client
	Req Request
	Res *Result
}

func NewPoll(c *Client, req Request) *Poll {
	return &Poll{c: c, Req: req, Res: &Result{State: req.State.Clone()}}
}

// Read fetches endpoint name at u conditionally: the remembered ETag and Last-Modified are
// sent, and a body that hashes to the remembered hash is recognised before any parsing.
// The Response's Body is nil when there is nothing to parse (304 or byte-identical).
func (pl *Poll) Read(ctx context.Context, name, u string) (*Response, error) {
	return pl.Get(ctx, name, u, pl.Req.State[name])
}

// Reread fetches endpoint name at u in full, ignoring what is remembered of it. Adapters
// that build each incident from several endpoints call it for the endpoints that did not
// change when another one did, so that every version is built from one coherent set of
// bodies: an endpoint that is not parsed contributes nothing, and an incident half built
// would show as a change. Its body replaces the evidence of the conditional read.
func (pl *Poll) Reread(ctx context.Context, name, u string) (*Response, error) {
	return pl.Get(ctx, name, u, model.EndpointState{})
}

// Forget drops what is remembered of an endpoint that turned out to be absent, so the
// state holds only endpoints that answer.
func (pl *Poll) Forget(name string) {
	delete(pl.Res.State, name)
	pl.DropBody(name)
}

// Lookup fetches u in full as the evidence of name without remembering its state: for a
// one-off look-up (Statuspage's postmortem of one incident) that the adapter remembers in
// its own terms, such as "done", rather than by validators.
func (pl *Poll) Lookup(ctx context.Context, name, u string) (*Response, error) {
	return pl.get(ctx, name, u, model.EndpointState{}, false)
}

// Get fetches endpoint name at u with prev's validators and remembers the answer's state.
func (pl *Poll) Get(ctx context.Context, name, u string, prev model.EndpointState) (*Response, error) {
	return pl.get(ctx, name, u, prev, true)
}

// get counts the request and keeps the body as the evidence of name; remember says
// whether the answer's state becomes name's.
func (pl *Poll) get(ctx context.Context, name, u string, prev model.EndpointState, remember bool) (*Response, error) {
	pl.Res.Requests++
	resp, err := pl.c.Get(ctx, u, prev, pl.Req.Source.Headers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if remember {
		pl.Res.State[name] = resp.State
	}
	pl.DropBody(name)
	b := model.Body{Endpoint: name, Hash: resp.State.Hash}
	// Data for every body read, a re-read of unchanged bytes too: the archive keeps a
	// body only once per hash, and the stored hash alone does not mean it kept this one
	// (a poll whose answer changed nothing stores no evidence).
	if !resp.NotModified && !resp.Unchanged {
		b.Data = resp.Body
	}
	if b.Hash != "" {
		pl.Res.Bodies = append(pl.Res.Bodies, b)
	}
	return resp, nil
}

// DropBody removes the evidence of an earlier read of the endpoint in this poll.
func (pl *Poll) DropBody(name string) {
	for i, b := range pl.Res.Bodies {
		if b.Endpoint == name {
			pl.Res.Bodies = append(pl.Res.Bodies[:i], pl.Res.Bodies[i+1:]...)
			return
		}
	}
}

// runPoll runs an adapter's poll body over a new Poll and makes its Result: the
// Snapshot and state on success, only the request count on failure.
func runPoll(ctx context.Context, c *Client, req Request, body func(*Poll, context.Context) (*model.Snapshot, error)) (*Result, error) {
	pl := NewPoll(c, req)
	snap, err := body(pl, ctx)
	if err != nil {
		return &Result{Requests: pl.Res.Requests}, err
	}
	pl.Res.Snapshot = snap
	return pl.Res, nil
}

// Snapshot starts the snapshot of this poll.
func (pl *Poll) Snapshot() *model.Snapshot {
	return &model.Snapshot{Source: pl.Req.Source.Name, FetchedAt: pl.Req.Now.UTC(), Incidents: []model.Incident{}}
}

// ReadEndpoint reads endpoint name conditionally at its URL (its override, else rel under
// the source URL: EndpointURL) and decodes the body, when there is one to parse, with
// decode. parsed is false when there was none (304 or byte-identical). A body that
// decode rejects fails the read as "<name> <url>: <why>", a password in the URL masked.
func ReadEndpoint[T any](ctx context.Context, pl *Poll, name, rel string, decode func(contentType string, body []byte) (T, error)) (v T, parsed bool, err error) {
	u, err := EndpointURL(pl.Req.Source, name, rel, "")
	if err != nil {
		return v, false, err
	}
	return ReadAt(ctx, pl, name, u, decode)
}

// ReadAt is ReadEndpoint for an endpoint whose URL the adapter makes itself.
func ReadAt[T any](ctx context.Context, pl *Poll, name, u string, decode func(contentType string, body []byte) (T, error)) (v T, parsed bool, err error) {
	resp, err := pl.Read(ctx, name, u)
	if err != nil || !ToParse(resp) {
		return v, false, err
	}
	d, err := decode(resp.ContentType, resp.Body)
	if err != nil {
		return v, false, fmt.Errorf("%s %s: %w", name, RedactURL(u), err)
	}
	return d, true, nil
}

// ToParse reports whether a read gave a body to parse.
func ToParse(resp *Response) bool {
	return resp != nil && !resp.NotModified && !resp.Unchanged
}

// GroupRead is one endpoint of a group read together.
type GroupRead struct {
	Name, URL string
	Resp      *Response
}

// RereadGroup reads again in full (reread) every endpoint of the group that answered 304
// or an identical body, when another one of it changed; after it, either every endpoint of
// the group has a body to parse or none has.
func (pl *Poll) RereadGroup(ctx context.Context, group []*GroupRead) error {
	if !slices.ContainsFunc(group, func(g *GroupRead) bool { return ToParse(g.Resp) }) {
		return nil
	}
	for _, g := range group {
		if ToParse(g.Resp) {
			continue
		}
		resp, err := pl.Reread(ctx, g.Name, g.URL)
		if err != nil {
			return err
		}
		g.Resp = resp
	}
	return nil
}
