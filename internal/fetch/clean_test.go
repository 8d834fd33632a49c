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
		cleanText(s)
	}
}
