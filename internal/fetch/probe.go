package fetch

import (
	"regexp"
	"strings"

	"github.com/go-json-experiment/json"
)

// What structural probes (Platform.Probes) judge a decoded answer with: the identifier
// shapes of the platforms, and typed accessors of decoded JSON.

// Identifier shapes.
var (
	// spID is an Atlassian Statuspage id: 12 lower-case letters and digits ("kctbh9vrtdwd").
	spID = regexp.MustCompile(`^[a-z0-9]{12}$`)
	// ulid is a ULID, incident.io's ids: 26 characters of Crockford base32, the first
	// at most 7 (https://github.com/ulid/spec).
	ulid = regexp.MustCompile(`^[0-7][0-9A-HJKMNP-TV-Z]{25}$`)
	// instatusWord is Instatus's page status: one upper-case word (UP, HASISSUES,
	// UNDERMAINTENANCE, and ONEMAJOROUTAGE in the wild).
	instatusWord = regexp.MustCompile(`^[A-Z]{2,32}$`)
)

// sampleSize bounds how many list items a check looks at.
const sampleSize = 20

// decodeObject decodes a JSON object leniently (the adapters' options). nil when the body
// is not one; why says what it is instead.
func decodeObject(contentType string, body []byte) (map[string]any, string) {
	b, err := checkJSONBody(contentType, body)
	if err != nil {
		return nil, jsonWhy(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m, jsonOptions); err != nil {
		return nil, "invalid JSON"
	}
	return m, ""
}

// jsonWhy turns a checkJSONBody/checkJSONArray error into a few words.
func jsonWhy(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}

// Accessors of decoded JSON: the value under key when it has that type.
func objAt(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

func strAt(m map[string]any, key string) (string, bool) {
	v, ok := m[key].(string)
	return v, ok
}

func arrAt(m map[string]any, key string) ([]any, bool) {
	v, ok := m[key].([]any)
	return v, ok
}

// objects returns the first sampleSize items of a list, false when one is no object.
func objects(list []any) ([]map[string]any, bool) {
	out := make([]map[string]any, 0, min(len(list), sampleSize))
	for _, v := range list[:min(len(list), sampleSize)] {
		o, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		out = append(out, o)
	}
	return out, true
}

// hasAny reports whether m has one of keys.
func hasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// isNumber reports whether v is a JSON number, or a string of digits (ids and counts
// some APIs send as strings).
func isNumber(v any) bool {
	switch x := v.(type) {
	case float64:
		return true
	case string:
		return x != "" && strings.Trim(x, "0123456789") == ""
	}
	return false
}
