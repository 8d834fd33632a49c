package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/statuswatch/statuswatch/internal/mcp"
)

// newMCP is the handler of /mcp: the MCP server of internal/mcp over Streamable HTTP,
// whose tools read this server's own API in process (selfAPI).
func (s *Server) newMCP() http.Handler {
	return mcp.HTTPHandler(mcp.NewServer(mcp.InProcess(http.HandlerFunc(s.selfAPI)), mcp.Options{Log: s.log}), s.log)
}

// inProcessKey marks a request the server makes of its own API for an MCP tool: the /mcp
// request that asked for it has passed authentication already, so requireAuth lets it
// through. A context value cannot come from the network, so no client can set it.
type inProcessKey struct{}

// selfAPI serves the MCP tools' reads of /api/v1: GET only, through the routes of
// routes.go (the same handlers, limits and gates as over HTTP), skipping the checks of a
// request from the network, which the /mcp request has passed.
func (s *Server) selfAPI(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/api/v1/") {
		writeError(w, http.StatusNotFound, "no such endpoint")
		return
	}
	s.mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), inProcessKey{}, true)))
}

// inProcess reports whether r is one of selfAPI's.
func inProcess(r *http.Request) bool { return r.Context().Value(inProcessKey{}) != nil }
