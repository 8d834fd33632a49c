// The tools: their arguments, their results and their handlers.

package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/model"
)

type searchInput struct {
	Query  string `json:"query" jsonschema:"words that must all occur, ignoring case and accents, in the title, an update, the postmortem or the components of any archived version, not only the latest, so words a vendor later removed are found (a word of three letters or more also matches the words it begins; Korean, Japanese and Chinese text matches by pairs of characters); empty matches every incident"`
	Source string `json:"source,omitempty" jsonschema:"only this source's incidents: a name as list_sources gives it"`
	Open   *bool  `json:"open,omitempty" jsonschema:"true: only incidents still open (unresolved and still on the vendor's page); false: only the others; omit for both"`
	Since  string `json:"since,omitempty" jsonschema:"an RFC 3339 time (e.g. 2026-07-01T00:00:00Z): only incidents that started, were resolved or changed at or after it, and incidents (not maintenances) still open"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many incidents to return at most"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the next_cursor of the previous page, to get the next one; omit for the first page"`
}

type searchOutput struct {
	Incidents  []api.IncidentItem `json:"incidents" jsonschema:"the matching incidents, newest first, in their latest version; with a query, matched says where its words were found: the version, the field, and whether that is the latest version (when not, version+1 is the change that removed them: diff_incident shows it)"`
	NextCursor string             `json:"next_cursor,omitempty" jsonschema:"present when there are more: pass it as cursor"`
}

type sourcesOutput struct {
	Sources []api.Source `json:"sources" jsonschema:"the configured sources in config order, then the retired ones by name"`
}

// incidentRef names an incident: the arguments of every tool about one.
type incidentRef struct {
	Source string `json:"source" jsonschema:"the source's name, as list_sources gives it (e.g. \"github\")"`
	ID     string `json:"id" jsonschema:"the incident's id exactly as search_incidents gives it"`
}

type incidentInput struct {
	incidentRef
	Version int    `json:"version,omitempty" jsonschema:"a version number, 1 for the first seen (list_versions lists them); omit for the latest"`
	At      string `json:"at,omitempty" jsonschema:"an RFC 3339 time (e.g. 2026-07-01T14:05:00Z): the version in force then, the last one observed at or before it; not with version"`
}

type versionsInput struct {
	incidentRef
	Limit  int    `json:"limit,omitempty" jsonschema:"how many versions to return at most"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the next_cursor of the previous page, to get the next one; omit for the first page"`
}

type versionsOutput struct {
	Versions   []api.Version `json:"versions" jsonschema:"the versions, newest first"`
	NextCursor string        `json:"next_cursor,omitempty" jsonschema:"present when there are older versions: pass it as cursor"`
}

type diffInput struct {
	incidentRef
	From *int `json:"from,omitempty" jsonschema:"the earlier version's number; 0 is \"not present\"; omit for the one before to"`
	To   *int `json:"to,omitempty" jsonschema:"the later version's number; omit for the latest"`
}

func (t *tools) listSources(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, sourcesOutput, error) {
	out := sourcesOutput{Sources: []api.Source{}}
	if _, err := t.api.Get(ctx, "/sources", nil, &out.Sources); err != nil {
		return nil, out, fmt.Errorf("list_sources: %w", err)
	}
	return nil, out, nil
}

// searchCursor is where a page of search_incidents ends: the API's cursor of the page of
// searchPage incidents it was cut from ("" for the first) and how many of that page's
// incidents come before it.
type searchCursor struct {
	Before string `json:"b,omitempty"`
	Skip   int    `json:"s,omitempty"`
}

func (t *tools) search(ctx context.Context, _ *sdk.CallToolRequest, in searchInput) (*sdk.CallToolResult, searchOutput, error) {
	out := searchOutput{Incidents: []api.IncidentItem{}}
	var since time.Time
	if in.Since != "" {
		var err error
		if since, err = parseTime("since", in.Since); err != nil {
			return nil, out, err
		}
	}
	var cur searchCursor
	if in.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(in.Cursor)
		if err != nil || json.Unmarshal(b, &cur) != nil || cur.Skip < 0 || cur.Skip >= searchPage {
			return nil, out, errors.New("cursor: not a next_cursor of search_incidents; omit it for the first page")
		}
	}
	limit := clamp(in.Limit, defaultSearch, maxSearch)
	q := url.Values{"limit": {strconv.Itoa(searchPage)}}
	if in.Query != "" {
		q.Set("q", in.Query)
	}
	if in.Source != "" {
		q.Set("source", in.Source)
	}
	if in.Open != nil {
		q.Set("open", strconv.FormatBool(*in.Open))
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, out, err
		}
		q.Del("before")
		if cur.Before != "" {
			q.Set("before", cur.Before)
		}
		var page []api.IncidentItem
		next, err := t.api.Get(ctx, "/incidents", q, &page)
		if err != nil {
			if apiStatus(err) == http.StatusNotFound && in.Source != "" {
				return nil, out, fmt.Errorf("unknown source %q: list_sources names the sources", in.Source)
			}
			if apiStatus(err) == http.StatusBadRequest && cur.Before != "" {
				return nil, out, errors.New("cursor: not a next_cursor of search_incidents; omit it for the first page")
			}
			return nil, out, fmt.Errorf("search_incidents: %w", err)
		}
		for i := cur.Skip; i < len(page); i++ {
			if !since.IsZero() && !activeSince(&page[i], since) {
				continue
			}
			if len(out.Incidents) == limit {
				out.NextCursor = encodeCursor(searchCursor{cur.Before, i})
				return nil, out, nil
			}
			out.Incidents = append(out.Incidents, page[i])
		}
		if next == "" {
			return nil, out, nil
		}
		cur = searchCursor{Before: next}
	}
}

// activeSince reports whether an incident started, was resolved or changed at or after
// since, or is still open: whether it concerns anyone asking about the time since.
func activeSince(in *api.IncidentItem, since time.Time) bool {
	for _, at := range []api.Time{in.StartedAt, in.ResolvedAt, in.LastChangedAt} {
		if !time.Time(at).Before(since) {
			return true
		}
	}
	return in.Status.Open() && !in.Removed && in.Kind != model.KindMaintenance
}

func encodeCursor(c searchCursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (t *tools) incident(ctx context.Context, _ *sdk.CallToolRequest, in incidentInput) (*sdk.CallToolResult, *api.Incident, error) {
	if err := in.check(); err != nil {
		return nil, nil, err
	}
	base := incidentPath(in.Source, in.ID)
	path, q := base, url.Values(nil)
	switch {
	case in.Version != 0 && in.At != "":
		return nil, nil, errors.New("give version or at, not both")
	case in.Version != 0:
		path = base + "/versions/" + strconv.Itoa(in.Version)
	case in.At != "":
		at, err := parseTime("at", in.At)
		if err != nil {
			return nil, nil, err
		}
		path, q = base+"/at", url.Values{"time": {at.Format(api.TimeLayout)}}
	}
	var out api.Incident
	if _, err := t.api.Get(ctx, path, q, &out); err != nil {
		return nil, nil, incidentError(in.Source, in.ID, err)
	}
	return nil, &out, nil
}

func (t *tools) versions(ctx context.Context, _ *sdk.CallToolRequest, in versionsInput) (*sdk.CallToolResult, versionsOutput, error) {
	out := versionsOutput{Versions: []api.Version{}}
	if err := in.check(); err != nil {
		return nil, out, err
	}
	q := url.Values{"limit": {strconv.Itoa(clamp(in.Limit, defaultVers, maxVers))}}
	if in.Cursor != "" {
		q.Set("before", in.Cursor)
	}
	next, err := t.api.Get(ctx, incidentPath(in.Source, in.ID)+"/versions", q, &out.Versions)
	if err != nil {
		if apiStatus(err) == http.StatusBadRequest && in.Cursor != "" {
			return nil, out, errors.New("cursor: not a next_cursor of list_versions; omit it for the first page")
		}
		return nil, out, incidentError(in.Source, in.ID, err)
	}
	out.NextCursor = next
	return nil, out, nil
}

func (t *tools) diff(ctx context.Context, _ *sdk.CallToolRequest, in diffInput) (*sdk.CallToolResult, *api.Diff, error) {
	if err := in.check(); err != nil {
		return nil, nil, err
	}
	q := url.Values{}
	for name, v := range map[string]*int{"from": in.From, "to": in.To} {
		if v == nil {
			continue
		}
		q.Set(name, strconv.Itoa(*v))
	}
	var out api.Diff
	if _, err := t.api.Get(ctx, incidentPath(in.Source, in.ID)+"/diff", q, &out); err != nil {
		return nil, nil, incidentError(in.Source, in.ID, err)
	}
	if out.Changes == nil {
		out.Changes = []api.Change{}
	}
	return nil, &out, nil
}

func incidentPath(source, id string) string {
	return "/incidents/" + url.PathEscape(source) + "/" + url.PathEscape(id)
}

// check checks a source and an incident id are given.
func (r incidentRef) check() error {
	switch {
	case r.Source == "":
		return errors.New("source: required, a name as list_sources gives it")
	case r.ID == "":
		return errors.New("id: required, an incident id as search_incidents gives it")
	}
	return nil
}

// incidentError is the tool error for an API error about source/id: the API's message,
// with where to look when the incident or version is unknown.
func incidentError(source, id string, err error) error {
	switch apiStatus(err) {
	case http.StatusNotFound:
		return fmt.Errorf("%s/%s: %v (list_sources names the sources, search_incidents gives incident ids, list_versions the versions)", source, id, err)
	case http.StatusBadRequest:
		return fmt.Errorf("%s/%s: %v", source, id, err)
	}
	return fmt.Errorf("%s/%s: %w", source, id, err)
}

// apiStatus is the HTTP status of an API error answer, 0 for another error.
func apiStatus(err error) int {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Status
	}
	return 0
}

// parseTime reads an RFC 3339 time for the argument name.
func parseTime(name, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q is not an RFC 3339 time such as 2026-07-01T14:05:00Z", name, s)
	}
	return t, nil
}

func clamp(n, def, most int) int {
	if n <= 0 {
		return def
	}
	return min(n, most)
}
