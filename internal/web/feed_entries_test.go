package web

import (
	"encoding/xml"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/atom"
)

// TestFeedEntries: an entry's title says what the change did, and its content reads in a
// feed reader without our CSS: new updates and a Markdown postmortem as HTML
// (paragraphs, lists, links), line breaks in a diffed body as <br>.
func TestFeedEntries(t *testing.T) {
	e := newEnv(t)
	v1 := model.Incident{
		ID: "f1", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMajor,
		Title: "Queue delays", StartedAt: t0,
		Updates: []model.Update{{ID: "u1", Status: model.StatusInvestigating, Body: "Jobs are delayed.\n\nSee https://q.example/status", PostedAt: t0}},
	}
	v2 := clone(v1)
	v2.Updates = append(v2.Updates, model.Update{ID: "u2", Status: model.StatusInvestigating, Body: "Still looking.", PostedAt: t0.Add(10 * time.Minute)})
	v3 := clone(v2)
	v3.Updates[0].Body = "Jobs are delayed.\nIn eu-west-1 only.\n\nSee https://q.example/status"
	v4 := clone(v3)
	v4.Status, v4.ResolvedAt = model.StatusResolved, t0.Add(time.Hour)
	v4.Postmortem = &model.Postmortem{Body: "## Cause\n\nA full disk.\n\n- one\n- two", Format: model.FormatMarkdown, PublishedAt: t0.Add(time.Hour)}
	v5 := clone(v4)
	v5.Status = model.StatusPostmortem
	v5.Postmortem.Body += "\n- three"
	e.record("acme", t0.Add(-time.Minute), nil) // the first poll: nothing on the page
	for i, inc := range []model.Incident{v1, v2, v3, v4, v5} {
		e.record("acme", t0.Add(time.Duration(i)*time.Minute), []model.Incident{inc})
	}
	var f atom.Feed
	if err := xml.Unmarshal(e.get("/sources/acme/feed.atom", http.StatusOK).body, &f); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		title   string
		content []string
	}{
		{"Postmortem: Queue delays · Acme", []string{"<del>", "- two<br>\n</span><ins>- three</ins>"}},
		{"Resolved: Queue delays · Acme", []string{"<h3>Postmortem</h3>", "<h3>Cause</h3>", "<p>A full disk.</p>", "<ul>\n<li>one</li>\n<li>two</li>\n</ul>"}},
		{"Update edited: Queue delays · Acme", []string{"Investigating · 2026-07-01 12:00 UTC", "Jobs are delayed.<br>\n</span><ins>In eu-west-1 only.</ins>"}},
		{"New update: Queue delays · Acme", []string{"<h3>New update · Investigating · 2026-07-01 12:10 UTC</h3>\n<p>Still looking.</p>"}},
		{"New incident: Queue delays · Acme", []string{"<h3>New update · Investigating · 2026-07-01 12:00 UTC</h3>\n<p>Jobs are delayed.</p><p>See <a href=\"https://q.example/status\" rel=\"nofollow noopener\">https://q.example/status</a></p>"}},
	}
	if len(f.Entries) != len(tests) {
		t.Fatalf("got %d entries, want %d", len(f.Entries), len(tests))
	}
	for i, tt := range tests {
		got := f.Entries[i]
		if got.Title != tt.title {
			t.Errorf("entry %d: title: got %q, want %q", i, got.Title, tt.title)
		}
		for _, want := range tt.content {
			if !strings.Contains(got.Content.Body, want) {
				t.Errorf("entry %d (%s): content lacks %q:\n%s", i, got.Title, want, got.Content.Body)
			}
		}
	}
}
