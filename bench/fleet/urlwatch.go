package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// ensureUrlwatch finds urlwatch, installing the Debian package when it is missing (the
// benchmark's own setup; tests never call this). It returns the executable and its
// version.
func ensureUrlwatch(ctx context.Context, log io.Writer) (path, version string, err error) {
	path, err = exec.LookPath("urlwatch")
	if err != nil {
		fmt.Fprintln(log, "urlwatch missing: apt-get install -y urlwatch")
		install := func(args ...string) error {
			cmd := exec.CommandContext(ctx, "apt-get", args...)
			cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
			cmd.Stdout, cmd.Stderr = log, log
			return cmd.Run()
		}
		if err := install("install", "-y", "urlwatch"); err != nil {
			// The package lists may be missing or stale: refresh them once and retry.
			if err := install("update"); err != nil {
				return "", "", fmt.Errorf("apt-get update: %w", err)
			}
			if err := install("install", "-y", "urlwatch"); err != nil {
				return "", "", fmt.Errorf("apt-get install -y urlwatch: %w", err)
			}
		}
		if path, err = exec.LookPath("urlwatch"); err != nil {
			return "", "", fmt.Errorf("urlwatch still not found after installing it: %w", err)
		}
	}
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return "", "", fmt.Errorf("urlwatch --version: %w\n%s", err, out)
	}
	return path, strings.TrimSpace(string(out)), nil
}

// urlwatchRun is urlwatch set up in its own directory: a job list of the pages'
// incidents.json URLs, a config whose only reporter is stdout (redirected to a file; no
// colour, nothing sent anywhere), and a cache that starts empty.
type urlwatchRun struct {
	path, dir                  string
	urls, config, cache, hooks string
	caFile                     string // the fleet's CA under -tls: REQUESTS_CA_BUNDLE
}

func newUrlwatchRun(path, dir string, fleet *fakepage.Fleet, n int) (*urlwatchRun, error) {
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o700); err != nil {
		return nil, err
	}
	u := &urlwatchRun{
		path: path, dir: dir,
		urls:   filepath.Join(dir, "urls.yaml"),
		config: filepath.Join(dir, "urlwatch.yaml"),
		cache:  filepath.Join(dir, "cache.db"),
		hooks:  filepath.Join(dir, "hooks.py"), // never created: no hooks
	}
	var jobs strings.Builder
	for i := range n {
		if i > 0 {
			jobs.WriteString("---\n")
		}
		fmt.Fprintf(&jobs, "name: p%04d\nurl: %s%s\n", i, fleet.URL(i), incidentsPath)
	}
	// Reporters other than stdout are off by default; they are listed off all the same so
	// that nothing is ever sent whatever the packaged defaults are.
	const config = `display:
  new: true
  error: true
  unchanged: false
report:
  text:
    details: true
    footer: true
    minimal: false
  stdout:
    enabled: true
    color: false
  email:
    enabled: false
  pushover:
    enabled: false
  pushbullet:
    enabled: false
  telegram:
    enabled: false
  slack:
    enabled: false
  matrix:
    enabled: false
  mailgun:
    enabled: false
  xmpp:
    enabled: false
  discord:
    enabled: false
  ifttt:
    enabled: false
  prowl:
    enabled: false
  mattermost:
    enabled: false
  html:
    diff: unified
  markdown:
    details: true
    footer: true
    minimal: false
job_defaults:
  all: {}
  shell: {}
  url: {}
  browser: {}
`
	if err := os.WriteFile(u.urls, []byte(jobs.String()), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(u.config, []byte(config), 0o600); err != nil {
		return nil, err
	}
	return u, nil
}

// child is one urlwatch round: every job once, against the cache.
func (u *urlwatchRun) child() child {
	home := filepath.Join(u.dir, "home")
	c := child{
		name: "urlwatch", dir: u.dir, path: u.path,
		args: []string{"--urls", u.urls, "--config", u.config, "--cache", u.cache, "--hooks", u.hooks},
		// Its own home, so it neither reads nor writes the user's urlwatch files.
		env: []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache")},
	}
	if u.caFile != "" {
		// requests verifies against this bundle instead of certifi's (it replaces the
		// roots rather than adding to them: the fleet's CA is all these pages need).
		c.env = append(c.env, "REQUESTS_CA_BUNDLE="+u.caFile)
	}
	return c
}
