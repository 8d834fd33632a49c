package config

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Error is one configuration error: the key it is about, the line of the file, and what is
// wrong. Its text is `<Path> (line <Line>): <Problem>`, one line, never holding a secret.
type Error struct {
	Path    string // e.g. "sources[2].schedule"; the file name for errors about the file
	Line    int    // 1-based; 0 when unknown
	Problem string
}

// Error returns `<Path> (line <Line>): <Problem>`, or `<Path>: <Problem>` without a line.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s (line %d): %s", e.Path, e.Line, e.Problem)
	}
	return e.Path + ": " + e.Problem
}

// Errors is every problem found in a config, sorted by line; Parse returns one holding at
// least one *Error. Its text is the first error followed by how many more there are, so
// that a log line stays one line; errors.As gets the list (to print each on its own line,
// as `watcher check` does) or its first *Error.
type Errors []*Error

// Error returns the first error, and how many more there are.
func (l Errors) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more: `watcher check` lists them)", l[0], len(l)-1)
}

// Unwrap gives the errors, for errors.As and errors.Is.
func (l Errors) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// maxErrors bounds the errors one Parse collects: past that the walk stops, since a file
// with a hundred errors is the wrong file or needs fixing from the top.
const maxErrors = 100

// errStop is returned once the walk has stopped (over budget, or too many errors): it
// unwinds the walk and is never reported.
var errStop = errors.New("config: walk stopped")

// Why these limits: a secret or CA file is small; reading a mistaken path such as a device
// or a log file must not exhaust memory.
const (
	maxSecretFile = 1 << 20
	maxCAFile     = 16 << 20
)

var (
	sourceName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	kinds      = []string{"auto", "statuspage", "incidentio", "instatus", "statusio", "betterstack", "cachet", "gcp", "aws", "azure", "slack", "feed"}
	impacts    = []model.Impact{model.ImpactNone, model.ImpactMinor, model.ImpactMajor, model.ImpactCritical}
)

// decoder walks the YAML node tree itself rather than unmarshalling into tagged structs:
// that is what gives every error its key path and line, lets ${VAR} expand in scalar
// values only (an environment value can never inject YAML structure), and tells "unset"
// from "set to the zero value" for inherited per-source keys.
type decoder struct {
	file  string         // name for errors about the file as a whole
	dir   string         // base of relative paths
	lines map[string]int // key path → line of the key, for errors found after the walk
	// budget bounds the nodes the walk visits: aliases and merges can make a small file
	// expand exponentially ("billion laughs"), and a config is loaded before anything runs.
	budget int
	// errs are the errors found so far: the walk goes on past a bad key so that one run
	// of `watcher check` reports them all. A function of the walk either records an error
	// here (fail) or returns it, never both.
	errs []*Error
	// warnings are problems that do not stop the config, such as a secret file others
	// can read.
	warnings []*Error
	stopped  bool // over budget or past maxErrors: the rest of the walk is skipped
}

// maxNodes is the walk's budget: 2,000 sources with a dozen keys and a few components
// each visit about 50,000 nodes.
const maxNodes = 1 << 19

// spend charges one visited node against the budget.
func (d *decoder) spend(path string, line int) error {
	if d.stopped {
		return errStop
	}
	d.budget--
	if d.budget < 0 {
		d.stopped = true
		return d.errorf(pathOrFile(path, d.file), line, "aliases and merges expand to more than %d values", maxNodes)
	}
	return nil
}

// fail records an error of the walk; nil and errStop are no error.
func (d *decoder) fail(err error) {
	if err == nil || errors.Is(err, errStop) {
		return
	}
	var ce *Error
	if !errors.As(err, &ce) {
		ce = &Error{Path: d.file, Problem: strings.Join(strings.Fields(err.Error()), " ")}
	}
	for _, e := range d.errs {
		if *e == *ce {
			return // the same key and problem, reached twice (a merged mapping)
		}
	}
	d.errs = append(d.errs, ce)
	if len(d.errs) >= maxErrors {
		d.stopped = true
	}
}

// failedAt reports whether an error was recorded for the key at path or one inside it: a
// rule across keys does not repeat what a key's own error says ("required" after "must
// match").
func (d *decoder) failedAt(path string) bool {
	for _, e := range d.errs {
		if rest, ok := strings.CutPrefix(e.Path, path); ok && (rest == "" || rest[0] == '.' || rest[0] == '[' || strings.HasPrefix(rest, "_file")) {
			return true
		}
	}
	return false
}

// warn records a problem that does not stop the config.
func (d *decoder) warn(path string, line int, format string, args ...any) {
	var ce *Error
	errors.As(d.errorf(path, line, format, args...), &ce)
	d.warnings = append(d.warnings, ce)
}

// sorted returns the findings by line, keeping the walk's order within a line; those
// without a line (about the whole file) come first.
func sorted(list []*Error) []*Error {
	slices.SortStableFunc(list, func(a, b *Error) int { return a.Line - b.Line })
	return list
}

// meta is what the walk remembers of the config beyond the values themselves.
type meta struct {
	slackTokenKey bool // slack.token or slack.token_file is present, even if empty
	sources       []sourceMeta
}

// sourceMeta records which inheritable keys a source set itself.
type sourceMeta struct {
	schedule, timeout, failureThreshold, maintenance bool

	path string // "sources[i]"
}

// handler decodes the value of one key; path is the key's path.
type handler func(path string, v *yaml.Node) error

// pair is one key and its value in a mapping.
type pair struct {
	key     string
	keyLine int
	val     *yaml.Node
}

// secretKeys holds the two forms of a secret key, e.g. token and token_file.
type secretKeys struct {
	name       string // e.g. "token"
	path       string // path of the mapping holding them
	val, file  *yaml.Node
	valPresent bool
}

func (d *decoder) errorf(path string, line int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	// One line, whatever a wrapped error said.
	msg = strings.Join(strings.Fields(msg), " ")
	return &Error{Path: path, Line: line, Problem: msg}
}

func (d *decoder) parse(data []byte) (*Config, error) {
	cfg := &Config{
		Listen:      DefaultListen,
		OnFirstPoll: OnFirstPollOpen,
		Defaults: Defaults{
			Schedule:         DefaultSchedule,
			Timeout:          DefaultTimeout,
			FailureThreshold: DefaultFailureThreshold,
			Maintenance:      true,
		},
		HTTP: HTTP{
			MaxBody:     DefaultMaxBody,
			Concurrency: DefaultConcurrency,
			PerHost:     DefaultPerHost,
		},
		Retention: Retention{RawSnapshots: DefaultRawSnapshots},
		Slack:     Slack{MaxQueueAge: DefaultMaxQueueAge},
	}
	var root *yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	switch err := dec.Decode(&doc); {
	case errors.Is(err, io.EOF):
		// An empty file: every default, no sources.
	case err != nil:
		return nil, Errors{d.syntaxError(data, err)}
	default:
		if len(doc.Content) > 0 {
			root = doc.Content[0]
		}
		var next yaml.Node
		switch err := dec.Decode(&next); {
		case errors.Is(err, io.EOF):
		case err != nil:
			return nil, Errors{d.syntaxError(data, err)}
		default:
			return nil, Errors{d.errorf(d.file, next.Line, "more than one YAML document; watcher reads one").(*Error)}
		}
	}
	m := &meta{}
	if root != nil {
		d.fail(d.root(cfg, m, root))
	}
	if !d.stopped {
		d.fail(d.finish(cfg, m))
	}
	if len(d.errs) > 0 {
		return nil, Errors(sorted(d.errs))
	}
	cfg.Warnings = sorted(d.warnings)
	return cfg, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a YAML parser error into an *Error naming the file and the line where
// the problem is.
//
// The YAML parser names the line where the enclosing construct began (a list item, a
// mapping), often lines above the mistake, and off by one for some errors: a key indented
// one space too few on line 12 of a source that starts on line 10 is reported at line 9.
// The parser reads the file from the top and stops at the first problem, so the first
// line count whose prefix of the file already fails with the same problem is where the
// problem is; a binary search finds it in a few parses.
func (d *decoder) syntaxError(data []byte, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	reported := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		reported, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	line := reported
	if real := problemLine(data, msg, reported); real > 0 {
		line = real
	}
	if lines := bytes.Split(data, []byte("\n")); line > 0 && line <= len(lines) && !strings.Contains(msg, "tab") {
		if indent := lines[line-1][:len(lines[line-1])-len(bytes.TrimLeft(lines[line-1], " \t"))]; bytes.IndexByte(indent, '\t') >= 0 {
			msg += " (a tab in the indentation: YAML indents with spaces)"
		}
	}
	var ce *Error
	errors.As(d.errorf(d.file, line, "%s", msg), &ce)
	return ce
}

// problemLine is the smallest n ≥ from such that the first n lines of data fail to parse
// with problem msg, or 0 when no prefix does.
func problemLine(data []byte, msg string, from int) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	fails := func(n int) bool {
		prefix := bytes.Join(lines[:n], nil)
		dec := yaml.NewDecoder(bytes.NewReader(prefix))
		for {
			var doc yaml.Node
			err := dec.Decode(&doc)
			if err == nil {
				continue
			}
			if errors.Is(err, io.EOF) {
				return false
			}
			got := strings.TrimPrefix(err.Error(), "yaml: ")
			if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
				got = m[2]
			}
			return got == msg
		}
	}
	lo, hi := max(from, 1), len(lines)
	if lo > hi || !fails(hi) {
		return 0
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names a node's kind for "expected X, found Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a single value"
	}
	return "nothing usable"
}

// joinKey appends a mapping key to a path, quoting keys that would not read as one word.
func joinKey(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r == '-' || r == '/' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			plain = false
			break
		}
	}
	if !plain {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// line gives the line to report for a value node, falling back to its key's.
func line(v *yaml.Node, keyLine int) int {
	if v != nil && v.Line > 0 {
		return v.Line
	}
	return keyLine
}

// pairs lists a mapping's keys and values in file order, with YAML merge keys (<<) applied
// and duplicate keys rejected. A null value is an empty mapping.
func (d *decoder) pairs(path string, n *yaml.Node, visiting map[*yaml.Node]bool) ([]pair, error) {
	n = resolve(n)
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, d.errorf(pathOrFile(path, d.file), n.Line, "expected a mapping, found %s", describe(n))
	}
	if visiting == nil {
		visiting = map[*yaml.Node]bool{}
	}
	visiting[n] = true
	defer delete(visiting, n)

	var out, merged []pair
	seen := map[string]int{}
	mergedKeys := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if err := d.spend(path, n.Content[i].Line); err != nil {
			return nil, err
		}
		if k == nil || k.Kind != yaml.ScalarNode {
			return nil, d.errorf(pathOrFile(path, d.file), n.Content[i].Line, "expected a key, found %s", describe(k))
		}
		if k.ShortTag() == "!!merge" {
			var maps []*yaml.Node
			switch rv := resolve(v); {
			case rv != nil && rv.Kind == yaml.SequenceNode:
				maps = rv.Content
			default:
				maps = []*yaml.Node{v}
			}
			for _, mn := range maps {
				if visiting[resolve(mn)] {
					return nil, d.errorf(pathOrFile(path, d.file), k.Line, "a merge (<<) includes itself")
				}
				ps, err := d.pairs(path, mn, visiting)
				if err != nil {
					return nil, err
				}
				// Among merged maps the first to give a key wins, as YAML's merge says.
				for _, p := range ps {
					if !mergedKeys[p.key] {
						mergedKeys[p.key] = true
						merged = append(merged, p)
					}
				}
			}
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.fail(d.errorf(joinKey(path, k.Value), k.Line, "duplicate key (first at line %d)", first))
			continue
		}
		seen[k.Value] = k.Line
		out = append(out, pair{key: k.Value, keyLine: n.Content[i].Line, val: v})
	}
	for _, p := range merged {
		if _, ok := seen[p.key]; !ok {
			out = append(out, p)
		}
	}
	return out, nil
}

func pathOrFile(path, file string) string {
	if path == "" {
		return file
	}
	return path
}

// mapping decodes a mapping whose keys are known: each key's handler runs in file order,
// and a key without one is an error. It records the errors of its keys and goes on with
// the next; it returns an error only when n is no mapping at all.
func (d *decoder) mapping(path string, n *yaml.Node, h map[string]handler) error {
	ps, err := d.pairs(path, n, nil)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if d.stopped {
			return errStop
		}
		kp := joinKey(path, p.key)
		f, ok := h[p.key]
		if !ok {
			d.fail(d.errorf(kp, p.keyLine, "%s", unknownKey(p.key, h)))
			continue
		}
		d.lines[kp] = p.keyLine
		d.fail(f(kp, p.val))
	}
	return nil
}

// unknownKey says a key is unknown, with the nearest known key when one is close.
func unknownKey(key string, h map[string]handler) string {
	best, bestDist := "", 3
	for k := range h {
		if dist := editDistance(strings.ToLower(key), k); dist < bestDist || dist == bestDist && k < best {
			best, bestDist = k, dist
		}
	}
	if best != "" && bestDist <= 2 {
		return fmt.Sprintf("unknown key (did you mean %q?)", best)
	}
	return "unknown key"
}

// editDistance is the Levenshtein distance of a and b, for key suggestions.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return math.MaxInt
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// scalar returns a scalar value with ${VAR} expanded. set is false for a null value
// ("key:" or "key: ~"), which leaves the key at its default.
func (d *decoder) scalar(path string, n *yaml.Node) (s string, set bool, err error) {
	r := resolve(n)
	if isNull(r) {
		return "", false, nil
	}
	if r.Kind != yaml.ScalarNode {
		return "", false, d.errorf(path, line(n, 0), "expected a single value, found %s", describe(r))
	}
	v, err := expand(r.Value)
	if err != nil {
		return "", false, d.errorf(path, line(n, 0), "%v", err)
	}
	return v, true, nil
}

// str decodes a string key into dst; null leaves dst alone.
func (d *decoder) str(dst *string) handler {
	return func(path string, n *yaml.Node) error {
		s, set, err := d.scalar(path, n)
		if set {
			*dst = s
		}
		return err
	}
}

// typed decodes a non-string scalar: null or an empty value (e.g. an unset ${VAR}) leaves
// the default; otherwise parse converts the text or says what is wrong with it.
func typed[T any](d *decoder, dst *T, wasSet *bool, parse func(string) (T, error)) handler {
	return func(path string, n *yaml.Node) error {
		s, set, err := d.scalar(path, n)
		if err != nil || !set || strings.TrimSpace(s) == "" {
			return err
		}
		v, err := parse(strings.TrimSpace(s))
		if err != nil {
			return d.errorf(path, line(n, 0), "%v", err)
		}
		*dst = v
		if wasSet != nil {
			*wasSet = true
		}
		return nil
	}
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("expected true or false, found %q", s)
}

// atLeast returns a parser of integers no smaller than lo.
func atLeast(lo int) func(string) (int, error) {
	return func(s string) (int, error) {
		n, err := strconv.ParseInt(s, 10, 32)
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("too large, found %s", s)
		}
		if err != nil {
			return 0, fmt.Errorf("expected a whole number, found %q", s)
		}
		if int(n) < lo {
			return 0, fmt.Errorf("must be at least %d, found %d", lo, n)
		}
		return int(n), nil
	}
}

// positiveDuration parses a duration that must be above zero.
func positiveDuration(s string) (time.Duration, error) {
	v, err := ParseDuration(s)
	if err == nil && v <= 0 {
		err = fmt.Errorf("must be above 0, found %s", s)
	}
	return v, err
}

func schedule(s string) (string, error) {
	if _, err := ParseSchedule(s); err != nil {
		return "", err
	}
	return s, nil
}

// oneOf returns a parser accepting only the given words.
func oneOf[T ~string](words ...T) func(string) (T, error) {
	return func(s string) (T, error) {
		if slices.Contains(words, T(s)) {
			return T(s), nil
		}
		list := make([]string, len(words))
		for i, w := range words {
			list[i] = string(w)
		}
		return "", fmt.Errorf("must be one of %s, found %q", strings.Join(list, ", "), s)
	}
}

// checkURL says what is wrong with a URL that must be absolute http(s), or "" if nothing.
// It names the value only when echo is true: never for secrets.
func checkURL(s string, echo bool) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		if echo {
			return fmt.Sprintf("must be an absolute http or https URL, found %q", s)
		}
		return "must be an absolute http or https URL"
	}
	if echo && u.User != nil {
		// Credentials in a URL would be printed wherever the URL is: logs, the UI, errors.
		return "must not carry credentials; use headers (they are kept secret)"
	}
	return ""
}

// urlValue parses a URL key that must be absolute http(s).
func urlValue(s string) (string, error) {
	if p := checkURL(s, true); p != "" {
		return "", errors.New(p)
	}
	return s, nil
}

// hasControl reports whether s holds a control character (a newline in a header value or
// token would split the request).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f })
}

// path resolves a file path from the config against the config file's directory.
func (d *decoder) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(d.dir, p)
}

// readFile reads a small regular file. Requiring a regular file keeps a mistaken path (a
// FIFO, a terminal, /dev/zero) from blocking or exhausting the load.
func readFile(name string, limit int64) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	return data, nil
}

// fileError is an os error without the "open" prefix noise, keeping the path.
func fileError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// secretKey returns the two handlers of a secret key and its *_file form.
func (d *decoder) secretKey(sk *secretKeys) (val, file handler) {
	val = func(path string, n *yaml.Node) error {
		sk.val = n
		return nil
	}
	file = func(path string, n *yaml.Node) error {
		sk.file = n
		return nil
	}
	return val, file
}

// secret resolves a secret key from its value or its *_file form. check, if not nil,
// validates the value; its message must not contain the value.
func (d *decoder) secret(sk *secretKeys, check func(string) string) (Secret, error) {
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

// root decodes the top-level mapping.
func (d *decoder) root(cfg *Config, m *meta, n *yaml.Node) error {
	return d.mapping("", n, map[string]handler{
		"database": func(path string, v *yaml.Node) error {
			s, set, err := d.scalar(path, v)
			if set && s != "" {
				cfg.Database = d.path(s)
			}
			return err
		},
		"listen":        d.str(&cfg.Listen),
		"base_url":      d.str(&cfg.BaseURL),
		"on_first_poll": typed(d, &cfg.OnFirstPoll, nil, oneOf(OnFirstPollOpen, OnFirstPollNone, OnFirstPollAll)),
		"defaults": func(path string, v *yaml.Node) error {
			df := &cfg.Defaults
			return d.mapping(path, v, map[string]handler{
				"schedule":          typed(d, &df.Schedule, nil, schedule),
				"timeout":           typed(d, &df.Timeout, nil, positiveDuration),
				"failure_threshold": typed(d, &df.FailureThreshold, nil, atLeast(1)),
				"maintenance":       typed(d, &df.Maintenance, nil, parseBool),
			})
		},
		"http": func(path string, v *yaml.Node) error {
			h := &cfg.HTTP
			return d.mapping(path, v, map[string]handler{
				"user_agent": d.str(&h.UserAgent),
				"max_body": typed(d, &h.MaxBody, nil, func(s string) (int64, error) {
					n, err := ParseSize(s)
					if err == nil && n < 1 {
						err = fmt.Errorf("must be above 0, found %s", s)
					}
					return n, err
				}),
				"concurrency": typed(d, &h.Concurrency, nil, atLeast(1)),
				"per_host":    typed(d, &h.PerHost, nil, atLeast(1)),
				"ca_file": func(path string, v *yaml.Node) error {
					s, _, err := d.scalar(path, v)
					h.CAFile = d.path(s)
					return err
				},
			})
		},
		"web": func(path string, v *yaml.Node) error {
			return d.web(cfg, path, v)
		},
		"retention": func(path string, v *yaml.Node) error {
			return d.mapping(path, v, map[string]handler{
				"raw_snapshots": typed(d, &cfg.Retention.RawSnapshots, nil, func(s string) (time.Duration, error) {
					v, err := ParseDuration(s)
					switch {
					case err == nil && v < 0:
						err = fmt.Errorf("must not be negative, found %s (0 keeps raw snapshots forever)", s)
					case err == nil && v > MaxRawSnapshots:
						err = fmt.Errorf("must be at most 36500d (100 years), found %s (0 keeps raw snapshots forever)", s)
					}
					return v, err
				}),
			})
		},
		"slack": func(path string, v *yaml.Node) error {
			return d.slack(cfg, m, path, v)
		},
		"sources": func(path string, v *yaml.Node) error {
			return d.sources(cfg, m, path, v)
		},
	})
}

func (d *decoder) web(cfg *Config, path string, n *yaml.Node) error {
	w := &cfg.Web
	bearer := &secretKeys{name: "bearer_token", path: path + ".auth"}
	password := &secretKeys{name: "password", path: path + ".auth.basic"}
	bv, bf := d.secretKey(bearer)
	pv, pf := d.secretKey(password)
	err := d.mapping(path, n, map[string]handler{
		"auth": func(path string, v *yaml.Node) error {
			return d.mapping(path, v, map[string]handler{
				"bearer_token":      bv,
				"bearer_token_file": bf,
				"basic": func(path string, v *yaml.Node) error {
					return d.mapping(path, v, map[string]handler{
						"user":          d.str(&w.Auth.Basic.User),
						"password":      pv,
						"password_file": pf,
					})
				},
			})
		},
		"allow_remote": typed(d, &w.AllowRemote, nil, parseBool),
	})
	if err != nil {
		return err
	}
	w.Auth.BearerToken, err = d.secret(bearer, nil)
	d.fail(err)
	w.Auth.Basic.Password, err = d.secret(password, nil)
	d.fail(err)
	if hasControl(w.Auth.Basic.User) || strings.Contains(w.Auth.Basic.User, ":") {
		p := path + ".auth.basic.user"
		return d.errorf(p, d.lines[p], "must not contain a colon or control characters")
	}
	return nil
}

func (d *decoder) slack(cfg *Config, m *meta, path string, n *yaml.Node) error {
	s := &cfg.Slack
	token := &secretKeys{name: "token", path: path}
	webhook := &secretKeys{name: "webhook_url", path: path}
	tv, tf := d.secretKey(token)
	wv, wf := d.secretKey(webhook)
	err := d.mapping(path, n, map[string]handler{
		"token":            tv,
		"token_file":       tf,
		"webhook_url":      wv,
		"webhook_url_file": wf,
		"channel":          d.str(&s.Channel),
		"api_url": typed(d, &s.APIURL, nil, func(v string) (string, error) {
			if _, err := urlValue(v); err != nil {
				return "", err
			}
			// slack-go joins method names onto it directly: it must end in a slash.
			if !strings.HasSuffix(v, "/") {
				v += "/"
			}
			return v, nil
		}),
		"max_queue_age": typed(d, &s.MaxQueueAge, nil, positiveDuration),
	})
	if err != nil {
		return err
	}
	s.Token, err = d.secret(token, nil)
	d.fail(err)
	m.slackTokenKey = token.valPresent
	s.WebhookURL, err = d.secret(webhook, secretURL)
	return err
}

func (d *decoder) sources(cfg *Config, m *meta, path string, n *yaml.Node) error {
	r := resolve(n)
	if isNull(r) {
		return nil
	}
	if r.Kind != yaml.SequenceNode {
		return d.errorf(path, line(n, d.lines[path]), "expected a list, found %s", describe(r))
	}
	names := map[string]string{} // name → path of the source that has it
	for i, item := range r.Content {
		sp := index(path, i)
		if err := d.spend(sp, item.Line); err != nil {
			return err
		}
		src, sm, err := d.source(sp, item)
		if err != nil {
			d.fail(err)
			continue
		}
		itemLine := line(item, 0)
		if src.Name == "" {
			if !d.failedAt(sp + ".name") {
				d.fail(d.errorf(sp+".name", itemLine, "required"))
			}
		} else if first, dup := names[src.Name]; dup {
			np := sp + ".name"
			d.fail(d.errorf(np, d.lines[np], "duplicate source name %q (first at %s, line %d)", src.Name, first, d.lines[first+".name"]))
		} else {
			names[src.Name] = sp
		}
		if src.URL == "" && !d.failedAt(sp+".url") {
			d.fail(d.errorf(sp+".url", itemLine, "required"))
		}
		// A source with errors is kept for the checks across keys, which skip what its
		// errors may have left unset (failedAt).
		sm.path = sp
		cfg.Sources = append(cfg.Sources, src)
		m.sources = append(m.sources, sm)
	}
	return nil
}

func (d *decoder) source(path string, n *yaml.Node) (Source, sourceMeta, error) {
	var s Source
	var sm sourceMeta
	if r := resolve(n); isNull(r) || r.Kind != yaml.MappingNode {
		found := "nothing"
		if !isNull(r) {
			found = describe(r)
		}
		return s, sm, d.errorf(path, line(n, 0), "expected a mapping with name and url, found %s", found)
	}
	webhook := &secretKeys{name: "webhook_url", path: path}
	wv, wf := d.secretKey(webhook)
	err := d.mapping(path, n, map[string]handler{
		"name": typed(d, &s.Name, nil, func(v string) (string, error) {
			if !sourceName.MatchString(v) {
				return "", fmt.Errorf("must match [a-z0-9][a-z0-9_-]*, found %q", v)
			}
			return v, nil
		}),
		"title":             d.str(&s.Title),
		"url":               typed(d, &s.URL, nil, urlValue),
		"kind":              typed(d, &s.Kind, nil, oneOf(kinds...)),
		"schedule":          typed(d, &s.Schedule, &sm.schedule, schedule),
		"timeout":           typed(d, &s.Timeout, &sm.timeout, positiveDuration),
		"paused":            typed(d, &s.Paused, nil, parseBool),
		"components":        d.components(&s.Components),
		"min_impact":        typed(d, &s.MinImpact, nil, oneOf(impacts...)),
		"maintenance":       typed(d, &s.Maintenance, &sm.maintenance, parseBool),
		"channel":           d.str(&s.Channel),
		"webhook_url":       wv,
		"webhook_url_file":  wf,
		"failure_threshold": typed(d, &s.FailureThreshold, &sm.failureThreshold, atLeast(1)),
		"headers":           d.headers(&s.Headers),
		"endpoints":         d.endpoints(&s.Endpoints),
	})
	if err != nil {
		return s, sm, err
	}
	s.WebhookURL, err = d.secret(webhook, secretURL)
	d.fail(err)
	if s.Kind == "" {
		s.Kind = DefaultKind
	}
	d.checkEndpointNames(path, &s)
	return s, sm, nil
}

// checkEndpointNames refuses an endpoint name the source's platform does not have: a
// misspelled override would otherwise be ignored without a word. The names are the ones
// each platform declares with its adapter; a kind: auto source may name any platform's.
// Each unknown name is its own error, and the walk goes on.
func (d *decoder) checkEndpointNames(path string, s *Source) {
	if len(s.Endpoints) == 0 {
		return
	}
	known := fetch.EndpointNames(s.Kind)
	for _, name := range slices.Sorted(maps.Keys(s.Endpoints)) {
		if slices.Contains(known, name) {
			continue
		}
		ep := joinKey(path+".endpoints", name)
		platform := "of kind " + s.Kind
		if s.Kind == "auto" {
			platform = "of any platform"
		}
		msg := fmt.Sprintf("no endpoint %q %s", name, platform)
		best, bestDist := "", 3
		for _, k := range known {
			if dist := editDistance(strings.ToLower(name), k); dist < bestDist {
				best, bestDist = k, dist
			}
		}
		if best != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", best)
		}
		d.fail(d.errorf(ep, d.lines[ep], "%s; known: %s", msg, strings.Join(known, ", ")))
	}
}

// components decodes a list of component names; a single value is not a list.
func (d *decoder) components(dst *[]string) handler {
	return func(path string, n *yaml.Node) error {
		r := resolve(n)
		if isNull(r) {
			return nil
		}
		if r.Kind != yaml.SequenceNode {
			return d.errorf(path, line(n, d.lines[path]), "expected a list, found %s", describe(r))
		}
		out := make([]string, 0, len(r.Content))
		for i, item := range r.Content {
			ip := index(path, i)
			if err := d.spend(ip, item.Line); err != nil {
				return err
			}
			s, _, err := d.scalar(ip, item)
			if err != nil {
				return err
			}
			if s = strings.TrimSpace(s); s == "" {
				return d.errorf(ip, line(item, 0), "empty component name")
			}
			out = append(out, s)
		}
		*dst = out
		return nil
	}
}

// headers decodes a source's extra request headers, whose values are secrets.
func (d *decoder) headers(dst *map[string]Secret) handler {
	return func(path string, n *yaml.Node) error {
		ps, err := d.pairs(path, n, nil)
		if err != nil {
			return err
		}
		out := make(map[string]Secret, len(ps))
		canon := map[string]string{}
		for _, p := range ps {
			hp := joinKey(path, p.key)
			if !validHeaderName(p.key) {
				d.fail(d.errorf(hp, p.keyLine, "not a valid HTTP header name"))
				continue
			}
			c := http.CanonicalHeaderKey(p.key)
			if first, dup := canon[c]; dup {
				d.fail(d.errorf(hp, p.keyLine, "same header as %s", first))
				continue
			}
			canon[c] = p.key
			v, _, err := d.scalar(hp, p.val)
			if err != nil {
				d.fail(err)
				continue
			}
			if hasControl(v) {
				d.fail(d.errorf(hp, line(p.val, p.keyLine), "must not contain control characters or line breaks"))
				continue
			}
			out[p.key] = NewSecret(v)
		}
		*dst = out
		return nil
	}
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// endpoints decodes a source's endpoint overrides.
func (d *decoder) endpoints(dst *map[string]string) handler {
	return func(path string, n *yaml.Node) error {
		ps, err := d.pairs(path, n, nil)
		if err != nil {
			return err
		}
		out := make(map[string]string, len(ps))
		for _, p := range ps {
			ep := joinKey(path, p.key)
			if p.key == "" {
				return d.errorf(ep, p.keyLine, "empty endpoint name")
			}
			d.lines[ep] = p.keyLine
			v, _, err := d.scalar(ep, p.val)
			if err != nil {
				return err
			}
			if pr := checkURL(v, true); pr != "" {
				return d.errorf(ep, line(p.val, p.keyLine), "%s", pr)
			}
			out[p.key] = v
		}
		*dst = out
		return nil
	}
}

// finish applies defaults and inheritance and checks the rules that span keys. It records
// each broken rule and goes on with the next.
func (d *decoder) finish(cfg *Config, m *meta) error {
	if cfg.Database == "" {
		cfg.Database = defaultDatabase(d.dir)
	}
	if cfg.HTTP.UserAgent == "" {
		cfg.HTTP.UserAgent = DefaultUserAgent()
	} else if hasControl(cfg.HTTP.UserAgent) {
		d.fail(d.errorf("http.user_agent", d.lines["http.user_agent"], "must not contain control characters"))
	}
	for i := range cfg.Sources {
		s, sm := &cfg.Sources[i], m.sources[i]
		if !sm.schedule {
			s.Schedule = cfg.Defaults.Schedule
		}
		if !sm.timeout {
			s.Timeout = cfg.Defaults.Timeout
		}
		if !sm.failureThreshold {
			s.FailureThreshold = cfg.Defaults.FailureThreshold
		}
		if !sm.maintenance {
			s.Maintenance = cfg.Defaults.Maintenance
		}
	}

	if cfg.BaseURL != "" {
		if p := checkURL(cfg.BaseURL, true); p != "" {
			d.fail(d.errorf("base_url", d.lines["base_url"], "%s", p))
		}
		cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}

	d.fail(d.checkListen(cfg))
	if b := cfg.Web.Auth.Basic; b.User != "" && !b.Password.IsSet() {
		if p := "web.auth.basic.user"; !d.failedAt("web.auth.basic.password") {
			d.fail(d.errorf(p, d.lines[p], "needs web.auth.basic.password (or password_file)"))
		}
	} else if b.User == "" && b.Password.IsSet() {
		p := "web.auth.basic.password"
		if _, ok := d.lines[p]; !ok {
			p = "web.auth.basic.password_file"
		}
		d.fail(d.errorf(p, d.lines[p], "needs web.auth.basic.user"))
	}

	if f := cfg.HTTP.CAFile; f != "" {
		data, err := readFile(f, maxCAFile)
		if err != nil {
			d.fail(d.errorf("http.ca_file", d.lines["http.ca_file"], "%s", fileError(err)))
		} else if !x509.NewCertPool().AppendCertsFromPEM(data) {
			d.fail(d.errorf("http.ca_file", d.lines["http.ca_file"], "%s holds no PEM certificate", f))
		}
	}

	if len(cfg.Sources) == 0 {
		at, ok := d.lines["sources"]
		where := "sources"
		if !ok {
			where = d.file
		}
		d.warn(where, at, "no sources: nothing will be polled (add vendor pages under sources:, see config.example.yaml)")
	}

	d.fail(d.checkSlack(cfg, m))
	return nil
}

// checkListen checks listen, and refuses to serve beyond loopback without web.auth unless
// web.allow_remote says so: without credentials the UI, the API and the backup are for this
// machine only.
func (d *decoder) checkListen(cfg *Config) error {
	if cfg.Listen == "" {
		return nil
	}
	at := d.lines["listen"]
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return d.errorf("listen", at, "must be host:port, found %q", cfg.Listen)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return d.errorf("listen", at, "port must be a number from 0 to 65535, found %q", port)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || ip != nil && ip.IsLoopback()
	if !loopback && !cfg.Web.Auth.Enabled() && !cfg.Web.AllowRemote {
		return d.errorf("listen", at, "%s is reachable beyond this machine: set web.auth, or web.allow_remote: true", cfg.Listen)
	}
	return nil
}

func (d *decoder) checkSlack(cfg *Config, m *meta) error {
	s := &cfg.Slack
	if s.Token.IsSet() && s.WebhookURL.IsSet() {
		p := "slack.webhook_url"
		if _, ok := d.lines[p]; !ok {
			p = "slack.webhook_url_file"
		}
		return d.errorf(p, d.lines[p], "set either slack.token or slack.webhook_url, not both")
	}
	needDefault := false
	for i := range cfg.Sources {
		src := &cfg.Sources[i]
		sp := m.sources[i].path
		if src.Channel != "" && src.WebhookURL.IsSet() {
			d.fail(d.errorf(sp+".channel", d.lines[sp+".channel"], "set either channel or webhook_url, not both"))
		} else if src.Channel != "" && !m.slackTokenKey {
			// Without a token key the channel could never be used. A token key that is
			// present but empty (an unset ${SLACK_BOT_TOKEN}) is fine: that is console mode.
			d.fail(d.errorf(sp+".channel", d.lines[sp+".channel"], "needs slack.token (a bot token); a webhook posts to its own channel"))
		}
		if src.Channel == "" && !src.WebhookURL.IsSet() && !d.failedAt(sp+".webhook_url") && !d.failedAt(sp+".channel") {
			// A webhook or channel with an error of its own is no sign of wanting the
			// default channel.
			needDefault = true
		}
	}
	if s.Token.IsSet() && s.Channel == "" && needDefault {
		return d.errorf("slack.channel", d.lines["slack"], "required with slack.token, unless every source sets its own channel")
	}
	return nil
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
