package web

import (
	"net/http"
	"strconv"

	"github.com/statuswatch/statuswatch/internal/model"
)

// OutboxChanged is implemented by a Daemon that wants to hear of messages retried or
// dropped through the API, so delivery picks them up at once.
type OutboxChanged interface {
	OutboxChanged()
}

// listOutbox answers GET /api/v1/outbox: the undelivered messages, pending and parked,
// oldest first. It backs `watcher outbox list` while the daemon holds the archive.
func (s *Server) listOutbox(w http.ResponseWriter, r *http.Request) {
	msgs, err := s.store.Messages(model.MessagePending, model.MessageParked)
	if err != nil {
		s.archiveError(w, r, err, "")
		return
	}
	if msgs == nil {
		msgs = []model.Message{}
	}
	writeJSON(w, http.StatusOK, msgs)
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
