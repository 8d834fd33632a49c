package web

import "net/http"

// routes registers every route the server answers: this is the one place to read what it
// serves. public routes skip authentication; private ones require it when web.auth is set.
func (s *Server) routes() {
	public := func(pattern string, h http.HandlerFunc) {
		s.patterns = append(s.patterns, pattern)
		s.mux.Handle(pattern, h)
	}
	private := func(pattern string, h http.Handler) {
		s.patterns = append(s.patterns, pattern)
		s.mux.Handle(pattern, s.requireAuth(h))
	}

	// Ops. /healthz is never behind auth, nor behind the Host check (guard.go): systemd,
	// load balancers and uptime checks call it without credentials, by any name.
	public("GET /healthz", s.healthz)
	if s.metrics != nil {
		private("GET /metrics", s.metrics)
	}

	// JSON API, one handler per file named after its concept (sources.go, incident.go,
	// diff.go, …); the JSON shapes are in internal/api. wholeArchive marks the routes that read every
	// archived incident: a few of them run at a time (guard.go).
	private("GET /api/v1/sources", http.HandlerFunc(s.listSources))
	private("GET /api/v1/sources/{source}", s.wholeArchive(ofSource(s.source)))
	private("POST /api/v1/sources/{name}/poll", http.HandlerFunc(s.pollSource))
	private("GET /api/v1/sources/{source}/stats", s.wholeArchive(ofSource(s.sourceStats)))
	private("GET /api/v1/stats", s.wholeArchive(s.allStats))
	// The push hook (hook.go): public, as a vendor's webhook cannot send web.auth's
	// credentials; the token in the path is its own.
	public("POST /api/v1/sources/{name}/hook/{token}", s.hook)
	private("GET /api/v1/sources/{source}/snapshots", ofSource(s.snapshot))
	private("GET /api/v1/sources/{source}/components", ofSource(s.listComponents))
	private("GET /api/v1/sources/{source}/components/history", ofSource(s.componentHistory))
	private("GET /api/v1/incidents", s.wholeArchive(s.listIncidents))
	private("GET /api/v1/incidents/{source}/{id}", ofIncident(s.incident))
	private("GET /api/v1/incidents/{source}/{id}/versions", ofIncident(s.listVersions))
	private("GET /api/v1/incidents/{source}/{id}/versions/{n}", ofIncident(s.version))
	private("GET /api/v1/incidents/{source}/{id}/at", ofIncident(s.versionAt))
	private("GET /api/v1/incidents/{source}/{id}/diff", ofIncident(s.diff))
	private("GET /api/v1/incidents/{source}/{id}/export", ofIncident(s.exportIncident))
	// Related incidents and cross-vendor events (events.go), computed from every archived
	// incident.
	private("GET /api/v1/incidents/{source}/{id}/related", s.wholeArchive(ofIncident(s.related)))
	private("GET /api/v1/events", s.wholeArchive(s.listEvents))
	private("GET /api/v1/events/{id}", s.wholeArchive(s.event))
	private("GET /api/v1/backup", http.HandlerFunc(s.backup))
	// The OpenAPI document of every route above: openapi_test.go fails on one missing.
	private("GET /api/v1/openapi.json", http.HandlerFunc(s.openAPI))
	// The outbox, for `watcher outbox` while the daemon holds the archive.
	private("GET /api/v1/outbox", s.wholeArchive(s.listOutbox))
	private("POST /api/v1/outbox/{id}/retry", http.HandlerFunc(s.retryMessage))
	private("POST /api/v1/outbox/{id}/drop", http.HandlerFunc(s.dropMessage))

	// MCP (internal/mcp): AI tools read the archive over Streamable HTTP, every method
	// on one path; its tools read the API above in process (mcp.go).
	private("/mcp", s.mcp)

	// UI, server-rendered by internal/web/ui, one handler per file named after its page
	// there (incident.go, beside the API's incident.go here), private like the API. Every
	// page is linked under the path of BaseURL.
	private("GET /{$}", s.wholeArchive(s.ui.Dashboard))
	private("GET /sources/{source}", s.wholeArchive(s.ui.Source))
	private("GET /incidents/{source}/{id}", http.HandlerFunc(s.ui.Incident))
	private("GET /incidents/{source}/{id}/changes/{n}", http.HandlerFunc(s.ui.Change))
	private("GET /incidents/{source}/{id}/diff", http.HandlerFunc(s.ui.Compare))
	private("GET /search", s.wholeArchive(s.ui.Search))
	private("GET /stats", s.wholeArchive(s.ui.Stats))
	private("GET /events", s.wholeArchive(s.ui.Events))
	private("GET /events/{id}", s.wholeArchive(s.ui.Event))
	private("GET /feed.atom", s.wholeArchive(s.ui.Feed))
	private("GET /sources/{source}/feed.atom", s.wholeArchive(s.ui.Feed))
	// The maintenance calendar (maintenance.go), iCalendar for calendar subscriptions.
	private("GET /maintenance.ics", s.wholeArchive(ofSource(s.maintenanceCalendar)))
	private("GET /sources/{source}/maintenance.ics", s.wholeArchive(ofSource(s.maintenanceCalendar)))
	private("GET /static/{file}", http.HandlerFunc(s.ui.Static))
}

// ofIncident serves a route under /incidents/{source}/{id} with h, given the two.
func ofIncident(h func(w http.ResponseWriter, r *http.Request, source, id string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { h(w, r, r.PathValue("source"), r.PathValue("id")) }
}

// ofSource serves a route with a {source} with h, given it ("" on a route without one).
func ofSource(h func(w http.ResponseWriter, r *http.Request, source string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { h(w, r, r.PathValue("source")) }
}
