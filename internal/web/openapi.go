package web

import (
	"net/http"

	"github.com/statuswatch/statuswatch/docs"
)

// openAPI answers GET /api/v1/openapi.json: the OpenAPI 3.1 document of every /api/v1
// route, docs/openapi.json as embedded (openapi_test.go checks it against routes.go).
func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", contentTypeJSON)
	_, _ = w.Write(docs.OpenAPI)
}
