package all_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fetch"
	_ "github.com/statuswatch/statuswatch/internal/fetch/all"
)

// TestREADMEPlatforms checks that the README's platform table lists exactly the registered
// platforms, each with exactly the endpoint names it declares and the endpoint its
// component states come from ("none" for a platform without): the registry is the only
// list, and the README follows it.
func TestREADMEPlatforms(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9]+)` \\| [^|]+ \\| ([^|]*) \\| ([^|]*) \\|$")
	got := map[string][]string{}
	components := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		components[m[1]] = m[3]
		var names []string
		for _, n := range strings.Split(m[2], ",") {
			names = append(names, strings.Trim(strings.TrimSpace(n), "`"))
		}
		got[m[1]] = slices.Sorted(slices.Values(names))
	}
	for _, kind := range fetch.Kinds() {
		p, _ := fetch.Lookup(kind)
		names, ok := got[kind]
		if !ok {
			t.Errorf("README's platform table lacks kind %s", kind)
			continue
		}
		if !slices.Equal(names, p.Endpoints) {
			t.Errorf("README's %s endpoints: got %v, want %v", kind, names, p.Endpoints)
		}
		want := "none"
		if p.Components != "" {
			want = "`" + p.Components + "`"
		}
		if components[kind] != want {
			t.Errorf("README's %s component states: got %q, want %q", kind, components[kind], want)
		}
		delete(got, kind)
	}
	for kind := range got {
		t.Errorf("README's platform table lists %s, which no platform registers", kind)
	}
}
