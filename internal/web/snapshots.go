package web

import (
	"encoding/base64"
	"net/http"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/web/param"
)

// snapshot answers GET /api/v1/sources/{source}/snapshots?at=T: the raw payload of the
// source in force at T (default now), the last archived at or before T, with its fetch
// time, as evidence of what the vendor's page said. 400 for a bad time, 404 for an
// unknown source or when nothing was archived by T.
func (s *Server) snapshot(w http.ResponseWriter, r *http.Request, source string) {
	at, err := param.TimeOr(r.URL.Query(), "at", s.now().UTC())
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	fetchedAt, bodies, err := s.store.SnapshotAt(source, at)
	if err != nil {
		s.archiveError(w, r, err, "no snapshot of "+source+" archived at or before "+at.Format(timeLayout))
		return
	}
	out := api.Snapshot{Source: source, FetchedAt: api.Time(fetchedAt), Bodies: make([]api.Body, len(bodies))}
	for i, b := range bodies {
		out.Bodies[i] = api.Body{Endpoint: b.Endpoint, Hash: b.Hash}
		if b.Data == nil {
			continue
		}
		var data string
		if utf8.Valid(b.Data) {
			out.Bodies[i].Encoding, data = "utf-8", string(b.Data)
		} else {
			out.Bodies[i].Encoding, data = "base64", base64.StdEncoding.EncodeToString(b.Data)
		}
		out.Bodies[i].Data = &data
	}
	writeJSON(w, http.StatusOK, out)
}
