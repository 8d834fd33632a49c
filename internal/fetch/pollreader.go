package fetch

// pollReader is the helper every provider adapter but Statuspage's polls with
// (incidentio.go, instatus.go, feed.go, aws.go, gcp.go, azure.go, betterstack.go,
// cachet.go, statusio.go, slackstatus.go): it is the bookkeeping every poll
// does around Client.Get (count the requests, keep each body as evidence, remember the new
// endpoint state), plus the one rule adapters that join several endpoints into one
// snapshot need (reread, rereadGroup).

import (
	"context"
	"fmt"
	"slices"

	"github.com/statuswatch/statuswatch/internal/model"
)

// pollReader reads the endpoints of one poll and builds the Result around them.
type pollReader struct {
	c   *Client
	req Request
	res *Result
}

func newPollReader(c *Client, req Request) *pollReader {
	return &pollReader{c: c, req: req, res: &Result{State: req.State.Clone()}}
}

// read fetches endpoint name at u conditionally: the remembered ETag and Last-Modified are
// sent, and a body that hashes to the remembered hash is recognised before any parsing.
// The Response's Body is nil when there is nothing to parse (304 or byte-identical).
func (pl *pollReader) read(ctx context.Context, name, u string) (*Response, error) {
	return pl.get(ctx, name, u, pl.req.State[name])
}

// reread fetches endpoint name at u in full, ignoring what is remembered of it. Adapters
// that build each incident from several endpoints call it for the endpoints that did not
// change when another one did, so that every version is built from one coherent set of
// bodies: an endpoint that is not parsed contributes nothing, and an incident half built
// would show as a change. Its body replaces the evidence of the conditional read.
func (pl *pollReader) reread(ctx context.Context, name, u string) (*Response, error) {
	return pl.get(ctx, name, u, model.EndpointState{})
}

// forget drops what is remembered of an endpoint that turned out to be absent, so the
// state holds only endpoints that answer.
func (pl *pollReader) forget(name string) {
	delete(pl.res.State, name)
	pl.dropBody(name)
}

func (pl *pollReader) get(ctx context.Context, name, u string, prev model.EndpointState) (*Response, error) {
	pl.res.Requests++
	resp, err := pl.c.Get(ctx, u, prev, pl.req.Source.Headers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	pl.res.State[name] = resp.State
	pl.dropBody(name)
	b := model.Body{Endpoint: name, Hash: resp.State.Hash}
	// Data for every body read, a re-read of unchanged bytes too: the archive keeps a
	// body only once per hash, and the stored hash alone does not mean it kept this one
	// (a poll whose answer changed nothing stores no evidence).
	if !resp.NotModified && !resp.Unchanged {
		b.Data = resp.Body
	}
	if b.Hash != "" {
		pl.res.Bodies = append(pl.res.Bodies, b)
	}
	return resp, nil
}

// dropBody removes the evidence of an earlier read of the endpoint in this poll.
func (pl *pollReader) dropBody(name string) {
	for i, b := range pl.res.Bodies {
		if b.Endpoint == name {
			pl.res.Bodies = append(pl.res.Bodies[:i], pl.res.Bodies[i+1:]...)
			return
		}
	}
}

// runPoll runs an adapter's poll body over a new pollReader and makes its Result: the
// snapshot and state on success, only the request count on failure.
func runPoll(ctx context.Context, c *Client, req Request, body func(*pollReader, context.Context) (*model.Snapshot, error)) (*Result, error) {
	pl := newPollReader(c, req)
	snap, err := body(pl, ctx)
	if err != nil {
		return pl.failed(), err
	}
	pl.res.Snapshot = snap
	return pl.res, nil
}

// snapshot starts the snapshot of this poll.
func (pl *pollReader) snapshot() *model.Snapshot {
	return &model.Snapshot{Source: pl.req.Source.Name, FetchedAt: pl.req.Now.UTC(), Incidents: []model.Incident{}}
}

// failed is the Result of a poll that failed: it reports only the requests made.
func (pl *pollReader) failed() *Result {
	return &Result{Requests: pl.res.Requests}
}

// toParse reports whether a read gave a body to parse.
func toParse(resp *Response) bool {
	return resp != nil && !resp.NotModified && !resp.Unchanged
}

// groupRead is one endpoint of a group read together.
type groupRead struct {
	name, url string
	resp      *Response
}

// rereadGroup reads again in full (reread) every endpoint of the group that answered 304
// or an identical body, when another one of it changed; after it, either every endpoint of
// the group has a body to parse or none has.
func (pl *pollReader) rereadGroup(ctx context.Context, group []*groupRead) error {
	if !slices.ContainsFunc(group, func(g *groupRead) bool { return toParse(g.resp) }) {
		return nil
	}
	for _, g := range group {
		if toParse(g.resp) {
			continue
		}
		resp, err := pl.reread(ctx, g.name, g.url)
		if err != nil {
			return err
		}
		g.resp = resp
	}
	return nil
}
