package statusio

// The two status.io documents decoded: the public status API and the page's history feed.

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

// ---- Decoding the API ----

type sioDoc struct {
	Result *sioResult `json:"result"`
	Error  string     `json:"error"`
}

type sioResult struct {
	// The page's and its components' states, read apart (sioComponentStates): whatever
	// they hold, they never fail the incidents read beside them.
	Overall    jsontext.Value `json:"status_overall"`
	Components jsontext.Value `json:"status"`
	Incidents  []sioEvent     `json:"incidents"`
	// Maintenance is documented as {"active": [...], "upcoming": [...]}; it has also been
	// seen as a bare (empty) array, read as the active ones.
	Maintenance jsontext.Value `json:"maintenance"`
}

// sioStatus is the page's overall status or one component's: status.io's word and its code.
type sioStatus struct {
	ID         payload.LooseText `json:"id"`
	Name       payload.LooseText `json:"name"`
	Status     payload.LooseText `json:"status"`
	StatusCode payload.LooseText `json:"status_code"`
}

type sioMaintenance struct {
	Active   []sioEvent `json:"active"`
	Upcoming []sioEvent `json:"upcoming"`
}

type sioEvent struct {
	ID           payload.FlexID `json:"_id"`
	AltID        payload.FlexID `json:"id"`
	Name         string         `json:"name"`
	DatetimeOpen string         `json:"datetime_open"`
	PlannedStart string         `json:"datetime_planned_start"`
	PlannedEnd   string         `json:"datetime_planned_end"`
	StatusCode   payload.FlexID `json:"status_code"`
	Messages     []sioMessage   `json:"messages"`
	Components   []sioNamed     `json:"components_affected"`
}

type sioMessage struct {
	ID       payload.FlexID `json:"_id"`
	Details  string         `json:"details"`
	State    payload.FlexID `json:"state"`
	Status   payload.FlexID `json:"status"`
	Datetime string         `json:"datetime"`
}

type sioNamed struct {
	Name string `json:"name"`
}

// sioAPI is a decoded API answer.
type sioAPI struct {
	incidents, active, upcoming []sioEvent
	components                  *model.Components
}

// decodeStatusIO decodes the API's answer. Without "result" it is not a status: status.io
// answers an unknown page id with 200 {"error": "status page not found"}.
func decodeStatusIO(contentType string, body []byte) (*sioAPI, error) {
	var doc sioDoc
	if err := payload.DecodeJSONObject(contentType, body, &doc); err != nil {
		return nil, err
	}
	if doc.Result == nil {
		if doc.Error != "" {
			return nil, fmt.Errorf("%w: %w: status.io says %.200q", payload.ErrMalformed, errStatusIORefused, doc.Error)
		}
		return nil, fmt.Errorf("%w: no \"result\"", payload.ErrMalformed)
	}
	out := &sioAPI{incidents: doc.Result.Incidents, components: sioComponentStates(doc.Result)}
	if m := bytes.TrimSpace(doc.Result.Maintenance); len(m) > 0 {
		switch m[0] {
		case '{':
			var mt sioMaintenance
			if err := json.Unmarshal(m, &mt, payload.JSONOptions); err != nil {
				return nil, fmt.Errorf("%w: maintenance: %v", payload.ErrMalformed, err)
			}
			out.active, out.upcoming = mt.Active, mt.Upcoming
		case '[':
			if err := json.Unmarshal(m, &out.active, payload.JSONOptions); err != nil {
				return nil, fmt.Errorf("%w: maintenance: %v", payload.ErrMalformed, err)
			}
		case 'n': // null
		default:
			return nil, fmt.Errorf("%w: maintenance is neither an object nor a list", payload.ErrMalformed)
		}
	}
	for _, list := range [][]sioEvent{out.incidents, out.active, out.upcoming} {
		for i := range list {
			if list[i].id() == "" {
				return nil, fmt.Errorf("%w: an incident or maintenance has no id", payload.ErrMalformed)
			}
		}
	}
	return out, nil
}

// sioComponentWords maps status.io's status codes (each component's status_code, the
// same codes as its incident statuses) to the component states. 600, a security event,
// says nothing of the component's state and gets the unknown word's default.
var sioComponentWords = fetch.ComponentWords{
	"100": model.ComponentOperational,
	"200": model.ComponentMaintenance,
	"300": model.ComponentDegraded,
	"400": model.ComponentPartialOutage,
	"500": model.ComponentMajorOutage,
}

// sioComponentStates reads the components of the API's answer, by code; StatusRaw keeps
// status.io's word ("Partial Service Disruption"), or the code when it gives none. Their
// containers (locations) are not components: a component's status is already the worst
// of its containers', and status.io's incidents name components the same way. The page
// status is status_overall's code, its sentence status.io's word. A status list that is no
// list of objects gives no component states (nil: not read); an overall status that is
// no object, no page status.
func sioComponentStates(r *sioResult) *model.Components {
	var states []sioStatus
	if len(r.Components) > 0 && json.Unmarshal(r.Components, &states, payload.JSONOptions) != nil {
		return nil
	}
	list := make([]model.Component, 0, len(states))
	for _, c := range states {
		comp := sioComponentWords.Component(string(c.ID), string(c.Name), "", string(c.StatusCode))
		if w := strings.TrimSpace(string(c.Status)); w != "" {
			comp.StatusRaw = w
		}
		list = append(list, comp)
	}
	var overall sioStatus
	if len(r.Overall) > 0 && json.Unmarshal(r.Overall, &overall, payload.JSONOptions) != nil {
		overall = sioStatus{}
	}
	return fetch.NewComponents(string(overall.StatusCode), string(overall.Status), list)
}

func (ev *sioEvent) id() string {
	if ev.ID != "" {
		return string(ev.ID)
	}
	return string(ev.AltID)
}

// ---- Decoding the feed ----

type sioFeed struct {
	title string
	items []sioItem
}

// sioItem is one feed item: an update of the incident or maintenance it names.
type sioItem struct {
	ids    []string // the 24-hex ids in its link and guid, the incident's last
	key    string   // its guid, else link: its incident's id when it names none
	kind   model.Kind
	title  string
	link   string
	body   string
	posted time.Time
	stamp  string
}

// sioItemLink reads the kind and incident id of a status.io feed link.
var sioItemLink = regexp.MustCompile(`/pages/(incident|maintenance)/[0-9a-fA-F]{24}/([0-9a-fA-F]{24})`)

// decodeStatusIOFeed parses the history feed (RSS or Atom) with gofeed. A feed without
// items is well-formed: a page that never had an incident.
func decodeStatusIOFeed(contentType string, body []byte) (*sioFeed, error) {
	b, err := payload.FeedBody(body)
	if err != nil {
		return nil, err
	}
	f, err := payload.ParseFeed(b)
	if err != nil {
		return nil, err
	}
	if f.FeedType != "rss" && f.FeedType != "atom" {
		return nil, fmt.Errorf("%w: feed: got %s, want RSS or Atom", payload.ErrMalformed, f.FeedType)
	}
	out := &sioFeed{title: strings.TrimSpace(f.Title)}
	for _, it := range payload.FeedItems(f) {
		si := sioItem{kind: model.KindIncident, title: strings.TrimSpace(it.Title), link: strings.TrimSpace(it.Link)}
		where := si.link + " " + it.GUID
		if m := sioItemLink.FindStringSubmatch(where); m != nil {
			if m[1] == "maintenance" {
				si.kind = model.KindMaintenance
			}
			si.ids = []string{m[2]}
		} else {
			si.ids = sioHexID.FindAllString(where, -1)
		}
		si.key = strings.TrimSpace(it.GUID)
		if si.key == "" {
			si.key = si.link
		}
		if si.key == "" && len(si.ids) == 0 {
			continue // nothing names its incident
		}
		si.body = payload.FeedText(it)
		if si.posted, si.stamp = payload.FeedPosted(it); si.stamp == "" {
			si.stamp = strings.TrimSpace(it.Published + it.Updated)
		}
		out.items = append(out.items, si)
	}
	return out, nil
}
