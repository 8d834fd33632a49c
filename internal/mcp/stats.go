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

// The bounds of source_stats' days, as the API's.
const (
	defaultStatsDays = 90
	maxStatsDays     = 3650
)

type statsInput struct {
	Source string `json:"source" jsonschema:"the source's name, as list_sources gives it (e.g. \"github\")"`
	Days   int    `json:"days,omitempty" jsonschema:"the window: incidents that started in the last this many days; omit for 90"`
}

func (t *tools) sourceStats(ctx context.Context, _ *sdk.CallToolRequest, in statsInput) (*sdk.CallToolResult, *api.SourceStats, error) {
	if in.Source == "" {
		return nil, nil, errors.New("source: required, a name as list_sources gives it")
	}
	q := url.Values{"days": {strconv.Itoa(clamp(in.Days, defaultStatsDays, maxStatsDays))}}
	var out api.SourceStats
	if _, err := t.api.Get(ctx, "/sources/"+url.PathEscape(in.Source)+"/stats", q, &out); err != nil {
		if apiStatus(err) == http.StatusNotFound {
			return nil, nil, fmt.Errorf("%s: %v (list_sources names the sources)", in.Source, err)
		}
		return nil, nil, fmt.Errorf("source_stats %s: %w", in.Source, err)
	}
	return nil, &out, nil
}
