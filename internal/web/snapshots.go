package web

import (
	"encoding/base64"
	"net/http"
	"unicode/utf8"
)

// snapshotJSON is the answer of GET /api/v1/sources/{source}/snapshots.
type snapshotJSON struct {
	Source    string     `json:"source"`
	FetchedAt jsonTime   `json:"fetched_at"`
	Bodies    []bodyJSON `json:"bodies"`
}

// bodyJSON is one raw body as fetched. Data is the body itself when it is valid UTF-8
// (Encoding "utf-8"), standard base64 otherwise (Encoding "base64"), and null with no
// Encoding when its bytes were never archived.
type bodyJSON struct {
	Endpoint string  `json:"endpoint"`
	Hash     string  `json:"hash"` // hex SHA-256 of the body
	Encoding string  `json:"encoding,omitempty"`
	Data     *string `json:"data"`
}

// snapshot answers GET /api/v1/sources/{source}/snapshots?at=T: the raw payload of the
// source in force at T (default now), the last archived at or before T, with its fetch
// time, as evidence of what the vendor's page said. 400 for a bad time, 404 for an
// unknown source or when nothing was archived by T.
func (s *Server) snapshot(w http.ResponseWriter, r *http.Request) {
	source := r.PathValue("source")
	at := s.now().UTC()
	if raw := r.URL.Query().Get("at"); raw != "" {
		t, err := parseTime("at", raw)
		if err != nil {
			badRequest(w, "%v", err)
			return
		}
		at = t
	}
	fetchedAt, bodies, err := s.store.SnapshotAt(source, at)
	if err != nil {
		s.archiveError(w, r, err, "no snapshot of "+source+" archived at or before "+at.Format(timeLayout))
		return
	}
	out := snapshotJSON{Source: source, FetchedAt: jsonTime(fetchedAt), Bodies: make([]bodyJSON, len(bodies))}
	for i, b := range bodies {
		out.Bodies[i] = bodyJSON{Endpoint: b.Endpoint, Hash: b.Hash}
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
