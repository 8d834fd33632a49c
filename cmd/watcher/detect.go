package main

import (
	"context"
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/daemon"
	"github.com/statuswatch/statuswatch/internal/fetch"
)

func runDetect(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "detect", "URL", "Detects the status-page platform at URL and prints <kind>\\t<url>\\t<evidence>.")
	if code, ok := fs.parseArgs(args, 1, 1); !ok {
		return code
	}
	config.Version = version
	client, err := fetch.NewClient(fetch.ClientOptions{UserAgent: config.DefaultUserAgent(), Timeout: 20 * time.Second})
	if err != nil {
		return e.fail(err)
	}
	d, err := (&fetch.Detector{Client: client}).Detect(ctx, fs.Arg(0))
	if err != nil {
		return e.fail(err)
	}
	fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", d.Kind, d.URL, d.Evidence)
	return exitOK
}

// checkProbe detects each source's platform and compares it with the configured kind.
func checkProbe(ctx context.Context, e *env, cfg *config.Config) int {
	client, err := fetch.NewClient(daemon.ClientOptions(cfg))
	if err != nil {
		return e.fail(err)
	}
	code := exitOK
	for i := range cfg.Sources {
		src := &cfg.Sources[i]
		d, err := (&fetch.Detector{Client: client, Headers: src.Model().Headers}).Detect(ctx, src.URL)
		switch {
		case err != nil:
			fmt.Fprintf(e.stdout, "%s\tunknown\t%s\t%v\n", src.Name, src.URL, err)
			code = exitError
		case src.Kind != "auto" && src.Kind != d.Kind:
			fmt.Fprintf(e.stdout, "%s\t%s\t%s\t%s (configured kind: %s)\n", src.Name, d.Kind, d.URL, d.Evidence, src.Kind)
			code = exitError
		default:
			fmt.Fprintf(e.stdout, "%s\t%s\t%s\t%s\n", src.Name, d.Kind, d.URL, d.Evidence)
		}
	}
	return code
}
