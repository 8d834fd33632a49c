package notify

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Console is the sink used when no Slack is configured: it prints each notification as
// plain text. It is also the demo's sink.
type Console struct {
	mu sync.Mutex
	W  io.Writer
}

// Send prints n. A write error is retryable: the row stays queued.
func (c *Console) Send(_ context.Context, n Notification) (bool, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "== %s\n", Headline(n))
	switch {
	case n.Message.IncidentID == "":
		if n.Message.Text != "" {
			fmt.Fprintf(&b, "%s\n", n.Message.Text)
		}
	case n.Version != nil:
		inc := &n.Version.Incident
		fmt.Fprintf(&b, "Status: %s · Impact: %s", inc.Status, inc.Impact)
		if len(inc.Components) > 0 {
			fmt.Fprintf(&b, " · Components: %s", strings.Join(inc.Components, ", "))
		}
		b.WriteString("\n")
		if n.Message.Event == model.EventRemoved {
			b.WriteString("The incident is no longer on the vendor's page.\n")
		} else {
			fmt.Fprintf(&b, "Change %d: %s\n", n.Version.N, n.Version.Summary)
			b.WriteString(diff.Text(n.Version.Changes))
		}
		if inc.URL != "" {
			fmt.Fprintf(&b, "Vendor page: %s\n", inc.URL)
		}
	}
	if n.Link != "" {
		fmt.Fprintf(&b, "Full diff: %s\n", n.Link)
	}
	b.WriteString("\n")
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := io.WriteString(c.W, b.String()); err != nil {
		return true, fmt.Errorf("console: %w", err)
	}
	return false, nil
}
