package web

import (
	"context"
	"errors"

	"github.com/statuswatch/statuswatch/internal/web/view"
)

// ErrUnknownSource is returned by Daemon.PollNow for a source the config does not name.
var ErrUnknownSource = errors.New("unknown source")

// Daemon is what the web server needs of the running daemon. It is declared here, where it
// is used, and implemented by the daemon package.
type Daemon interface {
	// Sources reports every configured source with its in-memory poll state, in config
	// order.
	Sources() []SourceStatus
	// PollNow polls source now, or waits for the poll in flight, and returns once the
	// result is archived: the number of incidents that got a new version, or the fetch
	// error. It returns ErrUnknownSource for a name the config does not have.
	PollNow(ctx context.Context, source string) (changes int, err error)
	// Health reports the daemon's own health (scheduler alive, archive writable), never a
	// vendor's.
	Health() error
}

// SourceStatus is a configured source as the daemon sees it (view.SourceStatus: the
// pages show it too).
type SourceStatus = view.SourceStatus

// noDaemon stands in when Options.Daemon is nil, for serving an archive with no daemon
// running: no configured sources, nothing to poll, and healthy.
type noDaemon struct{}

func (noDaemon) Sources() []SourceStatus { return nil }

func (noDaemon) PollNow(context.Context, string) (int, error) { return 0, ErrUnknownSource }

func (noDaemon) Health() error { return nil }
