package web

import (
	"net/http"
	"time"
)

// A backup streams a copy of the archive that Store.Backup made first in a local
// temporary file, so a slow client never holds the archive. The stream is still bounded,
// for the temporary file's disk space and the connection: each write must make progress
// within backupStall, and the whole copy must finish within backupMax.
const (
	backupStall = time.Minute
	backupMax   = time.Hour
)

// backup answers GET /api/v1/backup with a consistent copy of the archive file
// (Store.Backup), as an attachment. The copy is streamed, so a failure midway cannot be
// reported in the status: the connection is then aborted, and the client sees a
// truncated transfer rather than a complete-looking one.
func (s *Server) backup(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", `attachment; filename="watcher-`+s.now().UTC().Format("20060102T150405Z")+`.db"`)
	h.Set("Cache-Control", "no-store")
	dw := &deadlineWriter{w: w, rc: http.NewResponseController(w), end: time.Now().Add(backupMax)}
	n, err := s.store.Backup(dw)
	if err == nil {
		return
	}
	if !dw.wrote {
		h.Del("Content-Disposition")
		s.archiveError(w, r, err, "")
		return
	}
	s.log.Warn("backup aborted", "bytes", n, "remote_addr", r.RemoteAddr, "err", err)
	panic(http.ErrAbortHandler) // net/http closes the connection without ending the body
}

// deadlineWriter gives each write to the client backupStall to complete, up to end.
type deadlineWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	end   time.Time
	wrote bool
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	deadline := time.Now().Add(backupStall)
	if deadline.After(d.end) {
		deadline = d.end
	}
	// A ResponseWriter without a connection (tests) cannot take a deadline; fine.
	_ = d.rc.SetWriteDeadline(deadline)
	d.wrote = true
	return d.w.Write(p)
}
