package web

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/export"
)

// exportIncident answers GET /api/v1/incidents/{source}/{id}/export: the incident's
// evidence bundle as a zip attachment (internal/web/export). 404 for an unknown incident,
// 413 for one with more versions than a bundle holds. The zip is streamed, with the
// backup's write deadlines; a failure after the first byte aborts the connection, so the
// client sees a truncated transfer, never a complete-looking zip.
func (s *Server) exportIncident(w http.ResponseWriter, r *http.Request) {
	source, id := r.PathValue("source"), r.PathValue("id")
	o := s.exportOptions(source, id)
	if _, err := export.Check(o); err != nil {
		if errors.Is(err, export.ErrTooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, err.Error())
			return
		}
		s.archiveError(w, r, err, "unknown incident")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", `attachment; filename="`+export.Filename(source, id)+`"`)
	h.Set("Cache-Control", "no-store")
	dw := &deadlineWriter{w: w, rc: http.NewResponseController(w), end: time.Now().Add(backupMax)}
	err := export.Write(dw, o)
	if err == nil {
		return
	}
	if !dw.wrote {
		h.Del("Content-Disposition")
		s.archiveError(w, r, err, "unknown incident")
		return
	}
	s.log.Warn("export aborted", "source", source, "id", id, "remote_addr", r.RemoteAddr, "err", err)
	panic(http.ErrAbortHandler)
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
