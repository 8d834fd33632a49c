package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/statuswatch/statuswatch/internal/config"
)

// flagOutput is where a command's flag set writes: standard error by default (usage
// errors, and the usage a command prints for a wrong argument count), standard output for
// help that was asked for, so that `watcher diff -h | less` shows it.
type flagOutput struct {
	stdout, stderr io.Writer
	to             io.Writer
}

func (o *flagOutput) Write(p []byte) (int, error) { return o.to.Write(p) }

// cmdFlags is a command's flag set, and the one way a command opens: declare its flags,
// parse them (parse, parseArgs, parseRef), then load the config of -config (loadConfig),
// or both at once (parseConfig).
type cmdFlags struct {
	*flag.FlagSet
	e          *env
	out        *flagOutput
	configPath *string // -config; nil for a command that reads no config
}

// newFlags makes the flag set of a command that reads no config; its -h prints the
// command's synopsis and flags.
func newFlags(e *env, name, args, summary string) *cmdFlags {
	out := &flagOutput{stdout: e.stdout, stderr: e.stderr, to: e.stderr}
	fs := &cmdFlags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), e: e, out: out}
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\n%s\n\n", strings.TrimSpace("watcher "+name+" [flags] "+args), summary)
		fs.PrintDefaults()
	}
	return fs
}

// configFlags is newFlags for a command that reads the config: it adds -config with its
// default chain.
func configFlags(e *env, name, args, summary string) *cmdFlags {
	fs := newFlags(e, name, args, summary)
	fs.configPath = fs.String("config", "", "config file (default: $WATCHER_CONFIG, else /etc/watcher/config.yaml, else ./config.yaml)")
	return fs
}

// parse parses flags wherever they are among the arguments; ok is false when the command
// should exit with code: 0 after -h (help on standard output), 2 after a usage error
// (the error and the usage on standard error).
func (fs *cmdFlags) parse(args []string) (code int, ok bool) {
	// The flag package prints the usage before it returns ErrHelp, and an error message
	// plus the usage for a bad flag, all to one writer: hold it until we know which.
	var held bytes.Buffer
	out := fs.out
	out.to = &held
	err := fs.Parse(interspersed(fs.FlagSet, args))
	out.to = out.stderr
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		out.to = out.stdout
		fs.Usage()
		out.to = out.stderr
		return exitOK, false
	default:
		out.stderr.Write(held.Bytes())
		return exitUsage, false
	}
}

// parseArgs is parse for a command that takes from min to max positional arguments: any
// other count prints the command's usage on standard error and exits 2.
func (fs *cmdFlags) parseArgs(args []string, min, max int) (code int, ok bool) {
	if code, ok := fs.parse(args); !ok {
		return code, false
	}
	if fs.NArg() < min || fs.NArg() > max {
		fs.Usage()
		return exitUsage, false
	}
	return 0, true
}

// parseRef is parseArgs for a command whose first argument is SOURCE/ID: one that is
// not is a usage error too.
func (fs *cmdFlags) parseRef(args []string, min, max int) (source, id string, code int, ok bool) {
	if code, ok := fs.parseArgs(args, min, max); !ok {
		return "", "", code, false
	}
	ref := fs.Arg(0)
	source, id, ok = strings.Cut(ref, "/")
	if !ok || source == "" || id == "" {
		fmt.Fprintf(fs.e.stderr, "watcher: %q is not SOURCE/ID\n", ref)
		return "", "", exitUsage, false
	}
	return source, id, 0, true
}

// parseConfig is parse, then loadConfig: cfg is nil when the command should exit with
// code.
func (fs *cmdFlags) parseConfig(args []string) (cfg *config.Config, code int) {
	if code, ok := fs.parse(args); !ok {
		return nil, code
	}
	if cfg, ok := fs.loadConfig(); ok {
		return cfg, exitOK
	}
	return nil, exitError
}

// interspersed moves the flags among args before the positional arguments, so that
// `watcher diff acme/x -config f` reads as `watcher diff -config f acme/x`, as users type
// it. A flag that takes a value keeps the argument after it ("-config f"), unless it is
// written "-config=f". "--" ends the flags: what follows is positional whatever it looks
// like. A lone "-" and a negative number that is no flag ("-1") are positional too. The
// positional arguments are passed after a "--" of our own, so that one starting with "-"
// is never read as a flag.
func interspersed(fs *flag.FlagSet, args []string) []string {
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		name, _, hasValue := strings.Cut(name, "=")
		f := fs.Lookup(name)
		if f == nil && looksNumeric(name) {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		if f == nil || hasValue || isBool(f) {
			// Unknown flags are left for Parse to report; booleans take no argument.
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if len(positional) == 0 {
		return flags
	}
	return append(append(flags, "--"), positional...)
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func looksNumeric(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return true
}

// configFile is the config file -config names, else the first of the default chain,
// chosen once: a reload reads the file the command started with.
func (fs *cmdFlags) configFile() string {
	if *fs.configPath == "" {
		*fs.configPath = config.DefaultPath()
	}
	return *fs.configPath
}

// loadConfig loads the config file, printing each of a bad config's errors on a line of
// its own.
func (fs *cmdFlags) loadConfig() (*config.Config, bool) {
	e := fs.e
	config.Version = version // for the default User-Agent
	cfg, err := config.Load(fs.configFile())
	var list config.Errors
	switch {
	case errors.As(err, &list):
		for _, ce := range list {
			fmt.Fprintf(e.stderr, "error: %v\n", ce)
		}
		return nil, false
	case err != nil:
		fmt.Fprintf(e.stderr, "error: %v\n", err)
		return nil, false
	}
	ok := true
	for i, r := range cfg.Receivers {
		if _, built := receiverKinds[r.Kind]; !built {
			fmt.Fprintf(e.stderr, "error: receivers[%d].%s: receiver %s: kind %s is not available in this build of watcher\n", i, r.Kind, r.Name, r.Kind)
			ok = false
		}
	}
	return cfg, ok
}

// plural is n and the noun, with an s when n is not 1: "1 source", "2 sources".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
