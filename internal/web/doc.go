// Package web is the HTTP side of `watcher run`: the UI and the JSON API, the Atom feeds,
// /healthz, /metrics and /mcp (the Model Context Protocol, internal/mcp), on one
// http.Server with timeouts and a bounded graceful shutdown. It is the only package that serves HTTP; every route is registered in
// routes.go, one handler per file: the API's here, the pages' and feeds' in internal/web/ui.
//
// # The UI
//
// Pages (internal/web/ui) are rendered on the server with html/template from templates
// embedded in ui/templates and parsed once; one stylesheet and one small script (ui/static) are
// embedded too, linked with a hash of their content. Every page works without script;
// the script only submits the compare form when a version is picked and binds the arrow
// keys to the previous and next change. Every HTML answer carries a
// Content-Security-Policy that allows our own script and stylesheet only (no inline
// script or style anywhere, so the templates use no style attribute). Vendor text is
// data: it is escaped by the templates, vendor HTML and rendered markdown go through a
// tight bluemonday policy (internal/web/vendortext), and a change set is rendered by diff.HTML.
// Times show in UTC with a hint of how long ago ("3h ago"), computed from Options.Now.
// Pages are linked under the path of BaseURL, so the UI works behind a proxy that
// serves it under a path. A browser asking for a path that no route serves gets an HTML
// error page; other clients get the JSON error of the API.
//
//	/                                    sources and their state, open incidents, latest changes
//	/sources/{source}                    a vendor: figures, 90-day timeline (SVG), components, incidents
//	/incidents/{source}/{id}             the incident now, its history by day (?before= pages it)
//	/incidents/{source}/{id}/changes/{n} the change that made version n, Before / After
//	/incidents/{source}/{id}/diff        any two versions (?from=&to=)
//	/search?q=                           every word in title, updates or postmortem
//	/feed.atom, /sources/{source}/feed.atom  the latest changes as Atom entries
//
// # Conventions of the JSON API
//
// Every response is JSON (Content-Type application/json; charset=utf-8) except /healthz
// (text), /metrics (Prometheus) and /api/v1/backup (the archive file). Times are RFC 3339
// in UTC, with a fraction of a second only when the time has one, so a time read from one
// answer can be passed back as ?time= or ?at= exactly; a time that is not given is null.
// Time parameters take RFC 3339 (a "+" that a URL decoded to a space is accepted).
// Incident ids in paths and answers are URL ids (model.URLID); "provider_id" carries the
// vendor's own id. Errors are {"error": "..."}: 400 for a bad parameter, 401 without valid
// credentials, 403 for a cross-origin browser POST, 404 for an unknown source, incident,
// version or endpoint, 405 (with Allow) for a wrong method, 502 when a poll's fetch failed,
// 500 when the archive cannot be read (details are logged, not returned).
//
// # Lists and paging
//
// GET /api/v1/incidents, GET /api/v1/incidents/{source}/{id}/versions, GET
// /api/v1/sources/{source}/components/history (oldest first) and GET
// /api/v1/outbox (oldest first, by message id) take limit
// (default 100; above the maximum of 1000 it is clamped to 1000, not refused, so a client
// that asks for "everything" still pages correctly) and before, an opaque cursor. When
// there is a next page, the answer carries it twice: in an X-Next-Cursor header (the bare
// cursor, for scripts) and in a Link header, `</api/v1/...?before=...>; rel="next"`, a
// root-relative URL with the request's other parameters kept. No header means the last
// page. Cursors are keyset positions, not offsets: a page never repeats or skips an item
// because something was archived meanwhile. A cursor of one list is refused (400) by the
// other. Incidents are listed newest first by started_at (else scheduled_for, else the
// time the incident was first archived), then by id and source, descending; versions
// newest first.
//
// Pages are bounded too, whatever the archive holds: a timeline bar names the 5 worst
// incidents of its day and "and N more", the dashboard shows at most 50 open incidents and
// 50 maintenance cards ("and N more"), search the newest 100 matches, a feed its latest
// entries. The routes that read every archived incident (the dashboard, a source page,
// search, the feeds, the incident and outbox lists) run at most two at a time, the others
// waiting their turn, so memory stays bounded however many viewers come.
//
// # Components
//
// GET /api/v1/sources/{source}/components lists the components of the source's latest
// component set, by group then name: name, group ("" for none), status (one of
// operational, maintenance, degraded, partial_outage, major_outage), status_raw (the
// provider's word) and since (when it entered that status as the archive saw it). ?at=T
// gives the set in force at T, [] before the first. GET …/components/history?from=&to=
// lists the status changes observed in [from, to), oldest first: component, from, to
// (null for a component new to the page, or gone from it) and at; the first set read
// is no change. Both are [] for a known source with no component set, 404 for an
// unknown one. GET /api/v1/sources adds, for a source with a set, page_status,
// page_description, components and components_not_operational.
//
// A source page lists the components by group with their state and a 90-day strip of
// what was observed: a segment per run of days in the same worst state, so a component
// that never changed costs one rectangle, and strips for the first 100 components only
// (the page says so), which keeps a page of hundreds of flapping components under a
// megabyte. The dashboard flags a source with no incident open whose components are not
// all operational ("Degraded, no incident"), sorted before the operational ones.
//
// # Raw snapshots
//
// GET /api/v1/sources/{source}/snapshots?at=T returns each body as fetched in "data": a
// JSON string when the bytes are valid UTF-8 ("encoding": "utf-8"), else standard base64
// ("encoding": "base64"; AWS's UTF-16 currentevents is one). A body whose bytes were never
// archived (it was byte-identical to an earlier one that changed nothing) has "data": null
// and no encoding. at defaults to now.
//
// # Security
//
// When config.Auth is enabled every route but /healthz needs "Authorization: Bearer
// <token>" or HTTP basic credentials, compared in constant time; otherwise 401 with
// WWW-Authenticate: Basic realm="statuswatch". Every response carries nosniff,
// no-referrer and X-Frame-Options DENY. Unsafe methods from a cross-origin browser
// context are refused (net/http's CrossOriginProtection), since a browser sends basic
// credentials, and reaches a loopback daemon, on behalf of any page.
//
// Without config.Auth, a request is answered only when its Host is localhost, a loopback
// address, the address the connection came in on, or the host of listen or base_url;
// any other host gets 421 with the reason. That stops DNS rebinding, a web page whose own
// name the attacker points at 127.0.0.1 to read the API. /healthz answers any host, and
// with config.Auth every host is answered (the credentials are the defence). The server
// holds at most 512 connections; one accepted at the limit closes the connection idle
// the longest, so idle keep-alive connections cannot use up the file descriptors and lock
// /healthz out.
package web
