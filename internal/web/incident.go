package web

import "net/http"

// incident answers GET /api/v1/incidents/{source}/{id}: the latest version of the
// incident, with its description; 404 for an unknown incident.
func (s *Server) incident(w http.ResponseWriter, r *http.Request) {
	source, id := r.PathValue("source"), r.PathValue("id")
	v, err := s.latest(source, id)
	if err != nil {
		s.archiveError(w, r, err, "unknown incident")
		return
	}
	writeJSON(w, http.StatusOK, s.incidentView(source, id, v, v.N))
}
