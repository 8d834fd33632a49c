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

	"github.com/statuswatch/statuswatch/internal/api"
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
	t.registerStats(srv)
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "related_incidents",
		Title: "Is it the cloud? Related incidents",
		Description: "Lists the incidents of other sources related to an incident: at the same time (overlapping, or started " +
			"within correlation.window of each other) and sharing evidence, a provider, region or technology both name " +
			"(us-east-1, GCP, DNS, load balancer, …) or a depends_on link of the config. Each has its reasons, e.g. " +
			"\"same term: us-east-1\", \"started 7m apart\". Empty when the incident looks like the vendor's own.",
		Annotations:  readOnly,
		InputSchema:  inputSchema[relatedInput](nil),
		OutputSchema: outputSchema[relatedOutput](),
	}, t.related)
	sdk.AddTool(srv, &sdk.Tool{
		Name:  "list_events",
		Title: "Cross-vendor events",
		Description: "Lists the cross-vendor events, newest first: connected groups of related incidents of two or more " +
			"sources (see related_incidents), each with its id, start, end (null while one is open), sources, incidents " +
			"and the terms they share. from and to keep the events under way between them.",
		Annotations:  readOnly,
		InputSchema:  inputSchema[eventsInput](map[string]bound{"limit": {1, maxEvents, defaultEvents}}),
		OutputSchema: outputSchema[eventsOutput](),
	}, t.events)

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
