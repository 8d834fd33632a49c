package web

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/docs"
)

// openAPIDoc is the part of an OpenAPI document the tests read.
type openAPIDoc struct {
	OpenAPI string `json:"openapi"`
	Paths   map[string]map[string]struct {
		OperationID string `json:"operationId"`
		Parameters  []struct {
			Name string `json:"name"`
			In   string `json:"in"`
		} `json:"parameters"`
		Responses map[string]json.RawMessage `json:"responses"`
	} `json:"paths"`
	Components struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	} `json:"components"`
}

func TestOpenAPICoversEveryRoute(t *testing.T) {
	var doc openAPIDoc
	if err := json.Unmarshal(docs.OpenAPI, &doc); err != nil {
		t.Fatalf("docs/openapi.json is not JSON: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi: got %q, want 3.1.0", doc.OpenAPI)
	}

	documented := map[string]bool{} // "METHOD /api/v1/path"
	for path, ops := range doc.Paths {
		for method := range ops {
			documented[strings.ToUpper(method)+" /api/v1"+path] = true
		}
	}
	routed := map[string]bool{}
	for _, p := range newEnv(t).srv.patterns {
		if method, path, ok := strings.Cut(p, " "); ok && strings.HasPrefix(path, "/api/v1/") {
			routed[method+" "+path] = true
		}
	}
	if len(routed) < 10 {
		t.Fatalf("only %d /api/v1 routes found: %v", len(routed), routed)
	}
	for r := range routed {
		if !documented[r] {
			t.Errorf("%s is routed (routes.go) but not in docs/openapi.json", r)
		}
	}
	for d := range documented {
		if !routed[d] {
			t.Errorf("%s is in docs/openapi.json but not routed", d)
		}
	}
}

func TestOpenAPIDocument(t *testing.T) {
	var doc openAPIDoc
	if err := json.Unmarshal(docs.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	// Every $ref names a schema the document holds.
	for _, m := range regexp.MustCompile(`"\$ref": "#/components/schemas/([A-Za-z]+)"`).FindAllStringSubmatch(string(docs.OpenAPI), -1) {
		if _, ok := doc.Components.Schemas[m[1]]; !ok {
			t.Errorf("$ref to a missing schema %s", m[1])
		}
	}
	ids := map[string]string{}
	for path, ops := range doc.Paths {
		want := regexp.MustCompile(`\{([a-z]+)\}`).FindAllStringSubmatch(path, -1)
		for method, o := range ops {
			if o.OperationID == "" || ids[o.OperationID] != "" {
				t.Errorf("%s %s: operationId %q missing or used twice", method, path, o.OperationID)
			}
			ids[o.OperationID] = path
			if len(o.Responses) == 0 {
				t.Errorf("%s %s: no responses", method, path)
			}
			// Each path parameter is declared.
			for _, w := range want {
				if !slices.ContainsFunc(o.Parameters, func(p struct {
					Name string `json:"name"`
					In   string `json:"in"`
				}) bool {
					return p.Name == w[1] && p.In == "path"
				}) {
					t.Errorf("%s %s: path parameter %s is not declared", method, path, w[1])
				}
			}
		}
	}

	t.Run("served as it is", func(t *testing.T) {
		r := newEnv(t).get("/api/v1/openapi.json", http.StatusOK)
		if string(r.body) != string(docs.OpenAPI) {
			t.Error("GET /api/v1/openapi.json is not docs/openapi.json")
		}
	})
}
