package fetch

import (
	"regexp"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/statuswatch/statuswatch/internal/fetch/payload"
)

// What structural probes (Platform.Probes) judge a decoded answer with: the identifier
// shapes of the platforms, and typed accessors of decoded JSON.

// Identifier shapes.
var (
	// StatuspageID is an Atlassian Statuspage id: 12 lower-case letters and digits ("kctbh9vrtdwd").
	StatuspageID = regexp.MustCompile(`^[a-z0-9]{12}$`)
	// ULID is a ULID, incident.io's ids: 26 characters of Crockford base32, the first
	// at most 7 (https://github.com/ULID/spec).
	ULID = regexp.MustCompile(`^[0-7][0-9A-HJKMNP-TV-Z]{25}$`)
)

// SampleSize bounds how many list items a check looks at.
const SampleSize = 20

// DecodeObject decodes a JSON object leniently (the adapters' options). nil when the body
// is not one; why says what it is instead.
func DecodeObject(contentType string, body []byte) (map[string]any, string) {
	b, err := payload.CheckJSONBody(contentType, body)
	if err != nil {
		return nil, JSONWhy(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m, payload.JSONOptions); err != nil {
		return nil, "invalid JSON"
	}
	return m, ""
}

// DecodeObjectAt is DecodeObject for a check that wants the object under path (keys of
// nested objects) too; nil, and why, when the body is no object or has no object there
// ("JSON without <what>").
func DecodeObjectAt(contentType string, body []byte, what string, path ...string) (m, at map[string]any, why string) {
	if m, why = DecodeObject(contentType, body); m == nil {
		return nil, nil, why
	}
	at = m
	for _, k := range path {
		at = ObjAt(at, k)
	}
	if at == nil {
		return nil, nil, "JSON without " + what
	}
	return m, at, ""
}

// JSONWhy turns a CheckJSONBody/CheckJSONArray error into a few words.
func JSONWhy(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}

// Accessors of decoded JSON: the value under key when it has that type.
func ObjAt(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

func StrAt(m map[string]any, key string) (string, bool) {
	v, ok := m[key].(string)
	return v, ok
}

func ArrAt(m map[string]any, key string) ([]any, bool) {
	v, ok := m[key].([]any)
	return v, ok
}

// Objects returns the first SampleSize items of a list, false when one is no object.
func Objects(list []any) ([]map[string]any, bool) {
	out := make([]map[string]any, 0, min(len(list), SampleSize))
	for _, v := range list[:min(len(list), SampleSize)] {
		o, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		out = append(out, o)
	}
	return out, true
}

// HasAny reports whether m has one of keys.
func HasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// IsNumber reports whether v is a JSON number, or a string of digits (ids and counts
// some APIs send as strings).
func IsNumber(v any) bool {
	switch x := v.(type) {
	case float64:
		return true
	case string:
		return x != "" && strings.Trim(x, "0123456789") == ""
	}
	return false
}
