package main

import (
	"context"
	"errors"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/mcp"
	"github.com/statuswatch/statuswatch/internal/web"
)

func runMCP(ctx context.Context, e *env, args []string) int {
	fs := configFlags(e, "mcp", "", "Serves the archive to an AI tool over the Model Context Protocol on stdin and stdout (the MCP client\n"+
		"starts it): read-only tools to list sources, search incidents, read any version of one and diff two.\n"+
		"It reads the archive file, or the daemon's API at listen while `watcher run` holds the file.\n"+
		"`watcher run` serves the same over HTTP at /mcp on listen, behind web.auth.")
	cfg, code := fs.parseConfig(args)
	if cfg == nil {
		return code
	}
	st, client, err := openArchive(cfg, readOnly)
	if err != nil {
		return e.fail(err)
	}
	// stdout is the protocol's: the SDK's log lines and ours go to stderr.
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var a mcp.API = client
	if st != nil {
		defer st.Close()
		// The API's own handlers over the file, in process: the tools answer as /mcp does.
		a = mcp.InProcess(fileServer(cfg, st, log).Handler())
	}
	err = mcp.NewServer(a, mcp.Options{Version: version, Log: log}).Run(ctx, &sdk.StdioTransport{})
	if err != nil && !errors.Is(err, context.Canceled) {
		return e.fail(err)
	}
	return exitOK
}

// fileServer is the web server of a command that reads the archive file itself
// (`watcher mcp`, `watcher export`): the API's own handlers over st, with the configured
// sources and no daemon.
func fileServer(cfg *config.Config, st *archive.Store, log *slog.Logger) *web.Server {
	return web.New(web.Options{Store: st, Daemon: configured{cfg}, BaseURL: cfg.BaseURL, Log: log, TitleOf: titles(cfg, nil),
		Correlation: cfg.CorrelateOptions()})
}

// configured is the web.Daemon of `watcher mcp` over the archive file: the configured
// sources, with no poll state (no daemon runs to know it) and nothing to poll.
type configured struct{ cfg *config.Config }

func (c configured) Sources() []web.SourceStatus {
	out := make([]web.SourceStatus, len(c.cfg.Sources))
	title := titles(c.cfg, nil)
	for i := range c.cfg.Sources {
		src := &c.cfg.Sources[i]
		out[i] = web.SourceStatus{Name: src.Name, Title: title(src.Name), URL: src.URL, Kind: src.Kind, Paused: src.Paused}
	}
	return out
}

func (configured) PollNow(context.Context, string) (int, error) { return 0, web.ErrUnknownSource }

func (configured) Health() error { return nil }
