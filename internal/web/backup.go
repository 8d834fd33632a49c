package web

import (
	"io"
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
// (Store.Backup), as an attachment.
func (s *Server) backup(w http.ResponseWriter, r *http.Request) {
	name := "watcher-" + s.now().UTC().Format("20060102T150405Z") + ".db"
	s.attachment(w, r, "application/octet-stream", name, "", "backup", func(w io.Writer) error {
		_, err := s.store.Backup(w)
		return err
	})
}

// attachment streams what write writes as an attachment of type ctype named filename,
// each write bounded as a backup's. A failure before the first byte is answered as an
// archive error (notFound for archive.ErrNotFound); the status is sent by then, so a
// failure midway aborts the connection, logged as what with attrs: the client sees a
// truncated transfer rather than a complete-looking one.
func (s *Server) attachment(w http.ResponseWriter, r *http.Request, ctype, filename, notFound, what string, write func(io.Writer) error, attrs ...any) {
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	h.Set("Cache-Control", "no-store")
	dw := &deadlineWriter{w: w, rc: http.NewResponseController(w), end: time.Now().Add(backupMax)}
	err := write(dw)
	if err == nil {
		return
	}
	if !dw.wrote {
		h.Del("Content-Disposition")
		s.archiveError(w, r, err, notFound)
		return
	}
	s.log.Warn(what+" aborted", append(attrs, "bytes", dw.n, "remote_addr", r.RemoteAddr, "err", err)...)
	panic(http.ErrAbortHandler) // net/http closes the connection without ending the body
}

// deadlineWriter gives each write to the client backupStall to complete, up to end; n
// counts the bytes written.
type deadlineWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	end   time.Time
	wrote bool
	n     int64
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	deadline := time.Now().Add(backupStall)
	if deadline.After(d.end) {
		deadline = d.end
	}
	// A ResponseWriter without a connection (tests) cannot take a deadline; fine.
	_ = d.rc.SetWriteDeadline(deadline)
	d.wrote = true
	n, err := d.w.Write(p)
	d.n += int64(n)
	return n, err
}
