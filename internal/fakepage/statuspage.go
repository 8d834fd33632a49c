// Package fakepage serves fake vendor status pages on loopback for tests, the fleet
// benchmark and the demo: a Statuspage page whose incidents and component states a test
// steps through their life, with strong ETags, real 304s and a log of every request.
package fakepage

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"
)

// Update is one Statuspage incident update as the page serves it.
type Update struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	DisplayAt time.Time `json:"display_at"`
}

// Incident is one Statuspage incident as the page serves it. Updates are listed newest
// first, as Statuspage does.
type Incident struct {
	ID                    string      `json:"id"`
	Name                  string      `json:"name"`
	Status                string      `json:"status"`
	Impact                string      `json:"impact"`
	CreatedAt             time.Time   `json:"created_at"`
	UpdatedAt             time.Time   `json:"updated_at"`
	StartedAt             time.Time   `json:"started_at"`
	ResolvedAt            *time.Time  `json:"resolved_at"`
	ScheduledFor          *time.Time  `json:"scheduled_for,omitempty"`
	ScheduledUntil        *time.Time  `json:"scheduled_until,omitempty"`
	Shortlink             string      `json:"shortlink,omitempty"`
	Components            []Component `json:"components"`
	Updates               []Update    `json:"incident_updates"`
	PostmortemBody        string      `json:"postmortem_body,omitempty"`
	PostmortemPublishedAt *time.Time  `json:"postmortem_published_at,omitempty"`
}

// Component is a Statuspage component reference.
type Component struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

// pageID is the fake page's Statuspage id.
const pageID = "fkpg0acme001"

// Transport answers requests by calling the page directly, without a socket: benchmarks
// measure our side of a poll, not the loopback stack's.
func (p *Statuspage) Transport() http.RoundTripper { return transport{p} }

type transport struct{ h http.Handler }

func (t transport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// Request is one request the page answered.
type Request struct {
	Path        string
	IfNoneMatch string
	UserAgent   string
	Status      int
}

// Statuspage is a fake Atlassian Statuspage page. Its zero value serves an empty page; use
// Set to change what it serves. Safe for concurrent use.
type Statuspage struct {
	Name   string // the page's name, in every body
	NoETag bool   // serve no ETag (as incident.io does), so clients must compare bodies

	mu sync.Mutex
	// incidents and maintenances are what Set gave, kept only until rendered: after
	// that the bodies are the one copy (lists reads them back), so a fleet of 10,000
	// pages holds each history once, as JSON, not also as structs.
	incidents    []Incident
	maintenances []Incident
	components   []PageComponent   // nil: the one operational API component
	bodies       map[string][]byte // path → body, rebuilt on Set (an incident's own is made on request)
	etags        map[string]string // path → strong ETag of its body, with bodies
	fail         int               // answer the next fail requests with 500
	sets         uint64            // calls of Set so far (Fleet.Reset skips pages not set since)
	log          []Request
}

// Set replaces the incidents and maintenances the page serves, newest first.
func (p *Statuspage) Set(incidents, maintenances []Incident) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sets++
	p.incidents = append([]Incident(nil), incidents...)
	p.maintenances = append([]Incident(nil), maintenances...)
	p.bodies = nil
	p.render() // now, so the cost never lands on a request a benchmark times
}

// setCount is how many times Set was called.
func (p *Statuspage) setCount() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sets
}

// served returns a copy of the incidents the page serves, newest first.
func (p *Statuspage) served() []Incident {
	p.mu.Lock()
	defer p.mu.Unlock()
	inc, _ := p.lists()
	return slices.Clone(inc)
}

// SetName renames the page, which changes the bytes of every body but no incident.
func (p *Statuspage) SetName(name string) {
	p.mu.Lock()
	p.rerender(func() { p.Name = name })
	p.mu.Unlock()
}

// FailNext makes the next n requests answer 500.
func (p *Statuspage) FailNext(n int) {
	p.mu.Lock()
	p.fail = n
	p.mu.Unlock()
}

// Requests returns the requests answered so far and forgets them.
func (p *Statuspage) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.log
	p.log = nil
	return out
}

// Paths of the bodies render makes.
const (
	incidentsJSON    = "/api/v2/incidents.json"
	maintenancesJSON = "/api/v2/scheduled-maintenances.json"
	incidentPrefix   = "/api/v2/incidents/"
)

// lists returns the incidents and maintenances the page serves, as Set gave them or,
// once rendered, read back from the bodies (the JSON round trip gives the same values
// and so the same bytes again). Called with p.mu held.
func (p *Statuspage) lists() (incidents, maintenances []Incident) {
	if p.bodies == nil {
		return p.incidents, p.maintenances
	}
	var inc struct {
		Incidents []Incident `json:"incidents"`
	}
	var mnt struct {
		Maintenances []Incident `json:"scheduled_maintenances"`
	}
	if json.Unmarshal(p.bodies[incidentsJSON], &inc) != nil || json.Unmarshal(p.bodies[maintenancesJSON], &mnt) != nil {
		panic("fakepage: a body the page rendered does not decode") // our own JSON
	}
	return inc.Incidents, mnt.Maintenances
}

// rerender changes what the page serves through change (the name, the components) and
// renders it again. Called with p.mu held.
func (p *Statuspage) rerender(change func()) {
	p.incidents, p.maintenances = p.lists()
	change()
	p.bodies = nil
	p.render()
}

// incidentBody renders one incident's own endpoint, on request: nobody polls them
// often, and keeping 50 of them per page would double a fleet's memory. Called with
// p.mu held.
func (p *Statuspage) incidentBody(path string) (body []byte, etag string, ok bool) {
	id, found := strings.CutPrefix(path, incidentPrefix)
	id, isJSON := strings.CutSuffix(id, ".json")
	if !found || !isJSON {
		return nil, "", false
	}
	inc, mnt := p.lists()
	for _, in := range append(inc, mnt...) {
		if in.ID == id {
			body := mustJSON(map[string]any{"page": p.pageObject(), "incident": in})
			return body, etagOf(body), true
		}
	}
	return nil, "", false
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // our own types always marshal
	}
	return b
}

// etagOf is a body's strong ETag.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return fmt.Sprintf("%q", hex.EncodeToString(sum[:8]))
}

// pageObject is the "page" every body starts with.
func (p *Statuspage) pageObject() map[string]any {
	return map[string]any{"id": pageID, "name": p.Name, "url": "", "time_zone": "Etc/UTC", "updated_at": "2026-01-01T00:00:00Z"}
}

func (p *Statuspage) render() map[string][]byte {
	if p.bodies != nil {
		return p.bodies
	}
	// A page and components shaped like Statuspage's own (12-character ids, page_id, group
	// and showcase fields), so provider detection recognises the fake as Statuspage.
	page := p.pageObject()
	components, status := summaryComponents(p.components)
	inc := p.incidents
	if inc == nil {
		inc = []Incident{}
	}
	mnt := p.maintenances
	if mnt == nil {
		mnt = []Incident{}
	}
	b := map[string][]byte{
		incidentsJSON:          mustJSON(map[string]any{"page": page, "incidents": inc}),
		maintenancesJSON:       mustJSON(map[string]any{"page": page, "scheduled_maintenances": mnt}),
		"/api/v2/summary.json": mustJSON(map[string]any{"page": page, "components": components, "incidents": []any{}, "scheduled_maintenances": []any{}, "status": status}),
	}
	// ETags once per render, not per request: benchmarks that poll the page in-process
	// must not count a hash of the body on the server side as the client's cost.
	p.etags = make(map[string]string, len(b))
	for path, body := range b {
		p.etags[path] = etagOf(body)
	}
	p.bodies = b
	p.incidents, p.maintenances = nil, nil // the bodies hold them now (lists)
	return b
}

// ServeHTTP answers the Statuspage API paths with strong ETags and 304s.
func (p *Statuspage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	req := Request{Path: r.URL.Path, IfNoneMatch: r.Header.Get("If-None-Match"), UserAgent: r.UserAgent()}
	status, body, etag := p.answer(r, &req)
	req.Status = status
	p.log = append(p.log, req)
	p.mu.Unlock()

	switch status {
	case http.StatusOK:
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if !p.NoETag {
			w.Header().Set("ETag", etag)
		}
		w.Write(body)
	case http.StatusNotModified:
		w.Header().Set("ETag", etag)
		w.WriteHeader(status)
	default:
		http.Error(w, http.StatusText(status), status)
	}
}

func (p *Statuspage) answer(r *http.Request, req *Request) (status int, body []byte, etag string) {
	if p.fail > 0 {
		p.fail--
		return http.StatusInternalServerError, nil, ""
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	body, ok := p.render()[path]
	etag = p.etags[path]
	if !ok {
		if body, etag, ok = p.incidentBody(path); !ok {
			return http.StatusNotFound, nil, ""
		}
	}
	if req.IfNoneMatch == etag && !p.NoETag {
		return http.StatusNotModified, nil, etag
	}
	return http.StatusOK, body, etag
}

// ETag is the strong ETag the page serves for path ("" for none): what a client that
// polled it last holds.
func (p *Statuspage) ETag(path string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.render()
	return p.etags[path]
}
