package fetch

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestClean(t *testing.T) {
	s := &model.Snapshot{Incidents: []model.Incident{{
		Title:      "red \x1b[31malert\x1b[0m \xff end",
		Components: []string{"API\x00"},
		Updates:    []model.Update{{Body: "line one\r\nline two\tok\x07"}},
		Postmortem: &model.Postmortem{Body: "fine text"},
	}}}
	Clean(s)
	inc := s.Incidents[0]
	if inc.Title != "red [31malert[0m \uFFFD end" {
		t.Errorf("title: got %q", inc.Title)
	}
	if inc.Components[0] != "API" {
		t.Errorf("component: got %q", inc.Components[0])
	}
	if inc.Updates[0].Body != "line one\nline two\tok" {
		t.Errorf("body: got %q", inc.Updates[0].Body)
	}
	if inc.Postmortem.Body != "fine text" {
		t.Errorf("postmortem: got %q", inc.Postmortem.Body)
	}
}

func BenchmarkCleanText(b *testing.B) {
	s := "We are investigating elevated error rates on the API. Customers may see delays in workflow runs starting and in page builds completing."
	for b.Loop() {
		CleanText(s)
	}
}

// TestCleanInvisibleCharacters: bidirectional overrides and zero-width characters in any
// vendor text are dropped, so a title cannot read differently from what it holds.
func TestCleanInvisibleCharacters(t *testing.T) {
	s := &model.Snapshot{PageTitle: "\ufeffAcme", Incidents: []model.Incident{{
		Title:      "All systems \u202elanoitarepo\u202c",
		Components: []string{"A\u200bPI"},
		Updates:    []model.Update{{Status: "resol\u200bved", Body: "Fixed\u2066 now\u2069."}},
	}}}
	Clean(s)
	inc := s.Incidents[0]
	for _, c := range []struct{ field, got, want string }{
		{"page title", s.PageTitle, "Acme"},
		{"title", inc.Title, "All systems lanoitarepo"},
		{"component", inc.Components[0], "API"},
		{"update status", string(inc.Updates[0].Status), "resolved"},
		{"update body", inc.Updates[0].Body, "Fixed now."},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.field, c.got, c.want)
		}
	}
}
