// The JSON schemas of the tools' arguments and results, with the bounds of their numbers.

package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/statuswatch/statuswatch/internal/api"
)

// bound is the minimum, maximum (-1: none) and default (0: none) of a number argument.
type bound struct{ min, max, def int }

// timeSchema is the schema of api.Time: an RFC 3339 string, or null for "not given".
var timeSchema = &jsonschema.Schema{Types: []string{"null", "string"}, Description: "RFC 3339 time in UTC; null when not given"}

var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[api.Time](): timeSchema}}

// outputSchema is the schema of a tool's result type T; a result given by pointer (nil
// with an error) has the schema of what it points to.
func outputSchema[T any]() *jsonschema.Schema {
	t := reflect.TypeFor[T]()
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s, err := jsonschema.ForType(t, schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %v: %v", t, err)) // a programming error
	}
	return s
}

// inputSchema is the schema of a tool's arguments T, with the bounds of its numbers.
func inputSchema[T any](bounds map[string]bound) *jsonschema.Schema {
	s, err := jsonschema.For[T](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %T: %v", *new(T), err))
	}
	for name, b := range bounds {
		p := s.Properties[name]
		if p == nil {
			panic("mcp: no argument " + name)
		}
		p.Minimum = new(float64(b.min))
		if b.max >= 0 {
			p.Maximum = new(float64(b.max))
		}
		if b.def > 0 {
			p.Default = json.RawMessage(strconv.Itoa(b.def))
		}
	}
	return s
}
