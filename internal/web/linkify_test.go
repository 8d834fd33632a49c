package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// TestPagesLinkVendorURLs: the incident page links the URLs in update bodies (text and
// HTML) and postmortems; the dashboard's card excerpt links a whole URL and keeps a cut
// one as text.
func TestPagesLinkVendorURLs(t *testing.T) {
	e := newEnv(t)
	long := "See https://status.example.com/incidents/" + strings.Repeat("x", 300)
	inc := model.Incident{
		ID: "u1", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMinor,
		Title: "Links", StartedAt: t0,
		Updates: []model.Update{
			{ID: "1", Status: model.StatusInvestigating, Body: "Details: https://a.example/x?y=1&z=2.", PostedAt: t0},
			{ID: "2", Status: model.StatusIdentified, Body: "b", HTML: `<p>Read https://b.example/post and <a href="https://c.example/">this</a></p>`, PostedAt: t0.Add(time.Minute)},
		},
		Postmortem: &model.Postmortem{Body: "- item https://d.example/pm\n- two", Format: model.FormatMarkdown, PublishedAt: t0.Add(time.Hour)},
	}
	e.record("acme", t0, []model.Incident{inc})
	page := string(e.htmlGet("/incidents/acme/u1", http.StatusOK).body)
	for _, want := range []string{
		`<a href="https://a.example/x?y=1&amp;z=2" rel="nofollow noopener">https://a.example/x?y=1&amp;z=2</a>.`,
		`<a href="https://b.example/post" rel="nofollow noopener">https://b.example/post</a>`,
		`<a href="https://c.example/" rel="nofollow noreferrer noopener" target="_blank">this</a>`,
		// Markdown links its URLs itself (GFM autolinks), and the sanitiser sets rel.
		`<li>item <a href="https://d.example/pm" rel="nofollow noreferrer noopener" target="_blank">https://d.example/pm</a></li>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("incident page: want %s", want)
		}
	}
	inc.Updates = append(inc.Updates, model.Update{ID: "3", Status: model.StatusIdentified, Body: long, PostedAt: t0.Add(2 * time.Minute)})
	e.record("acme", t0.Add(time.Hour), []model.Incident{inc})
	dash := string(e.htmlGet("/", http.StatusOK).body)
	if want := `<p class="card-excerpt">See https://status.example.com/incidents/xxx`; !strings.Contains(dash, want) {
		t.Errorf("dashboard: want the cut URL as text: %s", want)
	}
	if strings.Contains(dash, `href="https://status.example.com/incidents/x`) {
		t.Errorf("dashboard: a cut URL became a link")
	}
}
