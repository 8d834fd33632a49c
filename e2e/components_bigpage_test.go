package e2e

// TestComponentBigPage is issue 14's noise control on a page of 300 components, one
// per data centre in six regional groups (fakepage.NewComponentPage), polled by the
// built binary against a fake Slack: one poll flips 14 data centres to maintenance and
// 3 to degraded.
//
//   - Without a components list: one message, the component thread's root, telling one
//     summary line per status instead of 17 lines; the recovery of all 17 in one poll is
//     one reply of one line, and the root edited; watcher_component_status has a series
//     per component.
//   - With a components list naming two of them: only those two are told, a line each,
//     and the gauge has their two series only.
//
// Unchanged polls between the steps write nothing to the archive and read summary.json
// conditionally (304s).

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/testbin"
)

// bigPageSize is the size of the big page.
const bigPageSize = 300

// bigMaint and bigDegraded are the data centres the poll flips: 0–13 to maintenance
// (spread over all six regions), 20–22 to degraded.
var (
	bigMaint    = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	bigDegraded = []int{20, 21, 22}
)

func dataCentre(i int) string { return fmt.Sprintf("Data centre %03d", i) }

// newBigWorld starts the daemon on a 300-component page with extra in its source.
func newBigWorld(t *testing.T, extra string) *compWorld {
	t.Helper()
	w := newStatuspageWorld(t, fakepage.NewComponentPage("Acme", bigPageSize), extra)
	var got []component
	w.get("/api/v1/sources/acme/components", &got)
	if len(got) != bigPageSize {
		t.Fatalf("GET …/components: %d components, want %d", len(got), bigPageSize)
	}
	w.wantQuietPolls()
	return w
}

// flip sets the data centres of maint to maintenance, those of degraded to degraded
// and every other one operational, and polls.
func (w *compWorld) flip(maint []int, degraded ...int) {
	w.t.Helper()
	cs := w.page.Components()
	for i := range cs {
		cs[i].Status = "operational"
	}
	for _, i := range maint {
		cs[i].Status = "under_maintenance"
	}
	for _, i := range degraded {
		cs[i].Status = "degraded_performance"
	}
	w.page.SetComponents(cs)
	w.poll()
}

// bigGauge is watcher_component_status as it must read: every data centre operational
// but those of set (index → value).
func bigGauge(set map[int]string) map[string]string {
	out := make(map[string]string, bigPageSize)
	for i := range bigPageSize {
		out[dataCentre(i)] = "0"
	}
	for i, v := range set {
		out[dataCentre(i)] = v
	}
	return out
}

// sectionText is the text of a call's first block, a section.
func sectionText(t *testing.T, c fakeslack.Call) string {
	t.Helper()
	var blocks []struct {
		Type string
		Text struct{ Text string }
	}
	if err := json.Unmarshal(c.Blocks, &blocks); err != nil || len(blocks) == 0 || blocks[0].Type != "section" {
		t.Errorf("blocks of %q: %v, want a section first:\n%s", c.Text, err, c.Blocks)
		return ""
	}
	return blocks[0].Text.Text
}

// wantDegradedRoot checks that c posts the component thread's root of a degradation:
// "Acme: <state>" as its text, its section the state and the lines as bullets.
func wantDegradedRoot(t *testing.T, step string, c fakeslack.Call, state string, lines ...string) {
	t.Helper()
	wantCall(t, step, c, "chat.postMessage", "", "Acme: "+state)
	want := ":large_yellow_circle: *Acme*: " + state
	for _, l := range lines {
		want += "\n• " + l
	}
	if got := sectionText(t, c); got != want {
		t.Errorf("%s: the root says\n%s\nwant\n%s", step, got, want)
	}
}

func TestComponentBigPage(t *testing.T) {
	testbin.Build(t)
	flipped := map[int]string{}
	for _, i := range bigMaint {
		flipped[i] = "1"
	}
	for _, i := range bigDegraded {
		flipped[i] = "2"
	}

	t.Run("no components list", func(t *testing.T) {
		t.Parallel()
		w := newBigWorld(t, "")
		w.wantGauge("first set", bigGauge(nil))

		w.flip(bigMaint, bigDegraded...)
		c := w.calls(1)
		wantDegradedRoot(t, "17 changes", c[0],
			"Data centre 020 degraded, Data centre 021 degraded, Data centre 022 degraded and 14 more — no incident posted",
			"3 components degraded: Data centre 020, Data centre 021, Data centre 022",
			"14 components under maintenance: Data centre 000, Data centre 006, Data centre 012, Data centre 001, Data centre 007, and 9 more")
		root := c[0].TS
		w.wantGauge("17 changes", bigGauge(flipped))
		w.wantQuietPolls()

		w.flip(nil)
		wantReplyAndEdit(t, "17 recoveries", w.calls(2), root,
			"Acme · 17 components operational again: Data centre 000, Data centre 006, Data centre 012, Data centre 001, Data centre 007, and 12 more",
			"Acme: all components operational again")
		w.wantGauge("recovered", bigGauge(nil))
		w.wantQuietPolls()
	})

	t.Run("components list", func(t *testing.T) {
		t.Parallel()
		w := newBigWorld(t, "    components: [\"Data centre 001\", \"Data centre 021\"]\n")
		w.wantGauge("first set", map[string]string{"Data centre 001": "0", "Data centre 021": "0"})

		w.flip(bigMaint, bigDegraded...)
		wantDegradedRoot(t, "2 of 17 changes", w.calls(1)[0], "Data centre 021 degraded, Data centre 001 under maintenance — no incident posted",
			"Data centre 001: operational → maintenance", "Data centre 021: operational → degraded")
		w.wantGauge("17 changes", map[string]string{"Data centre 001": "1", "Data centre 021": "2"})
		w.wantQuietPolls()
		var got []component
		w.get("/api/v1/sources/acme/components", &got)
		n := 0
		for _, c := range got {
			if c.Status != "operational" {
				n++
			}
		}
		if n != len(flipped) {
			t.Errorf("GET …/components: %d components not operational, want all %d the poll flipped: the archive keeps every one", n, len(flipped))
		}
	})
}
