package daemon

import (
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/web"
)

// webOptions are the web server's options for cfg.
func (d *Daemon) webOptions(cfg *config.Config) web.Options {
	return web.Options{
		Store: d.store, Daemon: d, BaseURL: cfg.BaseURL, Auth: cfg.Web.Auth, Listen: cfg.Listen,
		Metrics: promhttp.HandlerFor(d.metrics.reg, promhttp.HandlerOpts{}),
		Log:     d.log, Now: d.now, TitleOf: d.title, HookTokens: hookTokens(cfg),
		Correlation: cfg.CorrelateOptions(),
	}
}

// hookTokens are the hook_token of each source that has one.
func hookTokens(cfg *config.Config) map[string]config.Secret {
	out := map[string]config.Secret{}
	for i := range cfg.Sources {
		if src := &cfg.Sources[i]; src.HookToken.IsSet() {
			out[src.Name] = src.HookToken
		}
	}
	return out
}

// Sources reports every configured source with its in-memory poll state.
func (d *Daemon) Sources() []web.SourceStatus {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]web.SourceStatus, 0, len(d.cfg.Sources))
	for i := range d.cfg.Sources {
		st := d.sources[d.cfg.Sources[i].Name]
		st.mu.Lock()
		out = append(out, st.webStatus())
		st.mu.Unlock()
	}
	return out
}

// webStatus is the source as the web server shows it: its config and poll state. The
// caller holds st.mu.
func (st *sourceState) webStatus() web.SourceStatus {
	src := st.src
	return web.SourceStatus{
		Name: src.Name, Title: titleOf(src, st.pageTitle), URL: src.URL, Kind: src.Kind, Paused: src.Paused,
		LastPollAt: st.poll.lastPollAt, LastSuccessAt: st.poll.lastSuccessAt,
		LastError: st.poll.lastError, ConsecutiveFailures: st.poll.failures,
		LastSuccessBeforeRestart: st.poll.successBeforeRestart,
	}
}

// titleOf is a source's display title: the config's title, else the page's own name
// once read, else the source's name.
func titleOf(src *config.Source, pageTitle string) string {
	if src.Title != "" {
		return src.Title
	}
	if pageTitle != "" {
		return pageTitle
	}
	return src.Name
}

// title is a source's display title by name (see titleOf); an unknown source is its name.
func (d *Daemon) title(source string) string {
	d.mu.RLock()
	defer d.mu.RUnlock()
	st := d.sources[source]
	if st == nil {
		return source
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return titleOf(st.src, st.pageTitle)
}

// pageTitles reads the page names remembered in the archive for sources; a source whose
// state cannot be read has none (its name stands in until its next poll).
func (d *Daemon) pageTitles(sources []string) map[string]string {
	if d.store == nil || len(sources) == 0 {
		return nil
	}
	states, err := d.store.PollStates(sources)
	if err != nil {
		d.log.Warn("read remembered page names", "err", err)
		return nil
	}
	out := make(map[string]string, len(states))
	for name, ps := range states {
		out[name] = ps.Fetch.PageTitle()
	}
	return out
}

// BackingOff reports until when a source's polls are held back (failures, or the vendor's
// Retry-After), zero when they are not: the web server's push hook asks, so that a
// webhook delivery never polls a vendor that asked us to wait.
func (d *Daemon) BackingOff(source string) time.Time {
	d.mu.RLock()
	st := d.sources[source]
	d.mu.RUnlock()
	if st == nil {
		return time.Time{}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if d.now().Before(st.nextAllowed) {
		return st.nextAllowed
	}
	return time.Time{}
}
