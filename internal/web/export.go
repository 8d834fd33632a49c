package web

import (
	"errors"
	"io"
	"net/http"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/export"
)

// exportIncident answers GET /api/v1/incidents/{source}/{id}/export: the incident's
// evidence bundle as a zip attachment (internal/web/export), streamed as a backup is. 404
// for an unknown incident, 413 for one with more versions than a bundle holds.
func (s *Server) exportIncident(w http.ResponseWriter, r *http.Request, source, id string) {
	o := s.exportOptions(source, id)
	if _, err := export.Check(o); err != nil {
		if errors.Is(err, export.ErrTooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, err.Error())
			return
		}
		s.archiveError(w, r, err, "unknown incident")
		return
	}
	write := func(w io.Writer) error { return export.Write(w, o) }
	s.attachment(w, r, "application/zip", export.Filename(source, id), "unknown incident", "export", write, "source", source, "id", id)
}

// exportOptions are the options of the bundle of source/id, its versions in the API's
// shape.
func (s *Server) exportOptions(source, id string) export.Options {
	return export.Options{
		Store: s.store, Source: source, ID: id, Title: s.title(source), Now: s.now().UTC(),
		Incident: func(v *model.Version, versions int) api.Incident { return s.incidentJSON(source, id, v, versions) },
	}
}

// Export writes the evidence bundle of source/id to w, as GET …/export answers it: for
// `watcher export` over the archive file.
func (s *Server) Export(w io.Writer, source, id string) error {
	return export.Write(w, s.exportOptions(source, id))
}
