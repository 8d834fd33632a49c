package teams

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/faketeams"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify/kit/kittest"
)

// TestPipeline delivers an incident's life through the archive's outbox and the
// Deliverer: one card per change set; a card Teams refuses is sent once more as the
// plain card, and a 5xx is retried.
func TestPipeline(t *testing.T) {
	r, srv := newPair(t)
	p := kittest.NewPipe(t, r)
	srv.Fail(1, faketeams.Fault{Status: 400, Code: "TriggerInputSchemaMismatch"})
	srv.Fail(1, faketeams.Fault{Status: 503})
	for i, inc := range kittest.Incident() {
		if sent, queued, err := p.Poll(inc); err != nil || sent != 1 || queued != 0 {
			t.Fatalf("poll %d: sent %d, queued %d, %v; want 1 sent", i, sent, queued, err)
		}
	}
	posts := srv.Posts()
	if len(posts) != 5 || posts[0].Status != 400 || posts[1].Status != 503 {
		t.Fatalf("got %d posts, want the 400, the 503, then three cards", len(posts))
	}
	var heads []string
	for _, c := range srv.Accepted() {
		heads = append(heads, c.Text()[0])
	}
	want := []string{"Acme Cloud: New incident: Elevated API errors", "Acme Cloud: Updated incident: Elevated API errors", "Acme Cloud: Resolved: Elevated API errors"}
	if len(heads) != 3 || heads[0] != want[0] || heads[1] != want[1] || heads[2] != want[2] {
		t.Errorf("got headlines %q, want %q", heads, want)
	}
	if plain := srv.Accepted()[0].Cards[0].Body; len(plain) != 2 {
		t.Errorf("got %d elements in the retried card, want the plain card's 2", len(plain))
	}
	if m, _ := p.Store.Messages(model.MessagePending, model.MessageParked); len(m) != 0 {
		t.Errorf("got %d messages left, want none", len(m))
	}
}
