// Package mcp serves the archive to AI tools over the Model Context Protocol, with the
// official Go SDK: read-only tools (list_sources, search_incidents, get_incident,
// list_versions, diff_incident), each incident as a resource
// (statuswatch://incident/{source}/{id}) and a prompt that asks for a summary of what a
// vendor changed in an incident. The tools read the JSON API (API), so their results are
// the API's own shapes (internal/api) and its own answers: `watcher mcp` serves them on
// stdio, the web server at /mcp.
package mcp

import (
	"log/slog"
	"net/http"
	"runtime/debug"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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

// toolSpec is a tool of the table register adds: every tool is read-only (readOnly), and
// its schemas are those of its handler's argument and result types, with bounds on the
// numbers of its arguments.
type toolSpec struct {
	name, title, description string
	bounds                   map[string]bound
	add                      func(*sdk.Server, *sdk.Tool, map[string]bound)
}

// handler makes the add of a toolSpec from its handler.
func handler[In, Out any](h sdk.ToolHandlerFor[In, Out]) func(*sdk.Server, *sdk.Tool, map[string]bound) {
	return func(srv *sdk.Server, tool *sdk.Tool, bounds map[string]bound) {
		tool.Annotations, tool.InputSchema, tool.OutputSchema = readOnly, inputSchema[In](bounds), outputSchema[Out]()
		sdk.AddTool(srv, tool, h)
	}
}

// toolSpecs is every tool, in the order tools/list gives them.
func (t *tools) toolSpecs() []toolSpec {
	return []toolSpec{
		{name: "list_sources", title: "List the watched status pages", add: handler(t.listSources),
			description: "Lists the sources: the vendor status pages statuswatch watches (configured ones first, then retired ones whose archive is kept), with the name every other tool takes as source, their kind, poll state and how many incidents are archived. Poll state is known while the daemon runs; read from the archive file alone it is null."},
		{name: "search_incidents", title: "Search archived incidents", add: handler(t.search), bounds: map[string]bound{"limit": {1, maxSearch, defaultSearch}},
			description: "Searches the archived incidents, newest first (by start time), in their latest version. Each result has the source and id that get_incident, list_versions and diff_incident take, and versions, the number of versions archived. Results are paged: pass next_cursor back as cursor for the next page."},
		{name: "get_incident", title: "Read an incident", add: handler(t.incident), bounds: map[string]bound{"version": {1, -1, 0}},
			description: "Returns one version of an incident: its title, status, impact, times, components, every update and the postmortem, as the vendor's page said it then. Without version or at it is the latest version; version picks version N (1 is the first seen), at the version in force at a time. Updates' bodies and the postmortem are in their format (text, markdown or html)."},
		{name: "list_versions", title: "List an incident's versions", add: handler(t.versions), bounds: map[string]bound{"limit": {1, maxVers, defaultVers}},
			description: "Lists the versions of an incident, newest first: each version's number, when it was observed and a one-line summary of what changed from the version before (version 1 is the incident's first sight). Pass next_cursor back as cursor for older versions."},
		{name: "diff_incident", title: "What the vendor changed", add: handler(t.diff), bounds: map[string]bound{"from": {0, -1, 0}, "to": {0, -1, 0}},
			description: "Compares two versions of an incident field by field: each change has the field, its text before and after (null: not present, or removed) and, for text, a word diff as ops (equal, insert, delete). By default it is the latest change (the version before the latest → the latest); from 0 is \"not present\", so from 0 to N lists every field of version N. This is how to see what a vendor edited silently, or what a postmortem added."},
		{name: "source_stats", title: "How fast and how honest a vendor is", add: handler(t.sourceStats), bounds: map[string]bound{"days": {1, maxStatsDays, defaultStatsDays}},
			description: "Returns a source's vendor figures over the incidents (not maintenances) that started in the last days: how many by impact and how many are open, time to resolve (median and p90), how long after the start the archive first saw an incident and the vendor posted its first update, postmortem count, rate and delay after resolution, and the edits the vendor made after posting (updates edited or removed, titles changed, starts backdated, impact lowered after resolution, incidents removed). Durations are in seconds; null where there is no data."},
		{name: "related_incidents", title: "Is it the cloud? Related incidents", add: handler(t.related),
			description: "Lists the incidents of other sources related to an incident: at the same time (overlapping, or started within correlation.window of each other) and sharing evidence, a provider, region or technology both name (us-east-1, GCP, DNS, load balancer, …) or a depends_on link of the config. Each has its reasons, e.g. \"same term: us-east-1\", \"started 7m apart\". Empty when the incident looks like the vendor's own."},
		{name: "list_events", title: "Cross-vendor events", add: handler(t.events), bounds: map[string]bound{"limit": {1, maxEvents, defaultEvents}},
			description: "Lists the cross-vendor events, newest first: connected groups of related incidents of two or more sources (see related_incidents), each with its id, start, end (null while one is open), sources, incidents and the terms they share. from and to keep the events under way between them."},
	}
}

func (t *tools) register(srv *sdk.Server) {
	for _, ts := range t.toolSpecs() {
		ts.add(srv, &sdk.Tool{Name: ts.name, Title: ts.title, Description: ts.description}, ts.bounds)
	}

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
