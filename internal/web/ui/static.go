package ui

import (
	"bytes"
	"mime"
	"net/http"
	"path"
	"time"
)

// Static answers GET /static/{file}: the embedded stylesheet and script. Pages link them
// with ?v=<hash of the content>, so a browser may keep a copy for a year; its ETag is the
// same hash.
func (s *Site) Static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	version, ok := assetVersions()[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	data, err := staticFS.ReadFile("static/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	h.Set("ETag", `"`+version+`"`)
	if r.URL.Query().Get("v") == version {
		h.Set("Cache-Control", "private, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}
