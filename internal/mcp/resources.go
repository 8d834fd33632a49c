// The incident resource (statuswatch://incident/{source}/{id}) and the summary prompt.

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/statuswatch/statuswatch/internal/api"
)

func (t *tools) readIncident(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	source, id, ok := parseIncidentURI(uri)
	if !ok {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	var inc json.RawMessage
	if _, err := t.api.Get(ctx, incidentPath(source, id), nil, &inc); err != nil {
		if apiStatus(err) == http.StatusNotFound {
			return nil, sdk.ResourceNotFoundError(uri)
		}
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(inc)}}}, nil
}

// IncidentURI is the resource URI of an incident.
func IncidentURI(source, id string) string {
	return "statuswatch://incident/" + url.PathEscape(source) + "/" + url.PathEscape(id)
}

func parseIncidentURI(uri string) (source, id string, ok bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "statuswatch" || u.Host != "incident" {
		return "", "", false
	}
	source, id, ok = strings.Cut(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	if !ok {
		return "", "", false
	}
	source, err1 := url.PathUnescape(source)
	id, err2 := url.PathUnescape(id)
	return source, id, err1 == nil && err2 == nil && source != "" && id != ""
}

func (t *tools) summarise(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	source, id := req.Params.Arguments["source"], req.Params.Arguments["id"]
	if err := (incidentRef{Source: source, ID: id}).check(); err != nil {
		return nil, err
	}
	var versions []api.Version
	if _, err := t.api.Get(ctx, incidentPath(source, id)+"/versions", url.Values{"limit": {strconv.Itoa(maxVers)}}, &versions); err != nil {
		return nil, incidentError(source, id, err)
	}
	var latest json.RawMessage
	if _, err := t.api.Get(ctx, incidentPath(source, id), nil, &latest); err != nil {
		return nil, incidentError(source, id, err)
	}
	text := fmt.Sprintf("Summarise what the vendor changed in incident %s/%s of statuswatch's archive, version by version: "+
		"what they said first, what they added, reworded or removed later (silent edits included), and what the postmortem "+
		"says, if there is one. Read the incident with get_incident {source: %q, id: %q} and each change with diff_incident "+
		"(from N-1 to N); quote the vendor's words where they matter and give each change's time in UTC. Its latest "+
		"version is attached.\n\nIts versions, newest first:\n",
		source, id, source, id)
	for _, v := range versions {
		text += fmt.Sprintf("- version %d, observed %s: %s\n", v.Version, time.Time(v.ObservedAt).UTC().Format(time.RFC3339), v.Summary)
	}
	return &sdk.GetPromptResult{
		Description: "What the vendor changed in " + source + "/" + id,
		Messages: []*sdk.PromptMessage{
			{Role: "user", Content: &sdk.TextContent{Text: text}},
			{Role: "user", Content: &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: IncidentURI(source, id), MIMEType: "application/json", Text: string(latest)}}},
		},
	}, nil
}
