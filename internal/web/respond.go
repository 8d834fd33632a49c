package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
)

// setSecurityHeaders sets the headers every response carries, whatever its route.
func setSecurityHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}

const contentTypeJSON = "application/json; charset=utf-8"

// writeJSON answers status with v as JSON. v is built by the handlers from plain types, so
// a marshalling error is a bug: it is answered 500 before any byte is sent.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data, status = []byte(`{"error":"internal error: cannot encode the answer"}`), http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", contentTypeJSON)
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// writeError answers status with {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, api.Error{Error: msg})
}

// badRequest answers 400 for a parameter the client got wrong.
func badRequest(w http.ResponseWriter, format string, args ...any) {
	writeError(w, http.StatusBadRequest, fmt.Sprintf(format, args...))
}

// archiveError answers an error of an archive read: 404 with notFound for
// archive.ErrNotFound, else 500, logged with its details (paths, bbolt errors) that the
// client is not told.
func (s *Server) archiveError(w http.ResponseWriter, r *http.Request, err error, notFound string) {
	if errors.Is(err, archive.ErrNotFound) {
		writeError(w, http.StatusNotFound, notFound)
		return
	}
	s.log.Error("archive read failed", "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, http.StatusInternalServerError, "internal error: the archive could not be read")
}

// timeLayout is how times are written, in answers and messages alike.
const timeLayout = api.TimeLayout
