// Package model holds the normalised domain types of statuswatch: sources, snapshots,
// incidents, their versions and change sets, and the outbox messages. Every other package
// imports it; it imports nothing of ours (docs/design.md §2, §4).
package model

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"time"
)

// Kind says whether an incident is an unplanned incident or a planned maintenance.
type Kind string

// The kinds of docs/design.md §4.
const (
	KindIncident    Kind = "incident"
	KindMaintenance Kind = "maintenance"
)

// Status is the normalised status of an incident or maintenance (docs/design.md §4).
type Status string

// Incident statuses, then maintenance statuses.
const (
	StatusInvestigating Status = "investigating"
	StatusIdentified    Status = "identified"
	StatusMonitoring    Status = "monitoring"
	StatusResolved      Status = "resolved"
	StatusPostmortem    Status = "postmortem"

	StatusScheduled  Status = "scheduled"
	StatusInProgress Status = "in_progress"
	StatusVerifying  Status = "verifying"
	StatusCompleted  Status = "completed"
)

// Open reports whether the status is one of an incident or maintenance still going on or
// still to come: not resolved, postmortem or completed.
func (s Status) Open() bool {
	switch s {
	case StatusResolved, StatusPostmortem, StatusCompleted:
		return false
	}
	return true
}

// Impact is the normalised impact, ordered none < minor < major < critical (docs/design.md §4).
type Impact string

// The impacts of docs/design.md §4.
const (
	ImpactNone        Impact = "none"
	ImpactMinor       Impact = "minor"
	ImpactMajor       Impact = "major"
	ImpactCritical    Impact = "critical"
	ImpactMaintenance Impact = "maintenance"
	ImpactUnknown     Impact = "unknown"
)

// rank orders the impacts that have an order; maintenance and unknown have none.
func (i Impact) rank() int {
	switch i {
	case ImpactNone:
		return 0
	case ImpactMinor:
		return 1
	case ImpactMajor:
		return 2
	case ImpactCritical:
		return 3
	}
	return -1
}

// Worse reports whether i ranks above j in the order none < minor < major < critical.
// Maintenance and unknown have no rank: every ranked impact is worse than them, and they
// are worse than none.
func (i Impact) Worse(j Impact) bool { return i.rank() > j.rank() }

// AtLeast reports whether i passes a min_impact filter of min. Unknown and maintenance
// pass every filter, and so does every impact when min is empty: an impact we cannot place
// must never hide an incident.
func (i Impact) AtLeast(min Impact) bool {
	if min == "" || i.rank() < 0 || min.rank() < 0 {
		return true
	}
	return i.rank() >= min.rank()
}

// Format is how a body is written, as the provider sends it.
type Format string

// The body formats of docs/design.md §4.
const (
	FormatText     Format = "text"
	FormatMarkdown Format = "markdown"
	FormatHTML     Format = "html"
)

// Update is one entry of an incident's timeline.
type Update struct {
	ID       string    `json:"id"`
	Status   Status    `json:"status"`
	Body     string    `json:"body"` // plain text (HTML bodies are turned into clean text)
	Format   Format    `json:"format"`
	PostedAt time.Time `json:"posted_at"`
	// HTML is the sanitised HTML of an update sent as HTML, for the UI. Not compared: the
	// same words as HTML or as text are no change.
	HTML string `json:"html,omitempty"`
}

// Postmortem is the write-up a vendor publishes after an incident.
type Postmortem struct {
	Body        string    `json:"body"`
	Format      Format    `json:"format"`
	PublishedAt time.Time `json:"published_at,omitzero"`
	HTML        string    `json:"html,omitempty"` // sanitised HTML, for the UI; not compared
}

// Incident is the normalised form of one incident or maintenance, as a provider reports it
// at one moment. Its identity is (source, ID). Zero times mean "not given".
type Incident struct {
	ID             string      `json:"id"`
	Kind           Kind        `json:"kind"`
	Status         Status      `json:"status"`
	StatusRaw      string      `json:"status_raw,omitempty"`
	Impact         Impact      `json:"impact"`
	ImpactRaw      string      `json:"impact_raw,omitempty"`
	Title          string      `json:"title"`
	StartedAt      time.Time   `json:"started_at,omitzero"`
	ResolvedAt     time.Time   `json:"resolved_at,omitzero"`
	ScheduledFor   time.Time   `json:"scheduled_for,omitzero"`
	ScheduledUntil time.Time   `json:"scheduled_until,omitzero"`
	Components     []string    `json:"components"` // sorted, unique
	Updates        []Update    `json:"updates"`    // oldest first
	Postmortem     *Postmortem `json:"postmortem"`

	// Not version fields: kept with the version but never compared.
	URL              string `json:"url,omitempty"`              // the vendor's page for it
	ResolvedInferred bool   `json:"resolved_inferred,omitzero"` // resolved_at inferred from absence
}

// Open reports whether the incident is still going on (or, for maintenance, still to come).
func (inc *Incident) Open() bool { return inc.Status.Open() }

// Listing describes what one parsed endpoint covers, so the archive can tell an incident that
// vanished from one that merely fell out of the provider's window or was not fetched.
type Listing struct {
	Kind Kind `json:"kind"`
	// Since is the start of the provider's window for this listing: archived incidents that
	// started before it are outside the window and never inferred removed or resolved.
	// Zero means the listing covers the whole history.
	Since time.Time `json:"since,omitzero"`
}

// Snapshot is what one successful poll of a source read: the incidents of every listing
// that was parsed this time. Endpoints answering 304 or with a byte-identical body are not
// parsed and contribute no listing.
type Snapshot struct {
	Source    string     `json:"source"`
	FetchedAt time.Time  `json:"fetched_at"`
	PageTitle string     `json:"page_title,omitempty"`
	Listings  []Listing  `json:"listings"`
	Incidents []Incident `json:"incidents"`
	// OpenOnly marks providers that list only open items (Instatus summary, AWS
	// currentevents, Azure): absence means resolved, and an empty answer is a healthy page.
	OpenOnly bool `json:"open_only,omitempty"`
	// Components is the page's component states as this poll read them; nil when the
	// platform publishes none or this poll did not read them (an unchanged answer).
	Components *Components `json:"components,omitempty"`
}

// Covers reports whether the snapshot holds a complete listing of kind k covering time t.
func (s *Snapshot) Covers(k Kind, t time.Time) bool {
	for _, l := range s.Listings {
		if l.Kind == k && (l.Since.IsZero() || t.IsZero() || !t.Before(l.Since)) {
			return true
		}
	}
	return false
}

// Body is one raw response body as fetched, kept as evidence with each recorded change.
type Body struct {
	Endpoint string `json:"endpoint"` // the endpoint's name, e.g. "incidents"
	Hash     string `json:"hash"`     // hex SHA-256 of Data
	Data     []byte `json:"-"`        // nil when the body is the one already archived under Hash
}

// EndpointState is what we remember of one endpoint between polls: the validators for a
// conditional GET and the hash of the last body, so an identical body is skipped unparsed.
type EndpointState struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	Hash         string `json:"hash,omitempty"`
	// Absent is when an endpoint that is optional for a page (a maintenance list, a
	// summary) last answered 404 or 410: the page has none, and it is asked again only
	// now and then.
	Absent time.Time `json:"absent,omitzero"`
	// Title is set only in the StatePage entry: the page's own name.
	Title string `json:"title,omitempty"`
	// Episodes is set only in the entries of a platform that builds incidents out of a
	// feed's posts and remembers them between polls (AWS: "episodes/<service>").
	Episodes []Episode `json:"episodes,omitempty"`
}

// Equal reports whether e and o remember the same.
func (e EndpointState) Equal(o EndpointState) bool {
	return e.ETag == o.ETag && e.LastModified == o.LastModified && e.Hash == o.Hash &&
		e.Absent.Equal(o.Absent) && e.Title == o.Title && slices.Equal(e.Episodes, o.Episodes)
}

// Episode is what a platform that groups a feed's posts into incidents remembers of one
// of them between polls (AWS: one service's posts between resolutions), so that an
// incident keeps its id after its first posts fell out of the feed, and one that left
// the list of open events can be resolved by inference. Times are unix seconds; a Start
// of 0 is "not given". Listed and Missed are only ever set on an open episode, Inferred
// on a closed one.
type Episode struct {
	Start int64 `json:"start"`
	Last  int64 `json:"last"`           // the latest post
	Open  bool  `json:"open,omitempty"` // no post resolved it
	// Listed: open, and listed by the list of open events on the last parse.
	Listed bool `json:"listed,omitempty"`
	// Missed: open, listed until the list of open events first lacked it at this time.
	Missed int64 `json:"missed,omitempty"`
	// Inferred: resolved by inference, first missed at this time and missed again since.
	Inferred int64 `json:"inferred,omitempty"`
}

// FetchState is a source's remembered endpoint state, keyed by endpoint name.
type FetchState map[string]EndpointState

// StatePage is the FetchState entry that is no endpoint: what is remembered of the page
// itself between polls, its name (Title) as it last read it. The underscore keeps it apart
// from endpoint names.
const StatePage = "_page"

// PageTitle is the page's own name as last read, "" when it was never read.
func (s FetchState) PageTitle() string { return s[StatePage].Title }

// SetPageTitle remembers the page's own name; an empty one changes nothing, so a poll
// that did not read the name keeps the one before.
func (s FetchState) SetPageTitle(title string) {
	if title != "" && s != nil {
		s[StatePage] = EndpointState{Title: title}
	}
}

// Clone returns a copy that can be changed without touching s.
func (s FetchState) Clone() FetchState {
	c := make(FetchState, len(s))
	for k, v := range s {
		v.Episodes = slices.Clone(v.Episodes)
		c[k] = v
	}
	return c
}

// Equal reports whether s and t hold the same entries, each remembering the same; nil
// and empty are equal.
func (s FetchState) Equal(t FetchState) bool {
	if len(s) != len(t) {
		return false
	}
	for k, v := range s {
		if w, ok := t[k]; !ok || !v.Equal(w) {
			return false
		}
	}
	return true
}

// Change is one field's change between two versions (docs/design.md §5). A nil Before means "not
// present"; a nil After means "removed".
type Change struct {
	Field  string  `json:"field"`
	Before *string `json:"before"`
	After  *string `json:"after"`
	Ops    []Op    `json:"ops,omitempty"`
}

// Op is one run of a word-level text diff.
type Op struct {
	Op   string `json:"op"` // OpEqual, OpInsert or OpDelete
	Text string `json:"text"`
}

// The ops of a word diff.
const (
	OpEqual  = "equal"
	OpInsert = "insert"
	OpDelete = "delete"
)

// Version is one archived version of an incident: what the page said from ObservedAt on.
type Version struct {
	N          int       `json:"version"`
	ObservedAt time.Time `json:"observed_at"`
	Incident   Incident  `json:"incident"`
	Changes    []Change  `json:"changes"` // from version N-1 (0 = not present)
	Summary    string    `json:"summary"`
	Snapshot   string    `json:"snapshot,omitempty"` // key of the raw snapshot that produced it
}

// Event names what an outbox message announces.
type Event string

// The events of docs/design.md §6 Slack. One change set is one message; its Event is the most
// important thing it says, the change set itself carries the rest.
const (
	EventNew        Event = "new"        // an incident or maintenance first announced
	EventChanged    Event = "changed"    // a later change set (updates, edits, status, …)
	EventResolved   Event = "resolved"   // the change set resolves or completes it
	EventPostmortem Event = "postmortem" // the change set publishes or edits a postmortem
	EventRemoved    Event = "removed"    // it vanished from the page
	EventSourceDown Event = "source_down"
	EventSourceUp   Event = "source_up"
	// A component set's change: the worst thing a poll's component changes say, a
	// component getting worse (naming from and to) or back to operational (with how long
	// it was not).
	EventComponentDegraded  Event = "component_degraded"
	EventComponentRecovered Event = "component_recovered"
	// A scheduled maintenance about to start (defaults.maintenance_reminder ahead of
	// its window), a reply in its thread; written once per start time.
	EventMaintenanceSoon Event = "maintenance_soon"
)

// MessageState is where an outbox message stands.
type MessageState string

// Message states.
const (
	MessagePending MessageState = "pending"
	MessageParked  MessageState = "parked"
	MessageSent    MessageState = "sent"
)

// Message is one outbox row: a notification to deliver, written in the same transaction as
// the version it announces. Delivery loads the version it names to render it.
type Message struct {
	ID         uint64       `json:"id"`
	Source     string       `json:"source"`
	IncidentID string       `json:"incident_id,omitempty"`
	Version    int          `json:"version,omitempty"`
	Event      Event        `json:"event"`
	CatchUp    bool         `json:"catch_up,omitempty"` // first announcement of an incident seen earlier
	Text       string       `json:"text,omitempty"`     // for source events: the error
	CreatedAt  time.Time    `json:"created_at"`
	State      MessageState `json:"state"`
	Attempts   int          `json:"attempts,omitempty"`
	LastError  string       `json:"last_error,omitempty"`
	// NotBefore is when the destination may be tried again, as a Slack Retry-After
	// asked: it outlives a restart and binds every process that delivers.
	NotBefore time.Time `json:"not_before,omitzero"`
	// Receiver names the receiver (config receivers:) the row is for; empty is the
	// default sink, Slack or the console, so rows written before receivers existed
	// need no migration. Each receiver has its own row of a notification, and its own
	// queue.
	Receiver string `json:"receiver,omitempty"`
}

// Notice is a notification about to be written, as routing reads it: the routes
// (config routes:) choose its receivers from it.
type Notice struct {
	Source string
	Event  Event
	// Incident is the incident's version the message announces; nil for source events
	// and for a component message in no incident's thread.
	Incident *Incident
	// Changes are the change set the message tells (nil for a first version).
	Changes []Change
	// Components are the names of the components a component message tells.
	Components []string
	// Peak, when set, gives the worst impact the incident had in any version so far,
	// this one included (read only when a route asks: it loads the earlier versions).
	// A route's min_impact passes an incident that was ever at or above it, so that its
	// resolution reaches whoever was paged for it, whatever it was downgraded to since.
	Peak func() Impact
}

var plainID = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9_.-]*$`)

// URLID is the incident id used in URLs and the API: the provider's id when it is plain,
// else the first 8 bytes of its SHA-256 in hex (docs/design.md §4).
func URLID(providerID string) string {
	if plainID.MatchString(providerID) {
		return providerID
	}
	sum := sha256.Sum256([]byte(providerID))
	return hex.EncodeToString(sum[:8])
}

// Source is what a provider needs to know of a configured source to poll it.
type Source struct {
	Name        string
	Title       string            // display name; empty: the page's own name, else Name
	URL         string            // the page; a directory for every kind but feed
	Kind        string            // provider kind, e.g. "statuspage"; "auto" or empty: detected
	Maintenance bool              // whether scheduled maintenance is read
	Endpoints   map[string]string // endpoint name → URL, overriding the derived ones
	Headers     map[string]string // extra request headers; secrets, never logged
}
