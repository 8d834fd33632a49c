package fetch

// pollReader is a generic helper for provider adapters, shared by incidentio.go,
// instatus.go and feed.go and free for any other adapter: it is the bookkeeping every poll
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
func (r *pollReader) read(ctx context.Context, name, u string) (*Response, error) {
	return r.get(ctx, name, u, r.req.State[name])
}

// reread fetches endpoint name at u in full, ignoring what is remembered of it. Adapters
// that build each incident from several endpoints call it for the endpoints that did not
// change when another one did, so that every version is built from one coherent set of
// bodies: an endpoint that is not parsed contributes nothing, and an incident half built
// would show as a change. Its body replaces the evidence of the conditional read.
func (r *pollReader) reread(ctx context.Context, name, u string) (*Response, error) {
	return r.get(ctx, name, u, model.EndpointState{})
}

// forget drops what is remembered of an endpoint that turned out to be absent, so the
// state holds only endpoints that answer.
func (r *pollReader) forget(name string) {
	delete(r.res.State, name)
	r.dropBody(name)
}

func (r *pollReader) get(ctx context.Context, name, u string, prev model.EndpointState) (*Response, error) {
	r.res.Requests++
	resp, err := r.c.Get(ctx, u, prev, r.req.Source.Headers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r.res.State[name] = resp.State
	r.dropBody(name)
	b := model.Body{Endpoint: name, Hash: resp.State.Hash}
	if !resp.NotModified && !resp.Unchanged {
		b.Data = resp.Body
	}
	if b.Hash != "" {
		r.res.Bodies = append(r.res.Bodies, b)
	}
	return resp, nil
}

// dropBody removes the evidence of an earlier read of the endpoint in this poll.
func (r *pollReader) dropBody(name string) {
	for i, b := range r.res.Bodies {
		if b.Endpoint == name {
			r.res.Bodies = append(r.res.Bodies[:i], r.res.Bodies[i+1:]...)
			return
		}
	}
}

// failed is the Result of a poll that failed: it reports only the requests made.
func (r *pollReader) failed() *Result {
	return &Result{Requests: r.res.Requests}
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
func (r *pollReader) rereadGroup(ctx context.Context, group []*groupRead) error {
	if !slices.ContainsFunc(group, func(g *groupRead) bool { return toParse(g.resp) }) {
		return nil
	}
	for _, g := range group {
		if toParse(g.resp) {
			continue
		}
		resp, err := r.reread(ctx, g.name, g.url)
		if err != nil {
			return err
		}
		g.resp = resp
	}
	return nil
}
