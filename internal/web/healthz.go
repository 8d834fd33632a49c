package web

import (
	"io"
	"net/http"
)

// healthz answers GET /healthz: 200 "ok", or 503 with the reason, from the daemon's own
// health only (SPEC §7: a vendor being down never fails it). It is never behind auth, and
// reads nothing from the archive, so a check stays cheap however often it runs.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := s.daemon.Health(); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "unhealthy: "+err.Error()+"\n")
		return
	}
	_, _ = io.WriteString(w, "ok")
}
