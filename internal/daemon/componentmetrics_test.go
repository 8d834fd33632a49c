package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

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

	// A restart's refresh sets them from the archive alone.
	d.metrics.componentStatus.Reset()
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
