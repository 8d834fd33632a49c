// Package api holds the JSON shapes of the daemon's HTTP API (/api/v1): the web package
// encodes them and the CLI decodes them, so the two cannot drift apart. It has types
// only, and imports nothing of the product but model.
package api

import (
	"strconv"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// TimeLayout is how the API writes times.
const TimeLayout = time.RFC3339Nano

// Time is a time as the API shows it: RFC 3339 in UTC, with a fraction of a second only
// when there is one, and null for the zero time ("not given").
type Time time.Time

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	tt := time.Time(t)
	if tt.IsZero() {
		return []byte("null"), nil
	}
	return strconv.AppendQuote(nil, tt.UTC().Format(TimeLayout)), nil
}

// UnmarshalJSON implements json.Unmarshaler: null is the zero time.
func (t *Time) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*t = Time{}
		return nil
	}
	var tt time.Time
	if err := tt.UnmarshalJSON(data); err != nil {
		return err
	}
	*t = Time(tt)
	return nil
}

// Error is the body of every error answer.
type Error struct {
	Error string `json:"error"`
}

// Source is one source in GET /api/v1/sources.
type Source struct {
	Name                string `json:"name"`
	Title               string `json:"title"`
	URL                 string `json:"url"`
	Kind                string `json:"kind"`
	Paused              bool   `json:"paused"`
	LastPollAt          Time   `json:"last_poll_at"`
	LastSuccessAt       Time   `json:"last_success_at"`
	LastError           string `json:"last_error"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	// Retired marks a source that is archived but no longer configured (renamed or
	// deleted): its archive stays browsable (docs/design.md §3).
	Retired bool `json:"retired"`
	// Incidents counts the source's archived incidents, removed ones included.
	Incidents int `json:"incidents"`
	// The latest component set, for a source that has one (the fields are left out
	// otherwise): the page's overall status in the provider's word and its sentence
	// ("Partial System Outage"), how many components it lists and how many of them are
	// not operational.
	PageStatus               string `json:"page_status,omitempty"`
	PageDescription          string `json:"page_description,omitempty"`
	Components               *int   `json:"components,omitempty"`
	ComponentsNotOperational *int   `json:"components_not_operational,omitempty"`
}

// Poll is the answer of a successful POST /api/v1/sources/{name}/poll.
type Poll struct {
	Changes int `json:"changes"` // incidents that got a new version
}

// Hook is the answer of POST /api/v1/sources/{name}/hook/{token}: the poll the delivery
// asked for starts now ("now"), or at At ("queued") when the source's hook polled less
// than its interval ago; "backoff": none, as the source backs off until At.
type Hook struct {
	Poll string `json:"poll"`
	At   Time   `json:"at"`
}

// Snapshot is the answer of GET /api/v1/sources/{source}/snapshots.
type Snapshot struct {
	Source    string `json:"source"`
	FetchedAt Time   `json:"fetched_at"`
	Bodies    []Body `json:"bodies"`
}

// Body is one raw body as fetched. Data is the body itself when it is valid UTF-8
// (Encoding "utf-8"), standard base64 otherwise (Encoding "base64"), and null with no
// Encoding when its bytes were never archived.
type Body struct {
	Endpoint string  `json:"endpoint"`
	Hash     string  `json:"hash"` // hex SHA-256 of the body
	Encoding string  `json:"encoding,omitempty"`
	Data     *string `json:"data"`
}

// IncidentItem is one incident in GET /api/v1/incidents: its latest version, briefly.
type IncidentItem struct {
	Source        string       `json:"source"`
	ID            string       `json:"id"` // URL id
	Title         string       `json:"title"`
	Status        model.Status `json:"status"`
	Impact        model.Impact `json:"impact"`
	Kind          model.Kind   `json:"kind"`
	StartedAt     Time         `json:"started_at"`
	ResolvedAt    Time         `json:"resolved_at"`
	Versions      int          `json:"versions"`
	URL           string       `json:"url"`
	UIURL         string       `json:"ui_url"`
	Removed       bool         `json:"removed"` // vanished from the vendor's page
	LastChangedAt Time         `json:"last_changed_at"`
	// Matched says where the words of q were found; only in the answers of a search.
	Matched *Match `json:"matched,omitempty"`
}

// Match is where a search found an incident's words: in version Version (the latest
// when Latest; else the last that had them, so version Version+1 removed one), in field
// Field: "title", "updates", "postmortem" or "components".
type Match struct {
	Version int    `json:"version"`
	Field   string `json:"field"`
	Latest  bool   `json:"latest"`
}

// Incident is one version of an incident: the answer of /incidents/{source}/{id},
// /versions/{n} and /at. version and observed_at say which version it is; versions
// counts them all.
type Incident struct {
	Source           string       `json:"source"`
	ID               string       `json:"id"`          // URL id
	ProviderID       string       `json:"provider_id"` // the vendor's own id
	Version          int          `json:"version"`
	ObservedAt       Time         `json:"observed_at"`
	Versions         int          `json:"versions"`
	Kind             model.Kind   `json:"kind"`
	Title            string       `json:"title"`
	Status           model.Status `json:"status"`
	StatusRaw        string       `json:"status_raw,omitempty"`
	Impact           model.Impact `json:"impact"`
	ImpactRaw        string       `json:"impact_raw,omitempty"`
	StartedAt        Time         `json:"started_at"`
	ResolvedAt       Time         `json:"resolved_at"`
	ResolvedInferred bool         `json:"resolved_inferred,omitempty"`
	ScheduledFor     Time         `json:"scheduled_for"`
	ScheduledUntil   Time         `json:"scheduled_until"`
	Components       []string     `json:"components"`
	Updates          []Update     `json:"updates"`
	Postmortem       *Postmortem  `json:"postmortem"`
	URL              string       `json:"url"` // the vendor's page for it
	UIURL            string       `json:"ui_url"`
	Description      string       `json:"description"`
}

// Update is one update of an Incident.
type Update struct {
	ID       string       `json:"id"`
	Status   model.Status `json:"status"`
	Body     string       `json:"body"`
	Format   model.Format `json:"format"`
	PostedAt Time         `json:"posted_at"`
}

// Postmortem is an Incident's postmortem.
type Postmortem struct {
	Body        string       `json:"body"`
	Format      model.Format `json:"format"`
	PublishedAt Time         `json:"published_at"`
}

// Version is one version in GET /api/v1/incidents/{source}/{id}/versions.
type Version struct {
	Version    int    `json:"version"`
	ObservedAt Time   `json:"observed_at"`
	Summary    string `json:"summary"` // of the change from the version before
}

// Diff is the answer of GET /api/v1/incidents/{source}/{id}/diff.
type Diff struct {
	From    int      `json:"from"`
	To      int      `json:"to"`
	Summary string   `json:"summary"`
	Changes []Change `json:"changes"`
}

// Change is one field's change (docs/design.md §5). Before is null for "not present", After for "removed";
// ops is the word diff of a text field, and [] for the others, so clients need not test
// for its absence.
type Change struct {
	Field  string     `json:"field"`
	Before *string    `json:"before"`
	After  *string    `json:"after"`
	Ops    []model.Op `json:"ops"`
}

// Component is one component in GET /api/v1/sources/{source}/components: its state in
// the set in force, and since when it has been in that state as the archive saw it.
type Component struct {
	Name      string                `json:"name"`
	Group     string                `json:"group"` // "" for none
	Status    model.ComponentStatus `json:"status"`
	StatusRaw string                `json:"status_raw"` // the provider's word
	Since     Time                  `json:"since"`
}

// ComponentChange is one entry of GET /api/v1/sources/{source}/components/history: a
// component's status went From → To at At. From is null for a component new to the
// page, To null for one that left it.
type ComponentChange struct {
	Component string                 `json:"component"`
	From      *model.ComponentStatus `json:"from"`
	To        *model.ComponentStatus `json:"to"`
	At        Time                   `json:"at"`
}

// SourceStats is one source's vendor figures, the answer of GET
// /api/v1/sources/{source}/stats and a row of GET /api/v1/stats: computed from the
// archive over the incidents (maintenance left out) that started in the last Days days.
// Durations are in seconds; a figure with no data to compute it from is null.
type SourceStats struct {
	Source    string       `json:"source"`
	Days      int          `json:"days"`
	Incidents int          `json:"incidents"`
	ByImpact  ImpactCounts `json:"by_impact"`
	Open      int          `json:"open"`
	// Time to resolve: resolved_at − started_at over the resolved incidents.
	MedianResolveS *float64 `json:"median_resolve_s"`
	P90ResolveS    *float64 `json:"p90_resolve_s"`
	// How long after its start the archive first observed an incident (leaving out the
	// incidents already on the page when the archive first read it).
	MedianPostingLagS *float64 `json:"median_posting_lag_s"`
	// How long after its start the vendor's first update was posted (its posted_at).
	MedianFirstUpdateS *float64 `json:"median_first_update_s"`
	Postmortems        int      `json:"postmortems"`
	PostmortemRate     *float64 `json:"postmortem_rate"` // postmortems ÷ incidents
	// Postmortem published_at − resolved_at.
	MedianPostmortemDelayS *float64 `json:"median_postmortem_delay_s"`
	Edits                  Edits    `json:"edits"`
	// Incidents in which an update already posted was edited or removed.
	IncidentsWithSilentEdits int `json:"incidents_with_silent_edits"`
	// Component-seconds of partial or major outage inside the window, summed over the
	// components, as observed; null for a source without components.
	ComponentOutageS *float64 `json:"component_outage_s"`
}

// ImpactCounts counts incidents by the impact of their latest version.
type ImpactCounts struct {
	None     int `json:"none"`
	Minor    int `json:"minor"`
	Major    int `json:"major"`
	Critical int `json:"critical"`
	Unknown  int `json:"unknown"`
}

// Edits counts what the vendor changed after posting, over a window's incidents:
// updates edited (body or status; each update once) and removed, and the incidents
// whose title changed, whose start moved earlier (backdated), whose impact was lowered
// once resolved, and that vanished from the page.
type Edits struct {
	UpdatesEdited                int `json:"updates_edited"`
	UpdatesRemoved               int `json:"updates_removed"`
	TitlesChanged                int `json:"titles_changed"`
	Backdated                    int `json:"backdated"`
	ImpactLoweredAfterResolution int `json:"impact_lowered_after_resolution"`
	IncidentsRemoved             int `json:"incidents_removed"`
}

// SourceAt is the answer of GET /api/v1/sources/{source}?at=T: the source as in GET
// /api/v1/sources, with its incidents as they stood at At (each the version in force
// then, newest first, a page of them as limit says) and its components' states then.
// Without at, At is null and everything is as now. Its incidents field is the list,
// in place of the count.
type SourceAt struct {
	Source
	At         Time           `json:"at"`
	Incidents  []IncidentItem `json:"incidents"`
	Components []Component    `json:"components"`
}

// Related is one incident of GET /api/v1/incidents/{source}/{id}/related: an incident of
// another source related to it, with the reasons ("same term: us-east-1", "started 7m
// apart"; docs/design.md, "Related incidents and events").
type Related struct {
	Source    string   `json:"source"`
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	StartedAt Time     `json:"started_at"`
	Reasons   []string `json:"reasons"`
	UIURL     string   `json:"ui_url"`
}

// Event is a cross-vendor event of GET /api/v1/events and /api/v1/events/{id}: a connected
// group of related incidents of at least two sources. EndedAt is null while one of them
// is open.
type Event struct {
	ID        string          `json:"id"`
	StartedAt Time            `json:"started_at"`
	EndedAt   Time            `json:"ended_at"`
	Sources   []string        `json:"sources"`
	Incidents []EventIncident `json:"incidents"`
	Terms     []string        `json:"terms"`
	UIURL     string          `json:"ui_url"`
}

// EventIncident is one incident of an Event, by start.
type EventIncident struct {
	Source    string `json:"source"`
	ID        string `json:"id"`
	Title     string `json:"title"`
	StartedAt Time   `json:"started_at"`
	UIURL     string `json:"ui_url"`
}
