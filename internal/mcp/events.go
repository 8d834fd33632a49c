// The tools of related incidents and cross-vendor events.

package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/statuswatch/statuswatch/internal/api"
)

type relatedOutput struct {
	Related []api.Related `json:"related" jsonschema:"the incidents of other sources related to it, by start, each with its reasons"`
}

type eventsInput struct {
	From  string `json:"from,omitempty" jsonschema:"an RFC 3339 time (e.g. 2026-07-01T00:00:00Z): only events still under way at or after it"`
	To    string `json:"to,omitempty" jsonschema:"an RFC 3339 time: only events that started at or before it"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many events to return at most"`
}

type eventsOutput struct {
	Events []api.Event `json:"events" jsonschema:"the cross-vendor events, newest first"`
}

// The sizes of list_events.
const (
	defaultEvents = 20
	maxEvents     = 100
)

func (t *tools) related(ctx context.Context, _ *sdk.CallToolRequest, in incidentRef) (*sdk.CallToolResult, relatedOutput, error) {
	out := relatedOutput{Related: []api.Related{}}
	if err := in.check(); err != nil {
		return nil, out, err
	}
	if _, err := t.api.Get(ctx, incidentPath(in.Source, in.ID)+"/related", nil, &out.Related); err != nil {
		return nil, out, incidentError(in.Source, in.ID, err)
	}
	return nil, out, nil
}

func (t *tools) events(ctx context.Context, _ *sdk.CallToolRequest, in eventsInput) (*sdk.CallToolResult, eventsOutput, error) {
	out := eventsOutput{Events: []api.Event{}}
	q := url.Values{"limit": {strconv.Itoa(clamp(in.Limit, defaultEvents, maxEvents))}}
	for _, p := range [][2]string{{"from", in.From}, {"to", in.To}} {
		if p[1] == "" {
			continue
		}
		at, err := parseTime(p[0], p[1])
		if err != nil {
			return nil, out, err
		}
		q.Set(p[0], at.UTC().Format(api.TimeLayout))
	}
	if _, err := t.api.Get(ctx, "/events", q, &out.Events); err != nil {
		if e, ok := errors.AsType[*Error](err); ok && e.Status == http.StatusBadRequest {
			return nil, out, fmt.Errorf("list_events: %s", e.Message)
		}
		return nil, out, fmt.Errorf("list_events: %w", err)
	}
	return nil, out, nil
}
