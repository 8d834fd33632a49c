package daemon

// prune deletes raw snapshots older than retention.raw_snapshots; versions are kept.
func (d *Daemon) prune() {
	keep := d.config().Retention.RawSnapshots
	if keep <= 0 {
		return
	}
	snaps, bodies, err := d.store.PruneSnapshots(d.now().Add(-keep))
	if err != nil {
		d.log.Error("prune raw snapshots", "err", err)
		return
	}
	if snaps > 0 {
		d.log.Info("pruned raw snapshots", "snapshots", snaps, "bodies", bodies, "older_than", keep)
	}
}

// releaseEvery is how many sources the start-up count reads between two releases of the
// archive pages it mapped, as the archive's own scans do.
const releaseEvery = 64

// releaseWritesEvery is how many polls that wrote pass between two releases: a cold
// poll's Record reads (and maps) the pages it writes into, several hundred KB each with
// the kernel's large folios.
const releaseWritesEvery = 16

// releaseStateReadsEvery is how many polls that read their state from the archive pass
// between two releases, whatever they wrote: each source's state is on pages of its own,
// and the kernel maps tens of KB around each one read, so each source's first poll of a
// process (or after a write) maps about 60 KB of the file — at 10,000 sources a minute of
// them mapped 600 MB. A source's later polls that wrote nothing read no archive page.
const releaseStateReadsEvery = 64

// releasePages unmaps the archive pages the polls' state reads mapped (see
// releaseStateReadsEvery).
func (p *Poller) releasePages() {
	if err := p.Store.ReleasePages(); err != nil {
		p.logger().Warn("release archive pages", "err", err)
	}
}

// releasePages unmaps the archive pages read since the last call, so the daemon's RSS is
// its own memory plus what the last minute's polls and pages read, not every page any
// scan ever touched (archive.Store.ReleasePages; the budget is 150 MB at 1,000 sources).
func (d *Daemon) releasePages() {
	if err := d.store.ReleasePages(); err != nil {
		d.log.Warn("release archive pages", "err", err)
	}
}
