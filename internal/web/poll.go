package web

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
)

// pollTimeout bounds how long POST /sources/{name}/poll waits for its poll, queueing
// behind the concurrency limits included; a source's own timeout is usually far shorter.
const pollTimeout = 2 * time.Minute

// pollSource answers POST /api/v1/sources/{name}/poll: it polls now (or waits for the
// poll in flight) and answers once the result is archived: 200 {changes}, 404 for a
// source the config does not name, 502 {error} when the fetch failed, 504 when the poll
// outlasted pollTimeout, 503 when the server is shutting down.
func (s *Server) pollSource(w http.ResponseWriter, r *http.Request) {
	// The poll may outlast the server's WriteTimeout: give this answer its own deadline.
	// A ResponseWriter without a connection (tests) cannot, which is fine.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(pollTimeout + 10*time.Second))
	ctx, cancel := context.WithTimeout(r.Context(), pollTimeout)
	defer cancel()
	n, err := s.daemon.PollNow(ctx, r.PathValue("name"))
	switch {
	case errors.Is(err, ErrUnknownSource):
		writeError(w, http.StatusNotFound, "unknown source")
	case err != nil && r.Context().Err() != nil:
		// The client left or the server is stopping; the former never reads this.
		writeError(w, http.StatusServiceUnavailable, "poll interrupted: the server is shutting down")
	case err != nil && ctx.Err() != nil:
		writeError(w, http.StatusGatewayTimeout, "poll did not finish within "+pollTimeout.String())
	case err != nil:
		writeError(w, http.StatusBadGateway, err.Error())
	default:
		writeJSON(w, http.StatusOK, api.Poll{Changes: n})
	}
}
