// Package mcp serves the archive to AI tools over the Model Context Protocol, with the
// official Go SDK: read-only tools (list_sources, search_incidents, get_incident,
// list_versions, diff_incident), each incident as a resource
// (statuswatch://incident/{source}/{id}) and a prompt that asks for a summary of what a
// vendor changed in an incident. The tools read the JSON API (API), so their results are
// the API's own shapes (internal/api) and its own answers: `watcher mcp` serves them on
// stdio, the web server at /mcp.
package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Limits of the lists the tools return: a default a model gets without asking, and a
// maximum, so that one answer stays within what a model can read.
const (
	defaultSearch = 20
	maxSearch     = 100
	defaultVers   = 100
	maxVers       = 1000

	// searchPage is how many incidents search_incidents asks of the API at a time.
	searchPage = 200
)

// Options configure a server.
type Options struct {
	// Version is the server's version as it introduces itself; empty uses the module's.
	Version string
	// Log receives the SDK's own log lines; nil discards.
	Log *slog.Logger
}

// NewServer returns an MCP server whose tools, resources and prompt read a.
func NewServer(a API, o Options) *sdk.Server {
	if o.Version == "" {
		o.Version = "devel"
		if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
			o.Version = info.Main.Version
		}
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "statuswatch", Title: "statuswatch archive", Version: o.Version},
		&sdk.ServerOptions{
			Instructions: "statuswatch archives every version of every incident of the vendor status pages it watches. " +
				"Find incidents with search_incidents, read one with get_incident (any past version with version or at), " +
				"list its versions with list_versions and see what the vendor changed between two versions with diff_incident. " +
				"Ids are the source names of list_sources and the incident ids search_incidents returns; times are RFC 3339.",
			Logger: o.Log,
		})
	t := &tools{api: a}
	t.register(srv)
	return srv
}

// HTTPHandler serves srv over Streamable HTTP, stateless with plain JSON answers: every
// tool is a single read, so no session is kept and no stream is held open (GET and DELETE
// answer 405), and a daemon serving many clients holds nothing for them between calls.
//
// The SDK's own DNS-rebinding check is off: it refuses every request that reaches a
// loopback address for another host name, which is every request a reverse proxy on the
// same machine forwards. The web server's Host check (internal/web/guard.go) does that
// job for /mcp as for every route, knowing the names listen and base_url allow.
func HTTPHandler(srv *sdk.Server, log *slog.Logger) http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: log, DisableLocalhostProtection: true})
}

// tools holds the handlers of the tools, resources and prompt.
type tools struct{ api API }

// readOnly marks every tool: none of them changes anything, and each reads only the
// archive, never the vendors' pages.
var readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}

func (t *tools) register(srv *sdk.Server) {
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "list_sources",
		Title: "List the watched status pages",
		Description: "Lists the sources: the vendor status pages statuswatch watches (configured ones first, then retired ones " +
			"whose archive is kept), with the name every other tool takes as source, their kind, poll state and how many " +
			"incidents are archived. Poll state is known while the daemon runs; read from the archive file alone it is null.",
		Annotations:  readOnly,
		OutputSchema: outputSchema[sourcesOutput](),
	}, t.listSources)
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "search_incidents",
		Title: "Search archived incidents",
		Description: "Searches the archived incidents, newest first (by start time), in their latest version. Each result has " +
			"the source and id that get_incident, list_versions and diff_incident take, and versions, the number of " +
			"versions archived. Results are paged: pass next_cursor back as cursor for the next page.",
		Annotations:  readOnly,
		InputSchema:  inputSchema[searchInput](map[string]bound{"limit": {1, maxSearch, defaultSearch}}),
		OutputSchema: outputSchema[searchOutput](),
	}, t.search)
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "get_incident",
		Title: "Read an incident",
		Description: "Returns one version of an incident: its title, status, impact, times, components, every update " +
			"and the postmortem, as the vendor's page said it then. Without version or at it is the latest version; " +
			"version picks version N (1 is the first seen), at the version in force at a time. Updates' bodies and the " +
			"postmortem are in their format (text, markdown or html).",
		Annotations:  readOnly,
		InputSchema:  inputSchema[incidentInput](map[string]bound{"version": {1, -1, 0}}),
		OutputSchema: outputSchema[api.Incident](),
	}, t.incident)
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "list_versions",
		Title: "List an incident's versions",
		Description: "Lists the versions of an incident, newest first: each version's number, when it was observed and a " +
			"one-line summary of what changed from the version before (version 1 is the incident's first sight). " +
			"Pass next_cursor back as cursor for older versions.",
		Annotations:  readOnly,
		InputSchema:  inputSchema[versionsInput](map[string]bound{"limit": {1, maxVers, defaultVers}}),
		OutputSchema: outputSchema[versionsOutput](),
	}, t.versions)
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "diff_incident",
		Title: "What the vendor changed",
		Description: "Compares two versions of an incident field by field: each change has the field, its text before and " +
			"after (null: not present, or removed) and, for text, a word diff as ops (equal, insert, delete). By default " +
			"it is the latest change (the version before the latest → the latest); from 0 is \"not present\", so from 0 " +
			"to N lists every field of version N. This is how to see what a vendor edited silently, or what a postmortem added.",
		Annotations:  readOnly,
		InputSchema:  inputSchema[diffInput](map[string]bound{"from": {0, -1, 0}, "to": {0, -1, 0}}),
		OutputSchema: outputSchema[api.Diff](),
	}, t.diff)

	srv.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "incident",
		Title:       "An archived incident",
		Description: "The latest version of an incident, as get_incident returns it (JSON).",
		URITemplate: "statuswatch://incident/{source}/{id}",
		MIMEType:    "application/json",
	}, t.readIncident)

	srv.AddPrompt(&sdk.Prompt{
		Name:        "summarise_changes",
		Title:       "Summarise what the vendor changed",
		Description: "Asks for a summary of what a vendor changed in an incident, version by version.",
		Arguments: []*sdk.PromptArgument{
			{Name: "source", Description: "the source's name, as list_sources gives it", Required: true},
			{Name: "id", Description: "the incident's id, as search_incidents gives it", Required: true},
		},
	}, t.summarise)
}

// Field descriptions are what a model reads to call a tool: they say the form of each
// value and where to find it.
const (
	sourceDesc = "the source's name, as list_sources gives it (e.g. \"github\")"
	idDesc     = "the incident's id exactly as search_incidents gives it"
	cursorDesc = "the next_cursor of the previous page, to get the next one; omit for the first page"
)

type searchInput struct {
	Query  string `json:"query" jsonschema:"words that must all occur, ignoring case, in the title, an update or the postmortem (a word matches inside a longer one); empty matches every incident"`
	Source string `json:"source,omitempty" jsonschema:"only this source's incidents: a name as list_sources gives it"`
	Open   *bool  `json:"open,omitempty" jsonschema:"true: only incidents still open (unresolved and still on the vendor's page); false: only the others; omit for both"`
	Since  string `json:"since,omitempty" jsonschema:"an RFC 3339 time (e.g. 2026-07-01T00:00:00Z): only incidents that started, were resolved or changed at or after it, or are still open"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many incidents to return at most"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the next_cursor of the previous page, to get the next one; omit for the first page"`
}

type searchOutput struct {
	Incidents  []api.IncidentItem `json:"incidents" jsonschema:"the matching incidents, newest first, in their latest version"`
	NextCursor string             `json:"next_cursor,omitempty" jsonschema:"present when there are more: pass it as cursor"`
}

type sourcesOutput struct {
	Sources []api.Source `json:"sources" jsonschema:"the configured sources in config order, then the retired ones by name"`
}

type incidentInput struct {
	Source  string `json:"source" jsonschema:"the source's name, as list_sources gives it (e.g. \"github\")"`
	ID      string `json:"id" jsonschema:"the incident's id exactly as search_incidents gives it"`
	Version int    `json:"version,omitempty" jsonschema:"a version number, 1 for the first seen (list_versions lists them); omit for the latest"`
	At      string `json:"at,omitempty" jsonschema:"an RFC 3339 time (e.g. 2026-07-01T14:05:00Z): the version in force then, the last one observed at or before it; not with version"`
}

type versionsInput struct {
	Source string `json:"source" jsonschema:"the source's name, as list_sources gives it (e.g. \"github\")"`
	ID     string `json:"id" jsonschema:"the incident's id exactly as search_incidents gives it"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many versions to return at most"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the next_cursor of the previous page, to get the next one; omit for the first page"`
}

type versionsOutput struct {
	Versions   []api.Version `json:"versions" jsonschema:"the versions, newest first"`
	NextCursor string        `json:"next_cursor,omitempty" jsonschema:"present when there are older versions: pass it as cursor"`
}

type diffInput struct {
	Source string `json:"source" jsonschema:"the source's name, as list_sources gives it (e.g. \"github\")"`
	ID     string `json:"id" jsonschema:"the incident's id exactly as search_incidents gives it"`
	From   *int   `json:"from,omitempty" jsonschema:"the earlier version's number; 0 is \"not present\"; omit for the one before to"`
	To     *int   `json:"to,omitempty" jsonschema:"the later version's number; omit for the latest"`
}

func (t *tools) listSources(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, sourcesOutput, error) {
	out := sourcesOutput{Sources: []api.Source{}}
	if _, err := t.api.Get(ctx, "/sources", nil, &out.Sources); err != nil {
		return nil, out, fmt.Errorf("list_sources: %w", err)
	}
	return nil, out, nil
}

// searchCursor is where a page of search_incidents ends: the API's cursor of the page of
// searchPage incidents it was cut from ("" for the first) and how many of that page's
// incidents come before it.
type searchCursor struct {
	Before string `json:"b,omitempty"`
	Skip   int    `json:"s,omitempty"`
}

func (t *tools) search(ctx context.Context, _ *sdk.CallToolRequest, in searchInput) (*sdk.CallToolResult, searchOutput, error) {
	out := searchOutput{Incidents: []api.IncidentItem{}}
	var since time.Time
	if in.Since != "" {
		var err error
		if since, err = parseTime("since", in.Since); err != nil {
			return nil, out, err
		}
	}
	var cur searchCursor
	if in.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(in.Cursor)
		if err != nil || json.Unmarshal(b, &cur) != nil || cur.Skip < 0 || cur.Skip >= searchPage {
			return nil, out, errors.New("cursor: not a next_cursor of search_incidents; omit it for the first page")
		}
	}
	limit := clamp(in.Limit, defaultSearch, maxSearch)
	q := url.Values{"limit": {strconv.Itoa(searchPage)}}
	if in.Query != "" {
		q.Set("q", in.Query)
	}
	if in.Source != "" {
		q.Set("source", in.Source)
	}
	if in.Open != nil {
		q.Set("open", strconv.FormatBool(*in.Open))
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, out, err
		}
		q.Del("before")
		if cur.Before != "" {
			q.Set("before", cur.Before)
		}
		var page []api.IncidentItem
		next, err := t.api.Get(ctx, "/incidents", q, &page)
		if err != nil {
			if apiStatus(err) == http.StatusNotFound && in.Source != "" {
				return nil, out, fmt.Errorf("unknown source %q: list_sources names the sources", in.Source)
			}
			if apiStatus(err) == http.StatusBadRequest && cur.Before != "" {
				return nil, out, errors.New("cursor: not a next_cursor of search_incidents; omit it for the first page")
			}
			return nil, out, fmt.Errorf("search_incidents: %w", err)
		}
		for i := cur.Skip; i < len(page); i++ {
			if !since.IsZero() && !activeSince(&page[i], since) {
				continue
			}
			if len(out.Incidents) == limit {
				out.NextCursor = encodeCursor(searchCursor{cur.Before, i})
				return nil, out, nil
			}
			out.Incidents = append(out.Incidents, page[i])
		}
		if next == "" {
			return nil, out, nil
		}
		cur = searchCursor{Before: next}
	}
}

// activeSince reports whether an incident started, was resolved or changed at or after
// since, or is still open: whether it concerns anyone asking about the time since.
func activeSince(in *api.IncidentItem, since time.Time) bool {
	for _, at := range []api.Time{in.StartedAt, in.ResolvedAt, in.LastChangedAt} {
		if !time.Time(at).Before(since) {
			return true
		}
	}
	return in.Status.Open() && !in.Removed && in.Kind != model.KindMaintenance
}

func encodeCursor(c searchCursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (t *tools) incident(ctx context.Context, _ *sdk.CallToolRequest, in incidentInput) (*sdk.CallToolResult, *api.Incident, error) {
	if err := ref(in.Source, in.ID); err != nil {
		return nil, nil, err
	}
	base := incidentPath(in.Source, in.ID)
	path, q := base, url.Values(nil)
	switch {
	case in.Version != 0 && in.At != "":
		return nil, nil, errors.New("give version or at, not both")
	case in.Version != 0:
		path = base + "/versions/" + strconv.Itoa(in.Version)
	case in.At != "":
		at, err := parseTime("at", in.At)
		if err != nil {
			return nil, nil, err
		}
		path, q = base+"/at", url.Values{"time": {at.Format(api.TimeLayout)}}
	}
	var out api.Incident
	if _, err := t.api.Get(ctx, path, q, &out); err != nil {
		return nil, nil, incidentError(in.Source, in.ID, err)
	}
	return nil, &out, nil
}

func (t *tools) versions(ctx context.Context, _ *sdk.CallToolRequest, in versionsInput) (*sdk.CallToolResult, versionsOutput, error) {
	out := versionsOutput{Versions: []api.Version{}}
	if err := ref(in.Source, in.ID); err != nil {
		return nil, out, err
	}
	q := url.Values{"limit": {strconv.Itoa(clamp(in.Limit, defaultVers, maxVers))}}
	if in.Cursor != "" {
		q.Set("before", in.Cursor)
	}
	next, err := t.api.Get(ctx, incidentPath(in.Source, in.ID)+"/versions", q, &out.Versions)
	if err != nil {
		if apiStatus(err) == http.StatusBadRequest && in.Cursor != "" {
			return nil, out, errors.New("cursor: not a next_cursor of list_versions; omit it for the first page")
		}
		return nil, out, incidentError(in.Source, in.ID, err)
	}
	out.NextCursor = next
	return nil, out, nil
}

func (t *tools) diff(ctx context.Context, _ *sdk.CallToolRequest, in diffInput) (*sdk.CallToolResult, *api.Diff, error) {
	if err := ref(in.Source, in.ID); err != nil {
		return nil, nil, err
	}
	q := url.Values{}
	for name, v := range map[string]*int{"from": in.From, "to": in.To} {
		if v == nil {
			continue
		}
		q.Set(name, strconv.Itoa(*v))
	}
	var out api.Diff
	if _, err := t.api.Get(ctx, incidentPath(in.Source, in.ID)+"/diff", q, &out); err != nil {
		return nil, nil, incidentError(in.Source, in.ID, err)
	}
	if out.Changes == nil {
		out.Changes = []api.Change{}
	}
	return nil, &out, nil
}

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
	if err := ref(source, id); err != nil {
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

func incidentPath(source, id string) string {
	return "/incidents/" + url.PathEscape(source) + "/" + url.PathEscape(id)
}

// ref checks a source and an incident id are given.
func ref(source, id string) error {
	switch {
	case source == "":
		return errors.New("source: required, a name as list_sources gives it")
	case id == "":
		return errors.New("id: required, an incident id as search_incidents gives it")
	}
	return nil
}

// incidentError is the tool error for an API error about source/id: the API's message,
// with where to look when the incident or version is unknown.
func incidentError(source, id string, err error) error {
	switch apiStatus(err) {
	case http.StatusNotFound:
		return fmt.Errorf("%s/%s: %v (list_sources names the sources, search_incidents gives incident ids, list_versions the versions)", source, id, err)
	case http.StatusBadRequest:
		return fmt.Errorf("%s/%s: %v", source, id, err)
	}
	return fmt.Errorf("%s/%s: %w", source, id, err)
}

// apiStatus is the HTTP status of an API error answer, 0 for another error.
func apiStatus(err error) int {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Status
	}
	return 0
}

// parseTime reads an RFC 3339 time for the argument name.
func parseTime(name, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q is not an RFC 3339 time such as 2026-07-01T14:05:00Z", name, s)
	}
	return t, nil
}

func clamp(n, def, most int) int {
	if n <= 0 {
		return def
	}
	return min(n, most)
}

// bound is the minimum, maximum (-1: none) and default (0: none) of a number argument.
type bound struct{ min, max, def int }

// timeSchema is the schema of api.Time: an RFC 3339 string, or null for "not given".
var timeSchema = &jsonschema.Schema{Types: []string{"null", "string"}, Description: "RFC 3339 time in UTC; null when not given"}

var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[api.Time](): timeSchema}}

// outputSchema is the schema of a tool's result type T.
func outputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %T: %v", *new(T), err)) // a programming error
	}
	return s
}

// inputSchema is the schema of a tool's arguments T, with the bounds of its numbers.
func inputSchema[T any](bounds map[string]bound) *jsonschema.Schema {
	s, err := jsonschema.For[T](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %T: %v", *new(T), err))
	}
	for name, b := range bounds {
		p := s.Properties[name]
		if p == nil {
			panic("mcp: no argument " + name)
		}
		p.Minimum = new(float64(b.min))
		if b.max >= 0 {
			p.Maximum = new(float64(b.max))
		}
		if b.def > 0 {
			p.Default = json.RawMessage(strconv.Itoa(b.def))
		}
	}
	return s
}
