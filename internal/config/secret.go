package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
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

// secretKeys holds the two forms of a secret key, e.g. token and token_file.
type secretKeys struct {
	name       string // e.g. "token"
	path       string // path of the mapping holding them
	val, file  *yaml.Node
	valPresent bool
}

// secretKey adds the handlers of the secret key name and its *_file form to h, the
// handlers of the mapping at path; secret resolves it once that mapping is walked.
func (d *decoder) secretKey(h map[string]handler, path, name string) *secretKeys {
	sk := &secretKeys{name: name, path: path}
	h[name] = func(_ string, n *yaml.Node) error {
		sk.val = n
		return nil
	}
	h[name+"_file"] = func(_ string, n *yaml.Node) error {
		sk.file = n
		return nil
	}
	return sk
}

// secret resolves a secret key from its value or its *_file form, recording what is
// wrong with it. check, if not nil, validates the value; its message must not contain
// the value.
func (d *decoder) secret(sk *secretKeys, check func(string) string) Secret {
	s, err := d.resolveSecret(sk, check)
	d.fail(err)
	return s
}

// required records "required" for a secret key left out (neither form set), unless
// its own error said more.
func (d *decoder) required(s Secret, sk *secretKeys) {
	d.require(s.IsSet(), joinKey(sk.path, sk.name), d.lines[sk.path], "required (or "+sk.name+"_file)")
}

func (d *decoder) resolveSecret(sk *secretKeys, check func(string) string) (Secret, error) {
	valPath := joinKey(sk.path, sk.name)
	filePath := joinKey(sk.path, sk.name+"_file")
	hasVal, hasFile := !isNull(resolve(sk.val)), !isNull(resolve(sk.file))
	sk.valPresent = hasVal || hasFile
	var v string
	var at string
	var atLine int
	switch {
	case hasVal && hasFile:
		return Secret{}, d.errorf(filePath, d.lines[filePath], "set either %s or %s_file, not both", sk.name, sk.name)
	case hasVal:
		s, _, err := d.scalar(valPath, sk.val)
		if err != nil {
			// Expansion errors say nothing of the value.
			return Secret{}, err
		}
		v, at, atLine = s, valPath, line(sk.val, d.lines[valPath])
	case hasFile:
		name, _, err := d.scalar(filePath, sk.file)
		if err != nil {
			return Secret{}, err
		}
		if name == "" {
			return Secret{}, nil
		}
		data, err := readFile(d.path(name), maxSecretFile)
		if err != nil {
			return Secret{}, d.errorf(filePath, line(sk.file, d.lines[filePath]), "%s", fileError(err))
		}
		v = strings.TrimRight(string(data), "\r\n")
		if v == "" {
			return Secret{}, d.errorf(filePath, line(sk.file, d.lines[filePath]), "%s is empty", d.path(name))
		}
		at, atLine = filePath, line(sk.file, d.lines[filePath])
		d.checkSecretMode(filePath, atLine, d.path(name))
	default:
		return Secret{}, nil
	}
	if v != "" {
		if hasControl(v) {
			return Secret{}, d.errorf(at, atLine, "must not contain control characters or line breaks")
		}
		if check != nil {
			if p := check(v); p != "" {
				return Secret{}, d.errorf(at, atLine, "%s", p)
			}
		}
	}
	return NewSecret(v), nil
}

func secretURL(s string) string { return checkURL(s, false) }

// checkSecretMode warns when a secret file can be read by its group or by anyone: a token
// there is one `cat` away from every account on the host. (systemd's LoadCredential= files
// are 0400 and pass.)
func (d *decoder) checkSecretMode(key string, at int, name string) {
	fi, err := os.Stat(name)
	if err != nil {
		return // it was just read; a race with a rename is no warning's business
	}
	if abs, err := filepath.Abs(name); err == nil {
		name = abs // for a chmod that works from anywhere
	}
	if perm := fi.Mode().Perm(); perm&0o044 != 0 {
		who := "its group"
		if perm&0o004 != 0 {
			who = "anyone"
		}
		d.warn(key, at, "%s can be read by %s (mode %04o): chmod 600 %s", name, who, perm, name)
	}
}

// expand replaces ${NAME} with the environment variable NAME (unset: empty). $${ is a
// literal ${; any other $ is kept as is, so a password with a $ in it survives. It runs on
// scalar values after the YAML is parsed, so a variable can never add keys.
func expand(s string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		if i > 0 && s[i-1] == '$' {
			b.WriteString(s[:i]) // the first $ of $${ is the escape; the second is kept
			b.WriteString("{")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i+2:], '}')
		if j < 0 || !envName.MatchString(s[i+2:i+2+j]) {
			// The value is not quoted back: it may be a secret.
			return "", errors.New("bad ${...} reference: write ${NAME} with letters, digits and _, or $${ for a literal ${")
		}
		b.WriteString(os.Getenv(s[i+2 : i+2+j]))
		s = s[i+3+j:]
	}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
