package email

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/fakesmtp"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify/kit/kittest"
)

// TestPipeline delivers an incident's life through the archive's outbox and the
// Deliverer: three messages in one thread, a greylisting 451 retried.
func TestPipeline(t *testing.T) {
	r, srv := newPair(t)
	p := kittest.NewPipe(t, r)
	srv.Fail(1, fakesmtp.Fault{Command: "RCPT", Code: 451, Message: "greylisted, try again"})
	for i, inc := range kittest.Incident() {
		if sent, queued, err := p.Poll(inc); err != nil || sent != 1 || queued != 0 {
			t.Fatalf("poll %d: sent %d, queued %d, %v; want 1 sent", i, sent, queued, err)
		}
	}
	msgs := srv.Messages()
	if len(msgs) != 3 {
		t.Fatalf("got %d messages, want 3", len(msgs))
	}
	root := msgs[0].Header().Get("Message-ID")
	if root != "<incident.acme.abc123@example.com>" {
		t.Errorf("got first Message-ID %q", root)
	}
	for _, m := range msgs[1:] {
		if h := m.Header(); h.Get("In-Reply-To") != root || h.Get("References") != root || h.Get("Subject") != "Re: Acme Cloud: Elevated API errors" {
			t.Errorf("got In-Reply-To %q, References %q, Subject %q, want the thread of %s", h.Get("In-Reply-To"), h.Get("References"), h.Get("Subject"), root)
		}
	}
	if m, _ := p.Store.Messages(model.MessagePending, model.MessageParked); len(m) != 0 {
		t.Errorf("got %d messages left, want none", len(m))
	}
}
