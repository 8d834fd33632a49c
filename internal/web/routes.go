package web

import "net/http"

// routes registers every route the server answers: this is the one place to read what it
// serves. public routes skip authentication; private ones require it when web.auth is set.
func (s *Server) routes() {
	public := func(pattern string, h http.HandlerFunc) { s.mux.Handle(pattern, h) }
	private := func(pattern string, h http.Handler) { s.mux.Handle(pattern, s.requireAuth(h)) }

	// Ops. /healthz is never behind auth: systemd, load balancers and uptime checks call
	// it without credentials (SPEC §6).
	public("GET /healthz", s.healthz)
	if s.metrics != nil {
		private("GET /metrics", s.metrics)
	}

	// JSON API (SPEC §6 "HTTP"), one handler per file.
	private("GET /api/v1/sources", http.HandlerFunc(s.listSources))
	private("POST /api/v1/sources/{name}/poll", http.HandlerFunc(s.pollSource))
	private("GET /api/v1/sources/{source}/snapshots", http.HandlerFunc(s.snapshot))
	private("GET /api/v1/incidents", http.HandlerFunc(s.listIncidents))
	private("GET /api/v1/incidents/{source}/{id}", http.HandlerFunc(s.incident))
	private("GET /api/v1/incidents/{source}/{id}/versions", http.HandlerFunc(s.listVersions))
	private("GET /api/v1/incidents/{source}/{id}/versions/{n}", http.HandlerFunc(s.version))
	private("GET /api/v1/incidents/{source}/{id}/at", http.HandlerFunc(s.versionAt))
	private("GET /api/v1/incidents/{source}/{id}/diff", http.HandlerFunc(s.diff))
	private("GET /api/v1/backup", http.HandlerFunc(s.backup))
	// The outbox, for `watcher outbox` while the daemon holds the archive (an addition to
	// the SPEC's table).
	private("GET /api/v1/outbox", http.HandlerFunc(s.listOutbox))
	private("POST /api/v1/outbox/{id}/retry", http.HandlerFunc(s.retryMessage))
	private("POST /api/v1/outbox/{id}/drop", http.HandlerFunc(s.dropMessage))

	// UI (SPEC §6 "UI"), a later issue, goes here, private like the API:
	//	GET /{$}                                  sources, open incidents, recent changes
	//	GET /sources/{source}
	//	GET /incidents/{source}/{id}              the incident now, its history by day
	//	GET /incidents/{source}/{id}/changes/{n}  the change that made version n
	//	GET /incidents/{source}/{id}/diff         ?from=&to=
	//	GET /search                               ?q=
	//	GET /feed.atom, GET /sources/{source}/feed.atom
	// ui_url fields already point at /incidents/{source}/{id}. Until then, unrouted paths
	// answer a JSON 404 (see Server.unrouted).
}
