// Package docs carries the repository's machine-readable API description: openapi.json,
// the OpenAPI 3.1 document of every /api/v1 route, embedded so that the daemon serves
// the very file the repository holds (GET /api/v1/openapi.json).
package docs

import _ "embed"

// OpenAPI is openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte
