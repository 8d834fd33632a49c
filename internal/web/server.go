package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/correlate"
	"github.com/statuswatch/statuswatch/internal/correlate/archived"
	"github.com/statuswatch/statuswatch/internal/web/connlimit"
	"github.com/statuswatch/statuswatch/internal/web/ui"
)

// Server timeouts. WriteTimeout covers the slowest ordinary answer (listing every
// incident of a large archive); the two routes that legitimately take longer, a poll and
// a backup, extend their own deadline with http.ResponseController.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 15 * time.Second // only /mcp reads a request body: one small JSON-RPC message
	writeTimeout      = 60 * time.Second
	// idleTimeout is how long a keep-alive connection may wait for its next request: long
	// enough for a reader's next click, short enough that connections held idle free
	// themselves (internal/web/connlimit closes the longest idle one first at the limit anyway).
	idleTimeout    = 30 * time.Second
	maxHeaderBytes = 64 << 10

	// shutdownTimeout bounds the graceful shutdown; connections still busy after it are
	// closed.
	shutdownTimeout = 10 * time.Second
)

// Options configure a Server. Store is required; the rest have defaults.
type Options struct {
	// Store is the archive the API reads.
	Store *archive.Store
	// Daemon is the running daemon; nil serves the archive alone (no configured
	// sources, polls answer 404, /healthz is always ok).
	Daemon Daemon
	// BaseURL is the public URL of the UI, without a trailing slash; ui_url fields are
	// BaseURL + "/incidents/{source}/{id}", root-relative when it is empty.
	BaseURL string
	// Auth holds the credentials every route but /healthz requires when enabled.
	Auth config.Auth
	// Listen is the configured listen address. Without Auth, only requests for its host,
	// BaseURL's host, localhost and loopback addresses are answered (guard.go).
	Listen string
	// Metrics serves /metrics (behind Auth); nil leaves /metrics unrouted.
	Metrics http.Handler
	// Log receives errors and a debug line per request; nil discards. Secrets are never
	// logged.
	Log *slog.Logger
	// Now is the clock for descriptions ("ongoing for …") and default times; nil means
	// time.Now.
	Now func() time.Time
	// TitleOf returns a source's display name, for descriptions and retired sources;
	// nil (or an empty answer) uses the source's name.
	TitleOf func(source string) string
	// HookTokens holds each source's hook_token, by name; a source without one has no
	// push hook (hook.go).
	HookTokens map[string]config.Secret
	// Correlation is correlation.window and the sources' depends_on, for related
	// incidents and events (events.go); zero: the default window, no depends_on.
	Correlation correlate.Options
}

// Server serves the UI, the JSON API, /healthz and /metrics. Its handler is safe for concurrent
// use.
type Server struct {
	store   *archive.Store
	daemon  Daemon
	baseURL string
	auth    config.Auth
	hosts   map[string]bool // the host names of listen and base_url (guard.go)
	metrics http.Handler
	log     *slog.Logger
	now     func() time.Time
	titleOf func(string) string

	hookTokens map[string]config.Secret
	hooks      *hookTriggers // shared with the servers Reconfigure makes

	mux      *http.ServeMux
	patterns []string // every pattern routes registered, in order (openapi_test.go)
	csrf     *http.CrossOriginProtection
	// maxConns bounds the connections Serve holds (internal/web/connlimit); a field so that a test
	// can reach the limit cheaply.
	maxConns int
	readers  *readGate       // bounds the requests that read the whole archive (guard.go)
	ui       *ui.Site        // the pages and feeds
	mcp      http.Handler    // /mcp (mcp.go)
	events   *archived.Index // related incidents and events (events.go)

	// next, once set by Reconfigure, serves every request in this server's place.
	next atomic.Pointer[Server]
}

// New returns a Server for o. It panics when o.Store is nil: that is a wiring bug.
func New(o Options) *Server {
	if o.Store == nil {
		panic("web.New: nil Store")
	}
	s := &Server{
		store:   o.Store,
		daemon:  o.Daemon,
		baseURL: strings.TrimRight(o.BaseURL, "/"),
		auth:    o.Auth,
		hosts:   allowedHosts(o.Listen, o.BaseURL),
		metrics: o.Metrics,
		log:     o.Log,
		now:     o.Now,
		titleOf: o.TitleOf,
		mux:     http.NewServeMux(),

		hookTokens: o.HookTokens,
		hooks:      newHookTriggers(),
		csrf:       http.NewCrossOriginProtection(),

		maxConns: connlimit.DefaultMax,
		readers:  newReadGate(archiveReaders),
	}
	if s.daemon == nil {
		s.daemon = noDaemon{}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	var sources func() []SourceStatus // nil: no daemon runs
	if o.Daemon != nil {
		sources = o.Daemon.Sources
	}
	s.events = archived.New(o.Store, archived.Options{Correlate: o.Correlation, TitleOf: s.title, Now: s.now})
	s.ui = ui.New(ui.Options{Store: o.Store, Sources: sources, BaseURL: o.BaseURL, Log: s.log, Now: s.now, Title: s.title, Events: s.events})
	s.mcp = s.newMCP()
	s.routes()
	return s
}

// wantsHTML reports whether a request for a path outside the API comes from a browser,
// which gets an error page rather than JSON.
func wantsHTML(r *http.Request) bool {
	return !strings.HasPrefix(r.URL.Path, "/api/") && strings.Contains(r.Header.Get("Accept"), "text/html")
}

// Handler returns the server's handler: every route of routes.go behind the security
// headers, the Host check (guard.go), the cross-origin check and, except /healthz,
// authentication.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if next := s.next.Load(); next != nil {
		next.serveHTTP(w, r)
		return
	}
	setSecurityHeaders(w.Header())
	start := time.Now()
	lw := &loggingWriter{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		// The path only: query strings are the client's, and could carry anything.
		s.log.Debug("http request", "method", r.Method, "path", r.URL.Path, "status", lw.status,
			"duration", time.Since(start))
	}()
	if !s.hostAllowed(r) {
		s.log.Debug("http request refused: host not served without web.auth", "method", r.Method, "path", r.URL.Path,
			"remote_addr", r.RemoteAddr)
		refuseHost(lw)
		return
	}
	if err := s.csrf.Check(r); err != nil {
		writeError(lw, http.StatusForbidden, "cross-origin request refused")
		return
	}
	if _, pattern := s.mux.Handler(r); pattern == "" {
		s.unrouted(lw, r)
		return
	}
	s.mux.ServeHTTP(lw, r)
}

// unrouted answers a request no route matches: after authentication, so that the API's
// shape is not probed anonymously, a JSON 404, or a 405 with Allow when the path exists
// for other methods (which the mux works out; its handler is asked and its answer
// rewritten as JSON). A browser asking for a path outside /api/ gets the same status as
// an HTML page.
func (s *Server) unrouted(w http.ResponseWriter, r *http.Request) {
	if !s.authorize(w, r) {
		return
	}
	h, _ := s.mux.Handler(r)
	rec := &headerRecorder{header: http.Header{}, status: http.StatusOK}
	h.ServeHTTP(rec, r)
	if rec.status == http.StatusMethodNotAllowed {
		w.Header()["Allow"] = rec.header["Allow"]
		if wantsHTML(r) {
			s.ui.Error(w, r, http.StatusMethodNotAllowed, "Method not allowed", "This page cannot be asked for with "+r.Method+".")
			return
		}
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed")
		return
	}
	if wantsHTML(r) {
		s.ui.Error(w, r, http.StatusNotFound, "Not found", "There is no page at this address.")
		return
	}
	writeError(w, http.StatusNotFound, "no such endpoint")
}

// Serve serves HTTP on ln until ctx ends, then shuts down gracefully: it stops accepting,
// lets requests in flight finish for up to shutdownTimeout and closes what is left. It
// holds at most maxConns connections at once (internal/web/connlimit). Request
// contexts end with ctx, so a request waiting on a poll gives up at once. It returns nil
// after a shutdown, and the error when serving fails on its own.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	limited := connlimit.New(ln, s.maxConns, s.log)
	srv := &http.Server{
		ConnState:         limited.Track,
		Handler:           s.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	waitHooks := s.hooks.serving(ctx)
	defer waitHooks() // the hook's polls end with ctx
	done := make(chan error, 1)
	go func() { done <- srv.Serve(limited) }()
	select {
	case err := <-done:
		return fmt.Errorf("web: serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Handled here, so logged, not returned: a client slow to read a backup must not
		// make the daemon's exit look like a failure.
		s.log.Warn("http shutdown: closing connections still busy", "timeout", shutdownTimeout, "err", err)
		_ = srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("web: serve %s: %w", ln.Addr(), err)
	}
	return nil
}

// loggingWriter remembers the status for the request log. Unwrap lets
// http.ResponseController reach the connection through it.
type loggingWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (w *loggingWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *loggingWriter) Write(p []byte) (int, error) {
	w.wroteHeader = true
	return w.ResponseWriter.Write(p)
}

func (w *loggingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// headerRecorder captures the status and headers of the mux's own 404 and 405 answers;
// their plain-text bodies are dropped.
type headerRecorder struct {
	header http.Header
	status int
}

func (r *headerRecorder) Header() http.Header         { return r.header }
func (r *headerRecorder) Write(p []byte) (int, error) { return len(p), nil }
func (r *headerRecorder) WriteHeader(code int)        { r.status = code }
