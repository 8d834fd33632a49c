package slack

import (
	"encoding/json"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

// BenchmarkRender renders the Slack payloads of an incident's life — root, replies with
// an edit's word diff, resolution, postmortem — and encodes them as Slack would receive them.
func BenchmarkRender(b *testing.B) {
	inc := versions(plainFixture.life())
	notes := []struct {
		v      *model.Version
		ev     model.Event
		thread bool
	}{{inc[0], model.EventNew, false}, {inc[1], model.EventChanged, true}, {inc[2], model.EventChanged, true}, {inc[3], model.EventResolved, true}, {inc[4], model.EventPostmortem, true}}
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range notes {
			m := render(note(plainFixture, n.v, n.ev, n.thread), false)
			if _, err := json.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	}
}
