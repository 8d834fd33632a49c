package notify

import "context"

// Router sends each source's messages to the sink that serves it — Slack for the sources
// it routes, the console for the rest. The Deliverer reports every send's result
// (Deliverer.OnResult), whichever sink took it.
type Router struct {
	// Pick returns the sink for a source.
	Pick func(source string) Notifier
}

var _ Threader = (*Router)(nil)

// Destination is the picked sink's destination for source.
func (r *Router) Destination(source string) Destination { return r.Pick(source).Destination(source) }

// Send hands n to the sink of its source.
func (r *Router) Send(ctx context.Context, n *Notification) (Receipt, error) {
	return r.Pick(n.Message.Source).Send(ctx, n)
}

// UpdateRoot edits the root through the sink of the incident's source, when it threads.
func (r *Router) UpdateRoot(ctx context.Context, n *Notification) error {
	if t, ok := r.Pick(n.Message.Source).(Threader); ok {
		return t.UpdateRoot(ctx, n)
	}
	return nil
}
