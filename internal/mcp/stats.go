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

// registerStats adds the source_stats tool.
func (t *tools) registerStats(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "source_stats",
		Title: "How fast and how honest a vendor is",
		Description: "Returns a source's vendor figures over the incidents (not maintenances) that started in the last days: " +
			"how many by impact and how many are open, time to resolve (median and p90), how long after the start the " +
			"archive first saw an incident and the vendor posted its first update, postmortem count, rate and delay after " +
			"resolution, and the edits the vendor made after posting (updates edited or removed, titles changed, starts " +
			"backdated, impact lowered after resolution, incidents removed). Durations are in seconds; null where there is " +
			"no data.",
		Annotations:  readOnly,
		InputSchema:  inputSchema[statsInput](map[string]bound{"days": {1, maxStatsDays, defaultStatsDays}}),
		OutputSchema: outputSchema[api.SourceStats](),
	}, t.sourceStats)
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
