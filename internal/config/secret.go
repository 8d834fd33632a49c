package config

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
)

// redacted is what a set Secret prints as.
const redacted = "<redacted>"

// Secret holds a credential: a Slack token, a webhook URL, a web.auth secret or a source
// header value. It prints, marshals and logs as "<redacted>" (or "" when empty), so a Config
// can be printed with %v, %+v, %#v, JSON, YAML or slog without leaking it; Value gives the
// credential itself to the one place that sends it.
//
// It is a struct rather than a string type so that string(s) does not compile: the only way
// to the value is Value, which is easy to find in review.
type Secret struct {
	value string
}

// NewSecret returns a Secret holding v.
func NewSecret(v string) Secret { return Secret{value: v} }

// Value returns the secret itself. Never log it.
func (s Secret) Value() string { return s.value }

// IsSet reports whether the secret is non-empty.
func (s Secret) IsSet() bool { return s.value != "" }

// String returns "<redacted>", or "" when the secret is empty.
func (s Secret) String() string {
	if s.value == "" {
		return ""
	}
	return redacted
}

// GoString is String, so %#v redacts too.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// Format redacts for every verb: fmt prefers a Formatter to Stringer and GoStringer, and this
// also covers verbs such as %x and %q that would otherwise print the underlying bytes.
func (s Secret) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'q', verb == 'v' && f.Flag('#'):
		io.WriteString(f, strconv.Quote(s.String()))
	default:
		io.WriteString(f, s.String())
	}
}

// MarshalJSON encodes the redacted form.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalText encodes the redacted form (YAML, TOML and text encoders use it).
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LogValue makes slog record the redacted form whatever the handler.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

var (
	_ fmt.Formatter  = Secret{}
	_ fmt.Stringer   = Secret{}
	_ fmt.GoStringer = Secret{}
	_ json.Marshaler = Secret{}
	_ slog.LogValuer = Secret{}
)
