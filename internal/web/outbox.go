package web

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/param"
)

// OutboxChanged is implemented by a Daemon that wants to hear of messages retried or
// dropped through the API, so delivery picks them up at once.
type OutboxChanged interface {
	OutboxChanged()
}

// outboxCursor tags the cursors of the outbox list.
const outboxCursor = "outbox"

// listOutbox answers GET /api/v1/outbox?limit=&before=: the undelivered messages, pending
// and parked, oldest first, a page at a time like every list (a Slack outage can queue
// thousands). It backs `watcher outbox list` while the daemon holds the archive.
func (s *Server) listOutbox(w http.ResponseWriter, r *http.Request) {
	p, err := param.ParsePage(r, outboxCursor, 1)
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	var after uint64 // no cursor: from the oldest
	if p.Before != nil {
		if after, err = strconv.ParseUint(p.Before[0], 10, 64); err != nil {
			badRequest(w, "%v", param.ErrBadCursor)
			return
		}
	}
	msgs, err := s.store.Messages(model.MessagePending, model.MessageParked)
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	slices.SortFunc(msgs, func(a, b model.Message) int { return cmp.Compare(a.ID, b.ID) })
	out := []model.Message{}
	for _, m := range msgs {
		if m.ID <= after {
			continue
		}
		if len(out) == p.Limit {
			param.SetNext(w, r, param.Cursor(outboxCursor, strconv.FormatUint(out[len(out)-1].ID, 10)))
			break
		}
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, out)
}

// retryMessage answers POST /api/v1/outbox/{id}/retry: a parked message goes back in the
// queue.
func (s *Server) retryMessage(w http.ResponseWriter, r *http.Request) {
	s.changeMessage(w, r, s.store.Retry)
}

// dropMessage answers POST /api/v1/outbox/{id}/drop: the message is deleted for good.
func (s *Server) dropMessage(w http.ResponseWriter, r *http.Request) {
	s.changeMessage(w, r, s.store.Drop)
}

func (s *Server) changeMessage(w http.ResponseWriter, r *http.Request, op func(uint64) error) {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil {
		badRequest(w, "message id %q is not a number", r.PathValue("id"))
		return
	}
	if err := op(id); err != nil {
		s.archiveError(w, r, err, "no such undelivered message")
		return
	}
	if oc, ok := s.daemon.(OutboxChanged); ok {
		oc.OutboxChanged()
	}
	writeJSON(w, http.StatusOK, map[string]uint64{"id": id})
}
