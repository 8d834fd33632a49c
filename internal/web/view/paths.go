package view

import (
	"net/url"
	"strconv"

	"github.com/statuswatch/statuswatch/internal/model"
)

// RedactURL masks a password in a URL's user info: a page URL is not a secret in the
// config, but one with credentials in it must still not be shown.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// Paths are the addresses of the UI's pages, each under Prefix, the path of BaseURL
// ("/watch" for https://example.com/watch/), so that the UI works behind a proxy that
// serves it under a path. Sources and ids are path-escaped; ids are URL ids (model.URLID).
type Paths struct {
	Prefix string
}

// Source is a source's page.
func (p Paths) Source(source string) string {
	return p.Prefix + "/sources/" + url.PathEscape(source)
}

// SourceFeed is a source's Atom feed.
func (p Paths) SourceFeed(source string) string { return p.Source(source) + "/feed.atom" }

// Incident is an incident's page.
func (p Paths) Incident(source, id string) string {
	return p.Prefix + "/incidents/" + url.PathEscape(source) + "/" + url.PathEscape(model.URLID(id))
}

// Change is the page of the change that made version n.
func (p Paths) Change(source, id string, n int) string {
	return p.Incident(source, id) + "/changes/" + strconv.Itoa(n)
}

// Compare is the page comparing versions from and to.
func (p Paths) Compare(source, id string, from, to int) string {
	return p.Incident(source, id) + "/diff?from=" + strconv.Itoa(from) + "&to=" + strconv.Itoa(to)
}

// APIIncident is an incident page's JSON twin in the API.
func (p Paths) APIIncident(source, id string) string {
	return p.Prefix + "/api/v1/incidents/" + url.PathEscape(source) + "/" + url.PathEscape(model.URLID(id))
}

// APISource is the API's answer for a source (GET /api/v1/sources/{source}).
func (p Paths) APISource(source string) string {
	return p.Prefix + "/api/v1/sources/" + url.PathEscape(source)
}
