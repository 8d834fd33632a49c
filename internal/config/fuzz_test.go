package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, and that every error is one line in the
// `<path>[ (line N)]: <problem>` form.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile(filepath.Join("..", "..", "config.example.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(example))
	for _, seed := range []string{
		"",
		"sources:\n  - name: a\n    url: https://a.test\n    schedule: CRON_TZ=UTC\n",
		"sources:\n  - name: a\n    url: https://a.test\n    schedule: 'TZ=UTC TZ='\n",
		"defaults: &d\n  <<: *d\n",
		"a: &a [*a]\n",
		"sources: [{name: a, url: 'https://a.test', headers: {X: '${'}}]\n",
		"http: {max_body: 99999999999TiB}\nretention: {raw_snapshots: 9999999999d}\n",
		"listen: [\n",
		"- 1\n",
		"slack: {token: a, webhook_url: b}\n",
		"web: {auth: {basic: {user: u}}}\n",
		receiversYAML,
		"receivers: [{name: h, webhook: {url: 'https://h.test', secret: s}, teams: {}}]\nroutes: [{match: {title_regex: '(', events: [x]}, receivers: [h, y]}]\n",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, in string) {
		cfg, err := Parse([]byte(in), filepath.Join(dir, "config.yaml"))
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("got a multi-line error %q", msg)
			}
			if !strings.Contains(msg, ": ") {
				t.Errorf("got %q, want <path>: <problem>", msg)
			}
			return
		}
		for i := range cfg.Sources {
			if _, err := ParseSchedule(cfg.Sources[i].Schedule); err != nil {
				t.Errorf("source %d: accepted schedule %q fails to parse: %v", i, cfg.Sources[i].Schedule, err)
			}
		}
	})
}
