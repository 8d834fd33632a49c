package daemon

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
)

// componentPage is a test platform whose every poll reads the component set it holds.
type componentPage struct {
	mu   sync.Mutex
	list []model.Component
}

var testComponents = &componentPage{}

func init() {
	fetch.Register(fetch.Platform{Kind: "componentstest", Poll: testComponents.poll})
}

func (p *componentPage) set(cs ...model.Component) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = cs
}

func (p *componentPage) poll(pl *fetch.Poll, _ context.Context) (*model.Snapshot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return &model.Snapshot{Source: pl.Req.Source.Name, FetchedAt: pl.Req.Now,
		Components: &model.Components{List: slices.Clone(p.list)}}, nil
}

// The daemon hands a source's component_changes and components list to the archive.
func TestPollComponentSettings(t *testing.T) {
	api := func(s model.ComponentStatus) model.Component {
		return model.Component{Name: "API", Group: "Core", Status: s}
	}
	web := func(s model.ComponentStatus) model.Component {
		return model.Component{Name: "Web", Group: "Edge", Status: s}
	}
	tests := []struct {
		name string
		src  config.Source
		want []int // messages of each poll after the first
	}{
		{"notify", config.Source{ComponentChanges: archive.ComponentChangesNotify}, []int{1, 1}},
		{"archive", config.Source{ComponentChanges: archive.ComponentChangesArchive}, []int{0, 0}},
		{"components list", config.Source{ComponentChanges: archive.ComponentChangesNotify, Components: []string{"Edge"}}, []int{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &clock{t: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)}
			_, store := newDaemonWith(t, "listen: ''\n", clk)
			client, err := fetch.NewClient(fetch.ClientOptions{UserAgent: "t", MaxBody: 1 << 20, Timeout: time.Second, Concurrency: 1, PerHost: 1})
			if err != nil {
				t.Fatal(err)
			}
			p := &Poller{Store: store, Client: client, OnFirstPoll: "open", Now: clk.Now}
			src := tt.src
			src.Name, src.URL, src.Kind, src.FailureThreshold = "acme", "https://acme.test", "componentstest", 3
			steps := [][]model.Component{
				{api(model.ComponentOperational), web(model.ComponentOperational)},
				{api(model.ComponentDegraded), web(model.ComponentOperational)},
				{api(model.ComponentDegraded), web(model.ComponentMajorOutage)},
			}
			for i, cs := range steps {
				testComponents.set(cs...)
				clk.Add(time.Minute)
				out, err := p.Poll(t.Context(), &src)
				if err != nil {
					t.Fatal(err)
				}
				if i > 0 && out.Messages != tt.want[i-1] {
					t.Errorf("poll %d: got %d messages, want %d", i, out.Messages, tt.want[i-1])
				}
			}
			if v, err := store.ComponentsLatest("acme"); err != nil || v == nil || v.N != 3 {
				t.Errorf("ComponentsLatest: got %+v, %v; want version 3", v, err)
			}
		})
	}
}
