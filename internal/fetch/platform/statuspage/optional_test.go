package statuspage

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
)

// TestOptionalEndpoints: the maintenance list and summary are optional, as on every page
// serving the Statuspage v2 JSON (the same suite runs for incident.io).
func TestOptionalEndpoints(t *testing.T) {
	fetchtest.V2Optional{Kind: Kind, Page: realPage}.Run(t)
}
