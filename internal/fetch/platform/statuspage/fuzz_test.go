package statuspage

import (
	"slices"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/statuspagev2"
	"github.com/statuswatch/statuswatch/internal/model"
)

// FuzzStatuspage feeds arbitrary bytes to every Statuspage decoder and to the HTML
// postmortem extractor, seeded with the real payloads and the synthetic page. They must
// reject what they cannot read with an error and never panic; what they accept
// must normalise to sorted, unique components.
//
// Run it with -fuzzminimizetime=0: minimising an interesting mutation of the 84 KB seed
// takes the default minute each time, which stalls the fuzzer.
func FuzzStatuspage(f *testing.F) {
	fetchtest.AddSeeds(f, "statuspage")
	f.Add([]byte(`{"incidents":[{"id":"a","postmortem_published_at":true,"incident_updates":[{}]}]}`))
	f.Add([]byte(`{"incident":{"id":"a","postmortem_body":"x","postmortem_published_at":"2020-01-01T00:00:00Z"}}`))
	f.Add([]byte(`{"page":{"name":"x"},"status":{"indicator":"major"},"components":[{"id":"g","name":"G","group":true},{"id":1,"name":" ","status":"x","group_id":"g"},{"id":"c","name":"C","group_id":"g","status":"partial_outage"},{"id":"c","name":"C2"}]}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		for _, key := range []string{"incidents", "scheduled_maintenances"} {
			l, err := options.DecodeList("application/json", data, key)
			if err != nil {
				continue
			}
			incs, _ := options.NormaliseList(l.List, model.KindIncident, testBase)
			for _, inc := range incs {
				if inc.ID == "" || !slices.IsSorted(inc.Components) {
					t.Fatalf("bad incident %+v", inc)
				}
			}
		}
		if s, err := statuspagev2.DecodeSummary("application/json", data); err == nil {
			fetchtest.CheckComponents(t, s.Components)
		}
		if in, err := statuspagev2.DecodeIncident("application/json", data); err == nil {
			options.Normalise(in, model.KindIncident, testBase)
		}
		postmortemFromHTML(data)
	})
}
