package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// API is what the tools read: the daemon's JSON API, /api/v1, whose answers they return
// in its own shapes (internal/api). It is served in process by the web package's handlers
// (InProcess), or over HTTP by a running daemon (the CLI's API client).
type API interface {
	// Get asks GET /api/v1{path}?{query} and decodes the JSON answer into into. It
	// returns the cursor of the next page (X-Next-Cursor), "" on the last page. An error
	// answer is an error carrying the API's message.
	Get(ctx context.Context, path string, query url.Values, into any) (next string, err error)
}

// maxAnswer caps an answer read in process, as the CLI caps one read over HTTP.
const maxAnswer = 64 << 20

// InProcess returns an API whose requests h serves in this process, without a network:
// the handlers of /api/v1 answer exactly as they do over HTTP.
func InProcess(h http.Handler) API { return inProcess{h} }

type inProcess struct{ h http.Handler }

func (p inProcess) Get(ctx context.Context, path string, query url.Values, into any) (string, error) {
	target := "/api/v1" + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return "", err
	}
	// A loopback request for localhost: what the server's Host check admits without auth.
	r.Host, r.RemoteAddr = "localhost", "127.0.0.1:0"
	r.Header.Set("Accept", "application/json")
	w := &recorder{header: http.Header{}, status: http.StatusOK}
	p.h.ServeHTTP(w, r)
	if w.overflow {
		return "", fmt.Errorf("GET %s: the answer is larger than %d MiB", path, maxAnswer>>20)
	}
	if w.status/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(w.body.Bytes(), &e) != nil || e.Error == "" {
			e.Error = strings.ToLower(http.StatusText(w.status))
		}
		return "", &Error{Status: w.status, Message: e.Error}
	}
	if into != nil {
		if err := json.Unmarshal(w.body.Bytes(), into); err != nil {
			return "", fmt.Errorf("GET %s: %w", path, err)
		}
	}
	return w.header.Get("X-Next-Cursor"), nil
}

// Error is an error answer of the API: its HTTP status and message.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string { return e.Message }

// recorder is the ResponseWriter of an in-process request.
type recorder struct {
	header   http.Header
	status   int
	wrote    bool
	body     bytes.Buffer
	overflow bool
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
}

func (w *recorder) Write(p []byte) (int, error) {
	w.wrote = true
	if w.body.Len()+len(p) > maxAnswer {
		w.overflow = true
		return 0, io.ErrShortWrite
	}
	return w.body.Write(p)
}
