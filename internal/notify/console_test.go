package notify_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

// TestConsoleMarksWords: an edit of a long update prints as a word diff, the change marked
// and the unchanged text around it shortened, so a small edit in a long body shows.
func TestConsoleMarksWords(t *testing.T) {
	long := "We are investigating reports of elevated error rates for API requests in the EU region. " +
		"Customers may see timeouts when creating or updating resources, and some webhooks may be delayed. " +
		"Our engineers have identified a database failover as the likely trigger and are working to restore " +
		"normal service. Dashboard access is not affected. We will post another update within 30 minutes."
	e := newEnv(t, nil)
	a := inc("a1", model.StatusInvestigating, long)
	e.poll("acme", a)
	a = inc("a1", model.StatusInvestigating, strings.Replace(long, "database failover", "network partition", 1))
	e.poll("acme", a)
	var out bytes.Buffer
	d := e.deliverer()
	d.Notifier = &notify.Console{W: &out}
	e.drain(d)
	got := out.String()
	want := "  … may be delayed. Our engineers have identified a [-database failover-]{+network partition+} as the likely trigger and are working to …\n"
	if !strings.Contains(got, want) {
		t.Errorf("console: want the marked, shortened edit\n%s\nin:\n%s", want, got)
	}
	if strings.Contains(got, "Before: "+long) {
		t.Errorf("console prints the whole body before and after:\n%s", got)
	}
}
