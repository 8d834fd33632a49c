package fetch

// The Statuspage v2 API: its documents decoded and normalised. incident.io serves a
// compatible copy of it, and its adapter decodes with the same code (spOptions).

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// ---- Decoding ----

// The sp* types hold only the fields we use, so the decoder skips the rest of each object
// without building it. Times stay strings until normalised; a time we cannot
// read is "not given" rather than a failed page.

type spDoc struct {
	Page                  *spPage       `json:"page"`
	Incidents             *[]spIncident `json:"incidents"`
	ScheduledMaintenances *[]spIncident `json:"scheduled_maintenances"`
}

// spList is a decoded list endpoint: the page's name and the list.
type spList struct {
	Page string
	List []spIncident
}

type spPage struct {
	Name string `json:"name"`
}

type spSummary struct {
	Page *spPage `json:"page"`
}

type spIncidentDoc struct {
	Incident *spIncident `json:"incident"`
}

type spIncident struct {
	ID                    string        `json:"id"`
	Name                  string        `json:"name"`
	Status                string        `json:"status"`
	Impact                string        `json:"impact"`
	Shortlink             string        `json:"shortlink"`
	CreatedAt             string        `json:"created_at"`
	StartedAt             string        `json:"started_at"`
	ResolvedAt            string        `json:"resolved_at"`
	ScheduledFor          string        `json:"scheduled_for"`
	ScheduledUntil        string        `json:"scheduled_until"`
	PostmortemBody        string        `json:"postmortem_body"`
	PostmortemPublishedAt LooseTime     `json:"postmortem_published_at"`
	Components            []spComponent `json:"components"`
	Updates               []spUpdate    `json:"incident_updates"`
}

type spComponent struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type spUpdate struct {
	ID                 string       `json:"id"`
	Status             string       `json:"status"`
	Body               string       `json:"body"`
	CreatedAt          string       `json:"created_at"`
	DisplayAt          string       `json:"display_at"`
	AffectedComponents []spAffected `json:"affected_components"`
}

type spAffected struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// decodeStatuspageList decodes a list endpoint whose list is under key ("incidents" or
// "scheduled_maintenances"). A document without that array is malformed; an empty array
// is well-formed (the archive decides whether it is suspicious).
func decodeStatuspageList(contentType string, body []byte, key string) (*spList, error) {
	return statuspageOptions.DecodeList(contentType, body, key)
}

// DecodeList is decodeStatuspageList under o: with o.lenientLists, a document that has a
// page object but lacks the array is an empty list.
func (o V2Options) DecodeList(contentType string, body []byte, key string) (*spList, error) {
	var doc spDoc
	if err := DecodeJSONObject(contentType, body, &doc); err != nil {
		return nil, err
	}
	list := doc.Incidents
	if key == "scheduled_maintenances" {
		list = doc.ScheduledMaintenances
	}
	if list == nil {
		if !o.LenientLists || doc.Page == nil {
			return nil, fmt.Errorf("%w: no %q array", ErrMalformed, key)
		}
		list = &[]spIncident{}
	}
	for i := range *list {
		if (*list)[i].ID == "" {
			return nil, fmt.Errorf("%w: %s[%d] has no id", ErrMalformed, key, i)
		}
	}
	l := &spList{List: *list}
	if doc.Page != nil {
		l.Page = strings.TrimSpace(doc.Page.Name)
	}
	return l, nil
}

// DecodeStatuspageSummary decodes summary.json for the page's name.
func DecodeStatuspageSummary(contentType string, body []byte) (string, error) {
	var s spSummary
	if err := DecodeJSONObject(contentType, body, &s); err != nil {
		return "", err
	}
	if s.Page == nil {
		return "", fmt.Errorf("%w: no \"page\" object", ErrMalformed)
	}
	return strings.TrimSpace(s.Page.Name), nil
}

// decodeStatuspageIncident decodes a per-incident document, {"incident": {...}}.
func decodeStatuspageIncident(contentType string, body []byte) (*spIncident, error) {
	var d spIncidentDoc
	if err := DecodeJSONObject(contentType, body, &d); err != nil {
		return nil, err
	}
	if d.Incident == nil || d.Incident.ID == "" {
		return nil, fmt.Errorf("%w: no \"incident\" object with an id", ErrMalformed)
	}
	return d.Incident, nil
}

// decodeStatuspagePostmortem returns the postmortem of a per-incident document, nil if
// it has none.
func decodeStatuspagePostmortem(contentType string, body []byte) (*model.Postmortem, error) {
	in, err := decodeStatuspageIncident(contentType, body)
	if err != nil {
		return nil, err
	}
	return in.postmortem(), nil
}

// ---- Normalisation ----

// normaliseList maps a decoded list to incidents of the given kind and describes the
// listing: a full list covers only what started since its oldest item. An id listed twice
// is taken once, first wins: a snapshot holds each incident once.
func normaliseList(list []spIncident, kind model.Kind, base *url.URL) ([]model.Incident, model.Listing) {
	return statuspageOptions.NormaliseList(list, kind, base)
}

// NormaliseList is the package's NormaliseList under o.
func (o V2Options) NormaliseList(list []spIncident, kind model.Kind, base *url.URL) ([]model.Incident, model.Listing) {
	out := make([]model.Incident, 0, len(list))
	seen := make(map[string]bool, len(list))
	var oldest time.Time
	for i := range list {
		if seen[list[i].ID] {
			continue
		}
		seen[list[i].ID] = true
		inc := list[i].normaliseWith(kind, base, o)
		if !inc.StartedAt.IsZero() && (oldest.IsZero() || inc.StartedAt.Before(oldest)) {
			oldest = inc.StartedAt
		}
		out = append(out, inc)
	}
	l := model.Listing{Kind: kind}
	if len(list) >= o.ListSize {
		l.Since = oldest
	}
	return out, l
}

// normalise maps one Statuspage incident or maintenance to the model. kind is the kind
// its endpoint lists; an item with scheduled_for set is a maintenance wherever it appears.
func (in *spIncident) normalise(kind model.Kind, base *url.URL) model.Incident {
	return in.normaliseWith(kind, base, statuspageOptions)
}

// normaliseWith is normalise under o.
func (in *spIncident) normaliseWith(kind model.Kind, base *url.URL, o V2Options) model.Incident {
	scheduledFor := ParseTime(in.ScheduledFor)
	if !scheduledFor.IsZero() {
		kind = model.KindMaintenance
	}
	resolvedAt := ParseTime(in.ResolvedAt)
	inc := model.Incident{
		ID:             in.ID,
		Kind:           kind,
		Status:         spStatus(in.Status, kind, !resolvedAt.IsZero()),
		StatusRaw:      in.Status,
		Impact:         spImpact(in.Impact, kind),
		ImpactRaw:      in.Impact,
		Title:          strings.TrimSpace(in.Name),
		StartedAt:      ParseTime(in.StartedAt),
		ResolvedAt:     resolvedAt,
		ScheduledFor:   scheduledFor,
		ScheduledUntil: ParseTime(in.ScheduledUntil),
		Postmortem:     in.postmortem(),
		URL:            in.Shortlink,
	}
	// Incidents created before Statuspage added started_at (2020) start when created.
	if inc.StartedAt.IsZero() {
		inc.StartedAt = ParseTime(in.CreatedAt)
	}
	if inc.URL == "" && base != nil {
		inc.URL = base.JoinPath("incidents", in.ID).String()
	}
	inc.Components = in.components()
	inc.Updates = in.updates(o.Format)
	return inc
}

// components is the sorted set of the incident's components and every update's affected
// components. An affected component is named by its current name, the incident's
// component with the same id, when there is one: affected_components keep the name a
// component had when the update was posted (GitHub's "GitHub Actions" is now "Actions"),
// and a rename is not an edit of the incident (current names).
func (in *spIncident) components() []string {
	names := make([]string, 0, len(in.Components))
	for _, c := range in.Components {
		if n := strings.TrimSpace(c.Name); n != "" {
			names = append(names, n)
		}
	}
	for _, u := range in.Updates {
	next:
		for _, a := range u.AffectedComponents {
			if a.Code != "" {
				for _, c := range in.Components {
					if c.ID == a.Code {
						continue next // already named by its current name
					}
				}
			}
			if n := strings.TrimSpace(a.Name); n != "" {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// updates returns the timeline oldest first: by posted time (display_at, else created_at),
// then created_at, then id, so the order is the same on every poll.
func (in *spIncident) updates(format model.Format) []model.Update {
	n := len(in.Updates)
	out := make([]model.Update, n)
	// keys holds, per update, what orders it besides PostedAt and ID, and the provider's
	// timestamp that keys an update without id.
	type key struct {
		created time.Time
		stamp   string
	}
	keys := make([]key, n)
	// Statuspage lists updates newest first: walking them backwards usually yields the
	// final order, and the sort below is then only a check.
	for j := range n {
		su := &in.Updates[n-1-j]
		created := ParseTime(su.CreatedAt)
		posted, stamp := created, su.CreatedAt
		if su.DisplayAt != su.CreatedAt { // usually equal: parse once
			if t := ParseTime(su.DisplayAt); !t.IsZero() {
				posted, stamp = t, su.DisplayAt
			}
		}
		out[j] = model.Update{
			ID:       su.ID,
			Status:   V2UpdateStatus(su.Status),
			Body:     CleanBody(su.Body),
			Format:   format,
			PostedAt: posted,
		}
		keys[j] = key{created, stamp}
	}
	cmp := func(a, b int) int {
		if c := out[a].PostedAt.Compare(out[b].PostedAt); c != 0 {
			return c
		}
		if c := keys[a].created.Compare(keys[b].created); c != 0 {
			return c
		}
		return strings.Compare(out[a].ID, out[b].ID)
	}
	sorted := true
	for j := 1; j < n && sorted; j++ {
		sorted = cmp(j-1, j) <= 0
	}
	if !sorted {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		slices.SortStableFunc(perm, cmp)
		out2, keys2 := make([]model.Update, n), make([]key, n)
		for i, p := range perm {
			out2[i], keys2[i] = out[p], keys[p]
		}
		out, keys = out2, keys2
	}
	var seen map[string]int
	for i := range out {
		if out[i].ID != "" {
			continue
		}
		// An update without a provider id is keyed by its incident, its
		// timestamp and its ordinal among updates with that timestamp.
		if seen == nil {
			seen = map[string]int{}
		}
		st := keys[i].stamp
		out[i].ID = UpdateKey(in.ID, st, seen[st])
		seen[st]++
	}
	return out
}

// postmortem returns the postmortem the JSON carries, nil if none.
func (in *spIncident) postmortem() *model.Postmortem {
	body := CleanBody(in.PostmortemBody)
	if body == "" {
		return nil
	}
	return &model.Postmortem{Body: body, Format: model.FormatMarkdown, PublishedAt: in.PostmortemPublishedAt.t}
}

// spStatus maps a Statuspage status. Both vocabularies are accepted whatever the kind (an
// incident can be turned into a maintenance and back); an unknown word is read from
// whether the item is resolved, and kept in StatusRaw.
func spStatus(raw string, kind model.Kind, resolved bool) model.Status {
	if s, ok := KnownStatus(raw); ok {
		return s
	}
	switch {
	case kind == model.KindMaintenance && resolved:
		return model.StatusCompleted
	case kind == model.KindMaintenance:
		return model.StatusScheduled
	case resolved:
		return model.StatusResolved
	}
	return model.StatusInvestigating
}

// V2UpdateStatus maps an update's status; an unknown word is kept as given, since an
// update has no raw field to keep it in.
func V2UpdateStatus(raw string) model.Status {
	if s, ok := KnownStatus(raw); ok {
		return s
	}
	return model.Status(strings.TrimSpace(raw))
}

// spImpact maps a Statuspage impact; maintenance is always "maintenance".
func spImpact(raw string, kind model.Kind) model.Impact {
	if kind == model.KindMaintenance {
		return model.ImpactMaintenance
	}
	switch i := model.Impact(strings.ToLower(strings.TrimSpace(raw))); i {
	case model.ImpactNone, model.ImpactMinor, model.ImpactMajor, model.ImpactCritical, model.ImpactMaintenance:
		return i
	}
	return model.ImpactUnknown
}
