package web

import (
	"io"
	"net/http"
	"time"
)

// archiveStall is how long an archive write may wait or run before /healthz calls the
// archive stuck: writes take milliseconds, and a backup never holds them.
const archiveStall = 30 * time.Second

// healthz answers GET /healthz: 200 "ok", or 503 with the reason, from the daemon's own
// health only (a vendor being down never fails it): its scheduler, and whether the
// archive takes writes (Store.Health: a recent write failure, a write stuck past
// archiveStall). It is never behind auth, and neither reads nor writes the archive, so a
// check stays cheap however often it runs.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	err := s.daemon.Health()
	if err == nil {
		err = s.store.Health(archiveStall)
	}
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "unhealthy: "+err.Error()+"\n")
		return
	}
	_, _ = io.WriteString(w, "ok")
}
