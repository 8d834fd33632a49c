package daemon

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/model"
)

// The component gauge follows each poll's set: a series per watched component, its
// level the state's, and the series of a component that left the page deleted.
func TestComponentStatusGauge(t *testing.T) {
	clk := &clock{t: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)}
	const cfg = "listen: \"\"\nsources:\n" +
		"  - name: acme\n    url: https://acme.test\n    kind: componentstest\n    schedule: \"*/2 * * * *\"\n" +
		"  - name: beta\n    url: https://beta.test\n    kind: componentstest\n    schedule: \"*/2 * * * *\"\n    components: [Core]\n"
	d, _ := newDaemonWith(t, cfg, clk)
	c := func(group, name string, s model.ComponentStatus) model.Component {
		return model.Component{Name: name, Group: group, Status: s}
	}
	poll := func(source string, cs ...model.Component) {
		t.Helper()
		testComponents.set(cs...)
		clk.Add(time.Minute)
		d.job(source)()
	}
	check := func(step, want string) {
		t.Helper()
		head := "# HELP watcher_component_status A component's state on its source's page: 0 operational, 1 maintenance, 2 degraded, 3 partial outage, 4 major outage.\n" +
			"# TYPE watcher_component_status gauge\n"
		if want == "" {
			head = ""
		}
		if err := testutil.GatherAndCompare(d.metrics.reg, strings.NewReader(head+want), "watcher_component_status"); err != nil {
			t.Errorf("%s: %v", step, err)
		}
	}

	check("before any poll", "")
	poll("acme", c("Core", "API", model.ComponentOperational), c("Core", "Web", model.ComponentMaintenance),
		c("Edge", "API", model.ComponentMajorOutage))
	check("first set", `watcher_component_status{component="Core/API",source="acme"} 0
watcher_component_status{component="Edge/API",source="acme"} 4
watcher_component_status{component="Web",source="acme"} 1
`)
	poll("acme", c("Core", "API", model.ComponentDegraded), c("Core", "Web", model.ComponentPartialOutage))
	check("Edge/API gone, the others worse", `watcher_component_status{component="API",source="acme"} 2
watcher_component_status{component="Web",source="acme"} 3
`)
	// beta lists Core: its Edge components have no series.
	poll("beta", c("Core", "DB", model.ComponentMajorOutage), c("Edge", "CDN", model.ComponentDegraded))
	check("beta's list", `watcher_component_status{component="API",source="acme"} 2
watcher_component_status{component="Web",source="acme"} 3
watcher_component_status{component="DB",source="beta"} 4
`)

	// A components list changed under the source takes effect at its next poll, even one
	// that reads the same set (a reload refreshes at once: TestComponentGaugeFollowsReload).
	d.mu.RLock()
	st := d.sources["acme"]
	d.mu.RUnlock()
	st.mu.Lock()
	narrowed := *st.src
	narrowed.Components = []string{"Web"}
	st.src = &narrowed
	st.mu.Unlock()
	poll("acme", c("Core", "API", model.ComponentDegraded), c("Core", "Web", model.ComponentPartialOutage))
	check("acme's list narrowed to Web", `watcher_component_status{component="Web",source="acme"} 3
watcher_component_status{component="DB",source="beta"} 4
`)
	st.mu.Lock()
	widened := *st.src
	widened.Components = nil
	st.src = &widened
	st.mu.Unlock()
	poll("acme", c("Core", "API", model.ComponentDegraded), c("Core", "Web", model.ComponentPartialOutage))

	// A restart's refresh sets them from the archive alone.
	d.metrics.components = map[string]componentSeries{}
	d.refreshGauges()
	check("after refreshGauges", `watcher_component_status{component="API",source="acme"} 2
watcher_component_status{component="Web",source="acme"} 3
watcher_component_status{component="DB",source="beta"} 4
`)

	// promtool check metrics, in-process.
	if problems, err := testutil.GatherAndLint(d.metrics.reg, "watcher_component_status"); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %+v", err, problems)
	}

	d.forgetComponents("acme")
	check("acme removed from the config", `watcher_component_status{component="DB",source="beta"} 4
`)
}

// A reload that changes a source's components list changes its component series at
// once, before its next poll (which may be an hour away).
func TestComponentGaugeFollowsReload(t *testing.T) {
	clk := &clock{t: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)}
	text := func(list string) string {
		return "listen: \"\"\nsources:\n  - name: acme\n    url: https://acme.test\n    kind: componentstest\n    schedule: \"@every 1h\"\n" + list
	}
	d, _ := newDaemonWith(t, text("    components: [API]\n"), clk)
	testComponents.set(model.Component{Name: "API", Status: model.ComponentDegraded}, model.Component{Name: "Web", Status: model.ComponentMajorOutage})
	clk.Add(time.Minute)
	d.job("acme")()
	check := func(step, want string) {
		t.Helper()
		head := "# HELP watcher_component_status A component's state on its source's page: 0 operational, 1 maintenance, 2 degraded, 3 partial outage, 4 major outage.\n" +
			"# TYPE watcher_component_status gauge\n"
		if err := testutil.GatherAndCompare(d.metrics.reg, strings.NewReader(head+want), "watcher_component_status"); err != nil {
			t.Errorf("%s: %v", step, err)
		}
	}
	check("watching API", `watcher_component_status{component="API",source="acme"} 2
`)
	reload := func(list string) {
		t.Helper()
		cfg, err := config.Parse([]byte(text(list)), filepath.Join(t.TempDir(), "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Database = d.config().Database
		if err := d.Reload(t.Context(), cfg); err != nil {
			t.Fatal(err)
		}
	}
	reload("    components: [Web]\n")
	check("reloaded to watch Web", `watcher_component_status{component="Web",source="acme"} 4
`)
	reload("")
	check("reloaded without a list", `watcher_component_status{component="API",source="acme"} 2
watcher_component_status{component="Web",source="acme"} 4
`)
}

func TestComponentLabels(t *testing.T) {
	got := componentLabels([]model.Component{
		{Name: "API", Group: "Core"}, {Name: "API", Group: "Edge"}, {Name: "Web"},
		{ID: "a1", Name: "DB", Group: "Core"}, {ID: "a2", Name: "DB", Group: "Core"}, {Name: "DB"},
	})
	want := []string{"Core/API", "Edge/API", "Web", "Core/DB (a1)", "Core/DB (a2)", "DB"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
