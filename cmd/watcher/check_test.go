package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckReportsEveryError(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("xoxb-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(token, 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, yml string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(yml), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	db := "database: " + filepath.Join(dir, "watcher.db") + "\n"
	tests := []struct {
		name   string
		yml    string
		code   int
		stdout string
		stderr []string // the lines, in order
	}{
		{"several errors", db + "listen: 0.0.0.0:8080\ndefaults:\n  schedule: every 2m\n  timout: 10s\nsources:\n  - name: Acme\n    url: status.acme.test\n  - name: b\n    url: https://b.test\n    min_impact: high\n",
			exitError, "", []string{
				`error: listen (line 2): 0.0.0.0:8080 is reachable beyond this machine: set web.auth, or web.allow_remote: true`,
				`error: defaults.schedule (line 4): expected exactly 5 fields, found 2 (did you mean "@every 2m"?)`,
				`error: defaults.timout (line 5): unknown key (did you mean "timeout"?)`,
				`error: sources[0].name (line 7): must match [a-z0-9][a-z0-9_-]*, found "Acme"`,
				`error: sources[0].url (line 8): must be an absolute http or https URL, found "status.acme.test"`,
				`error: sources[1].min_impact (line 11): must be one of none, minor, major, critical, found "high"`,
			}},
		{"depends_on", db + "listen: ''\nsources:\n  - name: gcp\n    url: https://gcp.test\n  - name: twingate\n    url: https://tg.test\n    depends_on: [gcp, gpc, twingate]\n",
			exitError, "", []string{
				`error: sources[1].depends_on[1] (line 8): no source named "gpc" (did you mean gcp?)`,
				`error: sources[1].depends_on[2] (line 8): a source cannot depend on itself`,
			}},
		{"one source", db + "listen: ''\nsources:\n  - name: a\n    url: https://a.test\n",
			exitOK, "config OK: 1 source, archive " + filepath.Join(dir, "watcher.db") + "\n", nil},
		{"no sources", db + "listen: ''\n",
			exitOK, "config OK: 0 sources, archive " + filepath.Join(dir, "watcher.db") + ", 1 warning\n", []string{
				"warning: " + filepath.Join(dir, "no sources.yaml") + ": no sources: nothing will be polled (add vendor pages under sources:, see config.example.yaml)",
			}},
		{"readable token", db + "listen: ''\nslack:\n  token_file: token\n  channel: '#c'\nsources:\n  - name: a\n    url: https://a.test\n  - name: b\n    url: https://b.test\n",
			exitOK, "config OK: 2 sources, archive " + filepath.Join(dir, "watcher.db") + ", 1 warning\n", []string{
				"warning: slack.token_file (line 4): " + token + " can be read by anyone (mode 0644): chmod 600 " + token,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := write(tt.name+".yaml", tt.yml)
			stdout, stderr, code := runIn(t, "check", "-config", cfg)
			if code != tt.code {
				t.Errorf("got exit %d, want %d", code, tt.code)
			}
			if stdout != tt.stdout {
				t.Errorf("got stdout %q, want %q", stdout, tt.stdout)
			}
			want := strings.Join(tt.stderr, "\n")
			if got := strings.TrimSuffix(stderr, "\n"); got != want {
				t.Errorf("got stderr\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestDaemonWarnsOfReadableSecretFiles(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "bearer")
	if err := os.WriteFile(token, []byte("t0ken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(token, 0o640); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.yaml")
	yml := "database: " + filepath.Join(dir, "watcher.db") + "\nlisten: " + freeAddr(t, dir) + "\nweb:\n  auth:\n    bearer_token_file: bearer\nsources:\n  - name: a\n    url: http://127.0.0.1:1/\n    paused: true\n"
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, cfg)
	d.stop(t)
	log := d.log()
	want := "web.auth.bearer_token_file (line 5): " + token + " can be read by its group (mode 0640): chmod 600 " + token
	var lines []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "chmod") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], want) {
		t.Errorf("got %q, want one WARN line holding %q", lines, want)
	}
	if strings.Contains(log, "t0ken") {
		t.Errorf("the log holds the secret:\n%s", log)
	}
}
