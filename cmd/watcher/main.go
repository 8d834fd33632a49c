// Command watcher monitors vendor status pages: it polls them, archives every version of
// every incident, and posts what changed to Slack. See `watcher -h`.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "time/tzdata" // CRON_TZ= schedules work on hosts without zone data
)

// Exit codes: 0 success, 1 error, 2 usage, and poll's 3.
const (
	exitOK      = 0
	exitError   = 1
	exitUsage   = 2
	exitPartial = 3 // poll: some source failed or a notification is still queued
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// command is one `watcher` subcommand.
type command struct {
	name    string
	summary string // its line in `watcher -h`; its synopsis and flags are its own -h
	run     func(ctx context.Context, env *env, args []string) int
}

// env is what every command gets: its output streams.
type env struct {
	stdout, stderr io.Writer
}

// fail prints err as the command's error line and returns the exit code of an error.
func (e *env) fail(err error) int {
	fmt.Fprintf(e.stderr, "error: %v\n", err)
	return exitError
}

func commands() []command {
	return []command{
		{"run", "the daemon: schedules, polls, archives, notifies, serves listen", runRun},
		{"poll", "one round now, delivers the outbox, exits (3: a source failed or a message is queued)", runPoll},
		{"check", "validates the config", runCheck},
		{"detect", "prints the detected provider", runDetect},
		{"incidents", "lists archived incidents", runIncidents},
		{"history", "lists the versions of an incident with their summaries", runHistory},
		{"diff", "prints a change set as text (default: previous → latest)", runDiff},
		{"mcp", "serves the archive to AI tools over MCP on stdio", runMCP},
		{"outbox", "shows and handles undelivered and parked messages", runOutbox},
		{"export", "an incident's evidence bundle as a zip", runExport},
		{"backup", "consistent hot copy of the archive", runBackup},
		{"compact", "reclaims space in the archive", runCompact},
		{"demo", "offline demo of the whole pipeline", runDemo},
		{"version", "version, commit, Go version", runVersion},
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		// A usage error: no command given.
		fmt.Fprint(stderr, "watcher: no command given\n\n")
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && name == "help" {
			// `watcher help diff` is `watcher diff -h`.
			if c, ok := lookup(args[1]); ok {
				return c.run(ctx, e, []string{"-h"})
			}
			fmt.Fprintf(stderr, "watcher help: unknown command %q\n\n", args[1])
			usage(stderr)
			return exitUsage
		}
		usage(stdout)
		return exitOK
	}
	if name == "-version" || name == "--version" {
		name = "version"
	}
	if c, ok := lookup(name); ok {
		return c.run(ctx, e, args[1:])
	}
	fmt.Fprintf(stderr, "watcher: unknown command %q\n\n", name)
	usage(stderr)
	return exitUsage
}

// lookup finds a command by name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: watcher <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nFlags may come before or after the arguments; \"--\" ends them.")
	fmt.Fprintln(w, "Run `watcher <command> -h` (or `watcher help <command>`) for a command's flags.")
}
