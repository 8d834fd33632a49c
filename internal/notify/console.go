package notify

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Console is the sink used when no Slack is configured: it prints each notification as
// plain text, edited text as a word diff (coloured on a terminal, [-removed-]{+added+}
// otherwise; see TerminalStyle). It is also the demo's sink.
type Console struct {
	mu sync.Mutex
	W  io.Writer
}

// Destination is the console for every source: no threads, no pacing.
func (c *Console) Destination(string) Destination {
	return Destination{Key: "console", Account: "console"}
}

// Send prints n once. A write error is transient: the row stays queued.
func (c *Console) Send(_ context.Context, n *Notification) (Receipt, error) {
	var b strings.Builder
	switch {
	case n.Digest != nil:
		fmt.Fprintf(&b, "== %s\n", DigestLine(n.Digest))
	case n.Flood != nil:
		writeFlood(&b, n)
	case n.Components != nil:
		writeComponents(&b, n)
	case n.Message.IncidentID == "":
		fmt.Fprintf(&b, "== %s\n", Headline(*n))
		if n.Message.Text != "" {
			fmt.Fprintf(&b, "%s\n", n.Message.Text)
		}
	case n.Version != nil:
		fmt.Fprintf(&b, "== %s\n", Headline(*n))
		inc := &n.Version.Incident
		fmt.Fprintf(&b, "Status: %s · Impact: %s", inc.Status, inc.Impact)
		if len(inc.Components) > 0 {
			fmt.Fprintf(&b, " · Components: %s", strings.Join(inc.Components, ", "))
		}
		b.WriteString("\n")
		switch {
		case n.Message.Event == model.EventRemoved:
			b.WriteString("The incident is no longer on the vendor's page.\n")
		case IsReminder(&n.Message):
			fmt.Fprintf(&b, "Scheduled: %s\n", Window(inc))
		case n.Version.N == 1 && len(inc.Updates) > 0:
			// A first version's diff is every field against "not present": say what the
			// page says instead; `watcher diff` still shows it field by field.
			u := inc.Updates[len(inc.Updates)-1]
			fmt.Fprintf(&b, "%s (%s): %s\n", u.Status, diff.FormatTime(u.PostedAt), u.Body)
		default:
			fmt.Fprintf(&b, "Change %d: %s\n", n.Version.N, n.Version.Summary)
			b.WriteString(diff.Terminal(n.Version.Changes, TerminalStyle(c.W), &n.Version.Incident))
		}
		if inc.URL != "" {
			fmt.Fprintf(&b, "Vendor page: %s\n", inc.URL)
		}
	default:
		fmt.Fprintf(&b, "== %s\n", Headline(*n))
	}
	switch {
	case n.Link != "" && IsReminder(&n.Message):
		fmt.Fprintf(&b, "History: %s\n", n.Link)
	case n.Link != "":
		fmt.Fprintf(&b, "Full diff: %s\n", n.Link)
	}
	b.WriteString("\n")
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := io.WriteString(c.W, b.String()); err != nil {
		return Receipt{}, fmt.Errorf("console: %w", err)
	}
	return Receipt{}, nil
}

var _ Notifier = (*Console)(nil)

// writeFlood prints a flood: its line, the incidents it names, and how many more.
func writeFlood(b *strings.Builder, n *Notification) {
	f := n.Flood
	fmt.Fprintf(b, "== %s\n", FloodLine(n.SourceTitle, f))
	for _, it := range f.Items {
		fmt.Fprintf(b, "- %s: %s", it.What, it.Title)
		if link := cmp.Or(it.Link, it.VendorURL); link != "" {
			fmt.Fprintf(b, " %s", link)
		}
		b.WriteString("\n")
	}
	if more := FloodMore(f); more != "" {
		b.WriteString(more)
		if f.Link != "" {
			fmt.Fprintf(b, ": %s", f.Link)
		}
		b.WriteString("\n")
	}
}

// writeComponents prints a component message: its headline, then its lines when the
// headline does not say it all, the incident whose thread took it, and the source's
// page. The console threads nothing: a message opens the component thread only when
// its version did.
func writeComponents(b *strings.Builder, n *Notification) {
	fmt.Fprintf(b, "== %s\n", ComponentHeadline(n, false))
	lines := ComponentLines(n.Components, n.Told())
	if len(lines) > 1 || n.ComponentOpens(false) {
		for _, l := range lines {
			fmt.Fprintf(b, "- %s\n", l)
		}
	}
	if n.IncidentTitle != "" {
		fmt.Fprintf(b, "Incident: %s\n", n.IncidentTitle)
	}
	if n.SourceLink != "" {
		fmt.Fprintf(b, "Components: %s\n", n.SourceLink)
	}
}
