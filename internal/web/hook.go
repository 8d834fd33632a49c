package web

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/config"
)

// The push hook: a vendor's webhook delivery (a Statuspage or incident.io page
// subscription) is a trigger to poll the source now, nothing more. Its body is read and
// thrown away unseen — the page is then read as on any poll — so a forged delivery
// costs at most one conditional GET.
const (
	// HookInterval is the least time between two polls a source's hook starts. A
	// delivery within it of the last is answered 202 all the same (a vendor may drop a
	// subscription whose endpoint keeps failing), and the poll it asks for is queued to
	// the end of the interval, once however many deliveries come meanwhile: a change the
	// vendor pushed is never missed, and a flood costs one poll per interval.
	HookInterval = 10 * time.Second
	// maxHookBody bounds what is read of a delivery's body (to let the connection be
	// reused); the rest is left unread.
	maxHookBody = 64 << 10
)

// hookTriggers is the state of every source's hook: when each last started a poll and
// whether one is queued. It outlives Reconfigure (the new server takes it over), so a
// reload neither resets the limit nor loses a queued poll.
type hookTriggers struct {
	interval time.Duration // HookInterval; shorter in tests
	mu       sync.Mutex
	last     map[string]time.Time // per configured source with a hook token only
	queued   map[string]time.Time // when the queued poll runs
	ctx      context.Context      // the serving context: polls end with it
	wg       sync.WaitGroup
}

func newHookTriggers() *hookTriggers {
	return &hookTriggers{interval: HookInterval, last: map[string]time.Time{}, queued: map[string]time.Time{}, ctx: context.Background()}
}

// serving sets the context the hook's polls run under, and returns a function that
// waits for the polls started to end (after ctx is done, they end promptly).
func (h *hookTriggers) serving(ctx context.Context) (wait func()) {
	h.mu.Lock()
	h.ctx = ctx
	h.mu.Unlock()
	return h.wg.Wait
}

// trigger starts poll for source now if its last hook poll started at least
// HookInterval ago, else queues it to then unless one is queued already. It returns
// when the poll runs.
func (h *hookTriggers) trigger(source string, now time.Time, poll func(ctx context.Context)) (at time.Time, queued bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if at, ok := h.queued[source]; ok {
		return at, true
	}
	at = now
	if last, ok := h.last[source]; ok && now.Sub(last) < h.interval {
		at = last.Add(h.interval)
		h.queued[source] = at
	}
	h.last[source] = at
	ctx := h.ctx
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		if d := at.Sub(now); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
			h.mu.Lock()
			delete(h.queued, source)
			h.mu.Unlock()
		}
		pctx, cancel := context.WithTimeout(ctx, pollTimeout)
		defer cancel()
		poll(pctx)
	}()
	return at, at.After(now)
}

// hook answers POST /api/v1/sources/{name}/hook/{token}: 202 {poll, at} once the token
// matches the source's hook_token (compared in constant time), the poll started now or
// queued (HookInterval), or none while the source backs off ("backoff", until at); 404, the same answer as for any unknown path, for a wrong token,
// a source without one and an unknown source alike. It is outside web.auth: the token
// is its credential, as a vendor cannot send ours.
func (s *Server) hook(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	want, ok := s.hookTokens[name]
	if !tokenMatches(r.PathValue("token"), want) || !ok || !want.IsSet() {
		writeError(w, http.StatusNotFound, "no such endpoint")
		return
	}
	// The body is never looked at: read (to a bound) and dropped.
	_, _ = io.CopyN(io.Discard, r.Body, maxHookBody)
	// A source backing off (failures, or the vendor's Retry-After) is not polled: the
	// vendor's wish wins over its own webhook, and the schedule resumes after.
	if b, ok := s.daemon.(backingOff); ok {
		if until := b.BackingOff(name); !until.IsZero() {
			writeJSON(w, http.StatusAccepted, api.Hook{Poll: "backoff", At: api.Time(until)})
			return
		}
	}
	log := s.log.With("source", name)
	at, queued := s.hooks.trigger(name, time.Now(), func(ctx context.Context) {
		n, err := s.daemon.PollNow(ctx, name)
		switch {
		case err != nil && ctx.Err() != nil:
		case err != nil:
			log.Warn("hook poll failed", "err", err)
		default:
			log.Info("hook poll", "changes", n)
		}
	})
	out := api.Hook{Poll: "now", At: api.Time(at)}
	if queued {
		out.Poll = "queued"
	}
	writeJSON(w, http.StatusAccepted, out)
}

// backingOff is what the daemon tells of a source's backoff (internal/daemon implements
// it); a Daemon without it is never backing off.
type backingOff interface {
	BackingOff(source string) time.Time
}

// tokenMatches compares a token given with the one configured in constant time, in
// neither's length either: both are hashed first. An unset token matches nothing, but
// is compared all the same.
func tokenMatches(given string, want config.Secret) bool {
	g, v := sha256.Sum256([]byte(given)), sha256.Sum256([]byte(want.Value()))
	return subtle.ConstantTimeCompare(g[:], v[:]) == 1 && want.IsSet()
}
