package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/statuswatch/statuswatch/internal/archive"
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

// handler decodes the value of one key; path is the key's path.
type handler func(path string, v *yaml.Node) error

// pair is one key and its value in a mapping.
type pair struct {
	key     string
	keyLine int
	val     *yaml.Node
}

func (d *decoder) parse(data []byte) (*Config, error) {
	cfg := &Config{
		Listen:      DefaultListen,
		OnFirstPoll: archive.FirstPollOpen,
		Defaults: Defaults{
			Schedule:         DefaultSchedule,
			Timeout:          DefaultTimeout,
			FailureThreshold: DefaultFailureThreshold,
			Maintenance:      true,
			ComponentChanges: archive.ComponentChangesNotify,
			OpenInterval:     DefaultOpenInterval,

			MaintenanceReminder: DefaultMaintenanceReminder,
		},
		HTTP: HTTP{
			MaxBody:     DefaultMaxBody,
			Concurrency: DefaultConcurrency,
			PerHost:     DefaultPerHost,
		},
		Retention:   Retention{RawSnapshots: DefaultRawSnapshots},
		Correlation: Correlation{Window: DefaultCorrelationWindow},
		Slack:       Slack{MaxQueueAge: DefaultMaxQueueAge},
	}
	root, perr := d.document(data)
	if perr != nil {
		return nil, Errors{perr}
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

// document returns the root node of the one YAML document data holds (nil for an empty
// file: every default, no sources), or the error that stops the parse: a syntax error or
// a second document.
func (d *decoder) document(data []byte) (*yaml.Node, *Error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root *yaml.Node
	for i := 0; ; i++ {
		var doc yaml.Node
		err := dec.Decode(&doc)
		switch {
		case errors.Is(err, io.EOF):
			return root, nil
		case err != nil:
			return nil, d.syntaxError(data, err)
		case i > 0:
			return nil, d.errorf(d.file, doc.Line, "more than one YAML document; watcher reads one").(*Error)
		}
		if len(doc.Content) > 0 {
			root = doc.Content[0]
		}
	}
}

// resolve follows an alias to the node it names. One step is all: the parser refuses an
// anchor on an alias, so an alias never names another (TestYAMLNodeLeavesChecksToTheWalk).
func resolve(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode {
		return n.Alias
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

// each decodes a list item by item, f decoding the item at path ip: null is an empty
// list, anything else but a list an error. Each item is charged against the budget; an
// error f returns ends the list.
func (d *decoder) each(path string, n *yaml.Node, f func(ip string, item *yaml.Node) error) error {
	r := resolve(n)
	if isNull(r) {
		return nil
	}
	if r.Kind != yaml.SequenceNode {
		return d.errorf(path, line(n, d.lines[path]), "expected a list, found %s", describe(r))
	}
	for i, item := range r.Content {
		ip := index(path, i)
		if err := d.spend(ip, item.Line); err != nil {
			return err
		}
		if err := f(ip, item); err != nil {
			return err
		}
	}
	return nil
}

// item returns the error of a list item that is no mapping ("expected a mapping with
// <with>, found …"), or nil.
func (d *decoder) item(path string, n *yaml.Node, with string) error {
	r := resolve(n)
	if !isNull(r) && r.Kind == yaml.MappingNode {
		return nil
	}
	found := "nothing"
	if !isNull(r) {
		found = describe(r)
	}
	return d.errorf(path, line(n, 0), "expected a mapping with %s, found %s", with, found)
}

// require records problem at path, on line at, when set is false, unless an error of
// the key itself said more ("required" after "must match").
func (d *decoder) require(set bool, path string, at int, problem string) {
	if !set && !d.failedAt(path) {
		d.fail(d.errorf(path, at, "%s", problem))
	}
}

// uniqueName checks the name of the list item at path, a source or a receiver (what):
// required, and not the name of an item before it; names maps each name to the path of
// the item that has it.
func (d *decoder) uniqueName(names map[string]string, what, path, name string, itemLine int) {
	np := path + ".name"
	switch first, dup := names[name]; {
	case name == "":
		d.require(false, np, itemLine, "required")
	case dup:
		d.fail(d.errorf(np, d.lines[np], "duplicate %s name %q (first at %s, line %d)", what, name, first, d.lines[first+".name"]))
	default:
		names[name] = path
	}
}

// suggest is " (did you mean <nearest>?)" for a word that is not one of known but
// close to one, else "".
func suggest(word string, known []string) string {
	if best := nearest(word, known); best != "" {
		return " (did you mean " + best + "?)"
	}
	return ""
}

// block is the handler of a mapping whose keys are h's.
func (d *decoder) block(h map[string]handler) handler {
	return func(path string, v *yaml.Node) error { return d.mapping(path, v, h) }
}

// unknownKey says a key is unknown, with the nearest known key when one is close.
func unknownKey(key string, h map[string]handler) string {
	if best := nearest(key, slices.Sorted(maps.Keys(h))); best != "" {
		return fmt.Sprintf("unknown key (did you mean %q?)", best)
	}
	return "unknown key"
}

// nearest is the known word within two edits of word (ignoring its case), the closest and
// then the first in known's order; "" when none is that close.
func nearest(word string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if dist := editDistance(strings.ToLower(word), k); dist < bestDist {
			best, bestDist = k, dist
		}
	}
	return best
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
