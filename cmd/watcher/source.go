package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/mcp"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/query"
)

// incidentRow is one line of `watcher incidents`.
type incidentRow struct {
	Source    string
	ID        string
	Title     string
	Status    model.Status
	Impact    model.Impact
	StartedAt *time.Time // nil: not given
	Versions  int
	Removed   bool
	Migrated  bool // known from the archive file only: the API does not say
	// Matched is where a search found the words (`watcher incidents -q`), nil otherwise.
	Matched *api.Match
}

// versionRow is one line of `watcher history`.
type versionRow struct {
	N          int
	ObservedAt time.Time
	Summary    string
}

// changeSet is what `watcher diff` prints.
type changeSet struct {
	From    int
	To      int
	Summary string
	Changes []model.Change
	// incs are the two versions, the later first (nil for version 0), whose updates the
	// printed change set names by status and time.
	incs []*model.Incident
}

// archiveReader is what the browse commands read: the archive file itself, or, while the
// daemon holds it (bbolt admits one process), the daemon's API.
type archiveReader interface {
	Incidents(ctx context.Context, source string, open bool) ([]incidentRow, error)
	// Search lists the incidents with every word of q in some version, as the API's q.
	Search(ctx context.Context, q, source string, open bool) ([]incidentRow, error)
	Versions(ctx context.Context, source, id string) ([]versionRow, error)
	// Diff compares versions from and to; to < 0 means the latest, from < 0 the one before to.
	Diff(ctx context.Context, source, id string, from, to int) (*changeSet, error)
	Close() error
}

// openReader opens the archive read-only, never creating it; when the daemon holds it, it
// reads through the daemon's API at listen instead.
func openReader(cfg *config.Config) (archiveReader, error) {
	st, client, err := openArchive(cfg, readOnly)
	if err != nil {
		return nil, err
	}
	if st != nil {
		return localReader{st}, nil
	}
	return client, nil
}

// readOnly opens the archive as the commands that only read it do: never creating it.
var readOnly = archive.Options{ReadOnly: true, MustExist: true}

// openArchive opens the archive with o or, when the daemon holds it (bbolt admits one
// process), returns a client of the daemon's API at listen instead.
func openArchive(cfg *config.Config, o archive.Options) (*archive.Store, *apiClient, error) {
	st, err := archive.Open(cfg.Database, o)
	if err == nil {
		return st, nil, nil
	}
	if !errors.Is(err, archive.ErrLocked) {
		return nil, nil, err
	}
	client, aerr := newAPIClient(cfg)
	if aerr != nil {
		return nil, nil, fmt.Errorf("%w; %v", err, aerr)
	}
	return nil, client, nil
}

// localReader reads the archive file.
type localReader struct{ st *archive.Store }

func (l localReader) Close() error { return l.st.Close() }

func (l localReader) Incidents(_ context.Context, source string, open bool) ([]incidentRow, error) {
	list, err := l.st.Incidents(source)
	if err != nil {
		return nil, err
	}
	rows := make([]incidentRow, 0, len(list))
	for _, in := range list {
		inc := &in.Latest
		if open && (!inc.Open() || in.Removed || in.Migrated) {
			continue
		}
		r := incidentRow{Source: in.Source, ID: in.ID, Title: inc.Title, Status: inc.Status, Impact: inc.Impact, Versions: in.Versions, Removed: in.Removed, Migrated: in.Migrated}
		if !inc.StartedAt.IsZero() {
			r.StartedAt = &inc.StartedAt
		}
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b incidentRow) int { return timeOf(b.StartedAt).Compare(timeOf(a.StartedAt)) })
	return rows, nil
}

func (l localReader) Search(_ context.Context, q, source string, open bool) ([]incidentRow, error) {
	var onlyOpen *bool
	if open {
		onlyOpen = &open
	}
	page, err := query.Search(l.st, q, source, onlyOpen, nil, math.MaxInt-1)
	if err != nil {
		return nil, err
	}
	hits, infos := page.Hits, page.Infos
	rows := make([]incidentRow, len(infos))
	for i := range infos {
		in, inc := &infos[i], &infos[i].Latest
		m := hits[i].Matched
		rows[i] = incidentRow{Source: in.Source, ID: in.ID, Title: inc.Title, Status: inc.Status, Impact: inc.Impact,
			Versions: in.Versions, Removed: in.Removed, Migrated: in.Migrated,
			Matched: &api.Match{Version: m.Version, Field: m.Field, Latest: m.Latest}}
		if !inc.StartedAt.IsZero() {
			rows[i].StartedAt = &inc.StartedAt
		}
	}
	return rows, nil
}

func (l localReader) Versions(_ context.Context, source, id string) ([]versionRow, error) {
	versions, err := l.st.VersionInfos(source, id) // decodes no incident
	if err == nil && len(versions) == 0 {
		err = archive.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	rows := make([]versionRow, len(versions))
	for i, v := range versions {
		rows[i] = versionRow{v.N, v.ObservedAt, v.Summary}
	}
	return rows, nil
}

func (l localReader) Diff(_ context.Context, source, id string, from, to int) (*changeSet, error) {
	latest, err := l.st.VersionCount(source, id)
	if err != nil {
		return nil, err
	}
	if to < 0 {
		to = latest
	}
	if from < 0 {
		from = max(to-1, 0)
	}
	pick := func(n int) (*model.Incident, error) { // decodes only the two versions compared
		if n == 0 {
			return nil, nil
		}
		if n > latest {
			return nil, fmt.Errorf("%s/%s has no version %d (latest is %d)", source, id, n, latest)
		}
		v, err := l.st.Version(source, id, n)
		if err != nil {
			return nil, err
		}
		return &v.Incident, nil
	}
	before, err := pick(from)
	if err != nil {
		return nil, err
	}
	after, err := pick(to)
	if err != nil {
		return nil, err
	}
	changes := diff.Changes(before, after)
	return &changeSet{From: from, To: to, Summary: diff.Summary(changes), Changes: changes, incs: []*model.Incident{after, before}}, nil
}

func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// apiClient reads the archive through the running daemon's JSON API.
type apiClient struct {
	base string
	hc   *http.Client
	auth func(*http.Request)
}

func newAPIClient(cfg *config.Config) (*apiClient, error) {
	if cfg.Listen == "" {
		return nil, errors.New("the daemon holds the archive and listen is empty, so there is no API to read it through")
	}
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil || port == "0" {
		return nil, fmt.Errorf("the daemon holds the archive and listen %q names no fixed port to reach it", cfg.Listen)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	a := &apiClient{base: "http://" + net.JoinHostPort(host, port), hc: &http.Client{Timeout: 2 * time.Minute}}
	auth := cfg.Web.Auth
	switch {
	case auth.BearerToken.IsSet():
		a.auth = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+auth.BearerToken.Value()) }
	case auth.Basic.User != "":
		a.auth = func(r *http.Request) { r.SetBasicAuth(auth.Basic.User, auth.Basic.Password.Value()) }
	}
	return a, nil
}

func (a *apiClient) Close() error { return nil }

// do sends one request to the API, with the config's credentials, through hc.
func (a *apiClient) do(ctx context.Context, hc *http.Client, method, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, nil)
	if err != nil {
		return nil, err
	}
	if a.auth != nil {
		a.auth(req)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("daemon API: %w", err)
	}
	return resp, nil
}

// call does one API request and decodes its JSON answer; it returns the answer's headers.
func (a *apiClient) call(ctx context.Context, method, path string, into any) (http.Header, error) {
	resp, err := a.do(ctx, a.hc, method, path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("daemon API: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		var e api.Error
		json.Unmarshal(body, &e)
		if resp.StatusCode == http.StatusNotFound {
			return nil, fmt.Errorf("%w: %s", archive.ErrNotFound, e.Error)
		}
		return nil, &apiError{resp.StatusCode, e.Error}
	}
	if into != nil {
		if err := json.Unmarshal(body, into); err != nil {
			return nil, fmt.Errorf("daemon API %s: %w", path, err)
		}
	}
	return resp.Header, nil
}

// Get reads GET /api/v1{path}?{query} for the tools of `watcher mcp` (mcp.API), with the
// API's error answers as *mcp.Error.
func (a *apiClient) Get(ctx context.Context, path string, query url.Values, into any) (string, error) {
	target := "/api/v1" + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	h, err := a.call(ctx, http.MethodGet, target, into)
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return "", &mcp.Error{Status: ae.code, Message: ae.msg}
	case errors.Is(err, archive.ErrNotFound):
		return "", &mcp.Error{Status: http.StatusNotFound, Message: strings.TrimPrefix(err.Error(), archive.ErrNotFound.Error()+": ")}
	case err != nil:
		return "", err
	}
	return h.Get("X-Next-Cursor"), nil
}

// download answers GET path with its body, which the caller copies and closes. It has no
// overall timeout: a whole archive or a long history takes long to copy. An answer other
// than 200 is an error that names what was asked, notFound for a 404 when it is not nil.
func (a *apiClient) download(ctx context.Context, path, what string, notFound error) (io.ReadCloser, error) {
	untimed := *a.hc
	untimed.Timeout = 0
	resp, err := a.do(ctx, &untimed, http.MethodGet, path)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && notFound != nil:
		err = notFound
	case resp.StatusCode != http.StatusOK:
		err = fmt.Errorf("daemon API: %s answered HTTP %d", what, resp.StatusCode)
	}
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	return resp.Body, nil
}

// apiError is an error answer of the daemon's API.
type apiError struct {
	code int
	msg  string
}

func (e *apiError) Error() string { return fmt.Sprintf("daemon API: HTTP %d: %s", e.code, e.msg) }

// pages reads a list of the API at path, a thousand items a page, following its cursor
// to the last page, and hands each item, decoded as a T, to each.
func pages[T any](ctx context.Context, a *apiClient, path string, q url.Values, each func(T)) error {
	if q == nil {
		q = url.Values{}
	}
	q.Set("limit", "1000")
	for {
		var raw json.RawMessage
		h, err := a.call(ctx, http.MethodGet, path+"?"+q.Encode(), &raw)
		if err != nil {
			return err
		}
		var batch []T
		err = json.Unmarshal(raw, &batch)
		for _, item := range batch {
			each(item)
		}
		if err != nil {
			return err
		}
		next := h.Get("X-Next-Cursor")
		if next == "" {
			return nil
		}
		q.Set("before", next)
	}
}

// incidentPath is the API's path of an incident.
func incidentPath(source, id string) string {
	return "/api/v1/incidents/" + url.PathEscape(source) + "/" + url.PathEscape(id)
}

func (a *apiClient) Incidents(ctx context.Context, source string, open bool) ([]incidentRow, error) {
	return a.Search(ctx, "", source, open)
}

func (a *apiClient) Search(ctx context.Context, text, source string, open bool) ([]incidentRow, error) {
	q := url.Values{}
	if text != "" {
		q.Set("q", text)
	}
	if source != "" {
		q.Set("source", source)
	}
	if open {
		q.Set("open", "true")
	}
	var rows []incidentRow
	err := pages(ctx, a, "/api/v1/incidents", q, func(in api.IncidentItem) {
		r := incidentRow{Source: in.Source, ID: in.ID, Title: in.Title, Status: in.Status, Impact: in.Impact, Versions: in.Versions, Removed: in.Removed, Matched: in.Matched}
		if t := time.Time(in.StartedAt); !t.IsZero() {
			r.StartedAt = &t
		}
		rows = append(rows, r)
	})
	return rows, err
}

func (a *apiClient) Versions(ctx context.Context, source, id string) ([]versionRow, error) {
	var rows []versionRow
	err := pages(ctx, a, incidentPath(source, id)+"/versions", nil, func(v api.Version) {
		rows = append(rows, versionRow{v.Version, time.Time(v.ObservedAt), v.Summary})
	})
	slices.SortFunc(rows, func(a, b versionRow) int { return a.N - b.N }) // the API lists newest first
	return rows, err
}

func (a *apiClient) Diff(ctx context.Context, source, id string, from, to int) (*changeSet, error) {
	q := url.Values{}
	if from >= 0 {
		q.Set("from", strconv.Itoa(from))
	}
	if to >= 0 {
		q.Set("to", strconv.Itoa(to))
	}
	var d api.Diff
	base := incidentPath(source, id)
	_, err := a.call(ctx, http.MethodGet, base+"/diff?"+q.Encode(), &d)
	cs := changeSet{From: d.From, To: d.To, Summary: d.Summary, Changes: make([]model.Change, len(d.Changes))}
	for i, c := range d.Changes {
		cs.Changes[i] = model.Change{Field: c.Field, Before: c.Before, After: c.After, Ops: c.Ops}
	}
	if err != nil {
		return &cs, err
	}
	// The updates of both versions, so the printed changes can say which update each is.
	for _, n := range []int{cs.To, cs.From} {
		if n < 1 {
			continue
		}
		var v api.Incident
		if _, err := a.call(ctx, http.MethodGet, base+"/versions/"+strconv.Itoa(n), &v); err != nil {
			return &cs, err
		}
		inc := &model.Incident{Updates: make([]model.Update, len(v.Updates))}
		for i, u := range v.Updates {
			inc.Updates[i] = model.Update{ID: u.ID, Status: u.Status, Body: u.Body, Format: u.Format, PostedAt: time.Time(u.PostedAt)}
		}
		cs.incs = append(cs.incs, inc)
	}
	return &cs, nil
}

// Poll asks the daemon to poll a source now and returns the incidents that changed.
func (a *apiClient) Poll(ctx context.Context, source string) (int, error) {
	var out api.Poll
	_, err := a.call(ctx, http.MethodPost, "/api/v1/sources/"+url.PathEscape(source)+"/poll", &out)
	return out.Changes, err
}
