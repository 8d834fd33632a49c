package config

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestYAMLNodeLeavesChecksToTheWalk pins what go.yaml.in/yaml/v3 does when it decodes into
// a yaml.Node, the form the walk needs for its key paths and lines: it refuses none of
// duplicate keys, self-including merges or alias bombs, and applies no merge key. The
// library does these only when it decodes into Go values (where the key path is lost), so
// the walk's own checks (pairs, spend) are what catch them; the second half of each case
// shows that they do. The one thing the parser does refuse, an anchor on an alias, the
// walk leaves to it. Should a future yaml version start refusing these in the node
// tree, this test fails and the walk's copies can go.
func TestYAMLNodeLeavesChecksToTheWalk(t *testing.T) {
	// As in TestAliasBomb: 9^9 mappings once expanded.
	level := "&a0 {timeout: 1s}"
	for i := 1; i <= 9; i++ {
		level = fmt.Sprintf("&a%d {<<: [%s%s]}", i, level, strings.Repeat(fmt.Sprintf(", *a%d", i-1), 8))
	}
	bomb := "defaults: " + level + "\n"
	tests := []struct {
		name, yml string
		// node checks the parsed tree: what the library left for the walk.
		node func(root *yaml.Node) string
		// want is Parse's error: the walk catching it.
		want string
	}{
		{"duplicate key", "listen: 127.0.0.1:1\nlisten: 127.0.0.1:2\n",
			func(root *yaml.Node) string {
				if got := len(root.Content); got != 4 {
					return fmt.Sprintf("got %d key and value nodes, want 4 (both keys kept)", got)
				}
				return ""
			},
			`listen (line 2): duplicate key (first at line 1)`},
		{"merge key not applied", "defaults: &d {timeout: 5s}\nhttp:\n  <<: *d\n",
			func(root *yaml.Node) string {
				k := root.Content[3].Content[0]
				if k.ShortTag() != "!!merge" || k.Value != "<<" {
					return fmt.Sprintf("got key %q tagged %s, want << left as a !!merge key", k.Value, k.ShortTag())
				}
				return ""
			},
			`http.timeout (line 1): unknown key`},
		{"merge includes itself", "defaults: &d\n  <<: *d\n",
			func(root *yaml.Node) string {
				m := root.Content[1]
				if m.Content[1].Alias != m {
					return "got no cycle, want the alias to name its own mapping"
				}
				return ""
			},
			`defaults (line 2): a merge (<<) includes itself`},
		{"alias bomb", bomb,
			func(root *yaml.Node) string {
				if root.Content[1].Kind != yaml.MappingNode {
					return "got no mapping, want the bomb kept unexpanded"
				}
				return ""
			},
			`defaults (line 1): aliases and merges expand to more than 524288 values`},
	}
	// An alias never names an alias: the parser refuses an anchor on one, which is why
	// resolve follows one step only.
	for _, yml := range []string{"a: &x 1\nb: &y *x\nc: *y\n", "b: &y *y\n"} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(yml), &doc); err == nil {
			t.Errorf("yaml into a node, %q: got no error, want an anchored alias refused", yml)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.yml), &doc); err != nil {
				t.Fatalf("yaml into a node: got %v, want no error", err)
			}
			if p := tt.node(doc.Content[0]); p != "" {
				t.Errorf("yaml into a node: %s", p)
			}
			_, err := Parse([]byte(tt.yml), "")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse: got %v, want %s", err, tt.want)
			}
		})
	}
}
