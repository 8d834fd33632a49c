package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// requireAuth lets a request through to h only with valid credentials, when web.auth is
// set; an MCP tool's read of the API (mcp.go) comes through on the credentials of its
// /mcp request.
func (s *Server) requireAuth(h http.Handler) http.Handler {
	if !s.auth.Enabled() {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if inProcess(r) || s.authorize(w, r) {
			h.ServeHTTP(w, r)
		}
	})
}

// authorize reports whether r carries valid credentials (always true when web.auth is not
// set). Otherwise it answers 401 with the challenges and returns false. Neither the
// credentials sent nor the expected ones are ever logged or echoed.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	if !s.auth.Enabled() || s.credentialsOK(r) {
		return true
	}
	s.log.Debug("http request refused: no valid credentials", "method", r.Method, "path", r.URL.Path,
		"remote_addr", r.RemoteAddr)
	w.Header().Add("WWW-Authenticate", `Basic realm="statuswatch"`)
	if s.auth.BearerToken.IsSet() {
		w.Header().Add("WWW-Authenticate", `Bearer realm="statuswatch"`)
	}
	writeError(w, http.StatusUnauthorized, "authentication required")
	return false
}

// credentialsOK checks the Authorization header against the bearer token and the basic
// credentials; either one lets the request in (config.Auth).
func (s *Server) credentialsOK(r *http.Request) bool {
	if token := s.auth.BearerToken.Value(); token != "" {
		scheme, cred, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if ok && strings.EqualFold(scheme, "Bearer") && secretEqual(strings.TrimSpace(cred), token) {
			return true
		}
	}
	if want := s.auth.Basic.User; want != "" {
		user, password, ok := r.BasicAuth()
		// Both compared, whatever the first says, so the time taken does not tell a
		// right user name from a wrong one.
		userOK := secretEqual(user, want)
		passwordOK := secretEqual(password, s.auth.Basic.Password.Value())
		if ok && userOK && passwordOK {
			return true
		}
	}
	return false
}

// secretEqual compares in constant time. Both sides are hashed first because
// subtle.ConstantTimeCompare returns at once on a length mismatch, which would give the
// secret's length away.
func secretEqual(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}
