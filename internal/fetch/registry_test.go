package fetch_test

import (
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/gcp"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/incidentio"
	"github.com/statuswatch/statuswatch/internal/fetch/platform/statuspage"
	"reflect"
	"slices"
	"testing"

	_ "github.com/statuswatch/statuswatch/internal/fetch/all"
)

func TestEndpointNames(t *testing.T) {
	for _, tc := range []struct {
		kind string
		want []string
	}{
		{statuspage.Kind, []string{"incident", "incident-page", "incidents", "scheduled-maintenances", "summary"}},
		{incidentio.Kind, []string{"feed", "incidents", "proxy", "scheduled-maintenances", "summary"}},
		{gcp.Kind, []string{"incidents"}},
		{"nope", nil},
	} {
		if got := fetch.EndpointNames(tc.kind); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("EndpointNames(%q): got %q, want %q", tc.kind, got, tc.want)
		}
	}
	// Every kind declares its endpoints, and auto accepts any of them.
	auto := fetch.EndpointNames("auto")
	for _, k := range fetch.Kinds() {
		names := fetch.EndpointNames(k)
		if len(names) == 0 {
			t.Errorf("kind %s declares no endpoint", k)
		}
		for _, n := range names {
			if !slices.Contains(auto, n) {
				t.Errorf("auto lacks %s's endpoint %q", k, n)
			}
		}
	}
}
