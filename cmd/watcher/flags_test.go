package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runIn runs the command line in process and returns what it printed.
func runIn(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestHelpGoesToStdout(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		inStdout string // "" when stdout must be empty
		inStderr string // "" when stderr must be empty
	}{
		{[]string{"-h"}, exitOK, "usage: watcher <command>", ""},
		{[]string{"--help"}, exitOK, "usage: watcher <command>", ""},
		{[]string{"help"}, exitOK, "usage: watcher <command>", ""},
		{[]string{"help", "diff"}, exitOK, "usage: watcher diff", ""},
		{[]string{"diff", "-h"}, exitOK, "usage: watcher diff", ""},
		{[]string{"poll", "--help"}, exitOK, "usage: watcher poll [flags]\n", ""},
		{[]string{}, exitUsage, "", "watcher: no command given\n\nusage: watcher <command>"},
		{[]string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{[]string{"diff", "-nope"}, exitUsage, "", "flag provided but not defined: -nope\nusage: watcher diff [flags] SOURCE/ID [FROM [TO]]\n"},
		{[]string{"diff"}, exitUsage, "", "usage: watcher diff"},
		{[]string{"check", "my.yaml"}, exitUsage, "", `unexpected argument "my.yaml" (name the config with -config my.yaml)`},
		{[]string{"--version"}, exitOK, "watcher ", ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := runIn(t, tt.args...)
			if code != tt.code {
				t.Errorf("got exit %d, want %d", code, tt.code)
			}
			for _, c := range []struct{ name, got, want string }{{"stdout", stdout, tt.inStdout}, {"stderr", stderr, tt.inStderr}} {
				if c.want == "" && c.got != "" {
					t.Errorf("got %s %q, want nothing", c.name, c.got)
				}
				if !strings.Contains(c.got, c.want) {
					t.Errorf("got %s %q, want it to hold %q", c.name, c.got, c.want)
				}
			}
		})
	}
}

func TestInterspersedFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("config", "", "")
	fs.Bool("open", false, "")
	tests := []struct {
		args, want []string
	}{
		{[]string{"acme/x", "-config", "f"}, []string{"-config", "f", "--", "acme/x"}},
		{[]string{"acme/x", "1", "-config=f", "2"}, []string{"-config=f", "--", "acme/x", "1", "2"}},
		{[]string{"-open", "acme/x"}, []string{"-open", "--", "acme/x"}},
		{[]string{"acme/x", "--open", "-config", "f"}, []string{"--open", "-config", "f", "--", "acme/x"}},
		{[]string{"acme/x", "--", "-config", "f"}, []string{"--", "acme/x", "-config", "f"}},
		{[]string{"acme/x", "-1"}, []string{"--", "acme/x", "-1"}},
		{[]string{"-", "-nope"}, []string{"-nope", "--", "-"}},
		{[]string{"-config"}, []string{"-config"}},
		{nil, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			if got := interspersed(fs, tt.args); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("database: "+filepath.Join(dir, "watcher.db")+"\nlisten: ''\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args     []string
		code     int
		inStderr string
	}{
		// The config is read (so -config was taken as a flag) and the archive is missing.
		{[]string{"diff", "acme/x", "-config", cfg}, exitError, "no archive at"},
		{[]string{"diff", "acme/x", "1", "2", "-config=" + cfg}, exitError, "no archive at"},
		{[]string{"history", "acme/x", "-config", cfg}, exitError, "no archive at"},
		{[]string{"incidents", "-open", "-config", cfg}, exitError, "no archive at"},
		{[]string{"diff", "acme/x", "-1", "-config", cfg}, exitUsage, `version "-1" is not a number`},
		{[]string{"diff", "-config", cfg, "--", "acme/x", "-config"}, exitUsage, `version "-config" is not a number`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Setenv("WATCHER_CONFIG", "/nonexistent/config.yaml")
			_, stderr, code := runIn(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.inStderr) {
				t.Errorf("got exit %d, stderr %q; want exit %d and %q", code, stderr, tt.code, tt.inStderr)
			}
		})
	}
}

func TestMissingIncidentIsNamed(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("database: "+filepath.Join(dir, "watcher.db")+"\nlisten: ''\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runIn(t, "poll", "-config", cfg); code != exitOK {
		t.Fatalf("poll to create the archive: exit %d\n%s", code, stderr)
	}
	for _, cmd := range []string{"diff", "history"} {
		_, stderr, code := runIn(t, cmd, "acme/x", "-config", cfg)
		if want := "error: no incident acme/x in the archive\n"; code != exitError || stderr != want {
			t.Errorf("%s: got exit %d, stderr %q; want exit 1 and %q", cmd, code, stderr, want)
		}
	}
}
