package aws

// The episodes of AWS: the feed's posts and the current events combined into incidents,
// with the memory of the episodes seen (see poll).

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch/htmltext"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/sanitize"
)

// ---- Combining (see poll) ----

// awsSpan is what the fetch state remembers of an episode (model.Episode): its start
// and its latest post, whether it was still open, and where it stands in the absence
// rule (see poll). listed and missed are only ever set on an open span, inferred on a
// closed one.
type awsSpan struct {
	start, last int64
	open        bool
	listed      bool  // open, and listed by currentevents
	missed      int64 // open, listed until currentevents first lacked it at this unix time
	inferred    int64 // resolved by inference: first missed at this unix time, missed again since
}

// tracked reports whether the absence rule applies to the episode: currentevents listed
// it once, so its absence from there says something.
func (s awsSpan) tracked() bool { return s.listed || s.missed > 0 || s.inferred > 0 }

// awsMemo holds the remembered episodes per service.
type awsMemo map[string][]awsSpan

// awsMemoFrom reads the episodes remembered in the fetch state: one key per service,
// "episodes/<service>", whose Episodes field holds one entry per episode. Unreadable
// entries (a start after the last post, flags that contradict each other) are skipped.
func awsMemoFrom(st model.FetchState) awsMemo {
	m := awsMemo{}
	for k, v := range st {
		service, ok := strings.CutPrefix(k, awsEpisodeState)
		if !ok {
			continue
		}
		for _, e := range v.Episodes {
			s := awsSpan{start: e.Start, last: e.Last, open: e.Open, listed: e.Listed, missed: e.Missed, inferred: e.Inferred}
			if s.valid() {
				m[service] = append(m[service], s)
			}
		}
	}
	return m
}

// valid reports whether s is a span that state writes: listed or missed (not both) only
// when open, inferred only when not.
func (s awsSpan) valid() bool {
	switch {
	case s.start < 0 || s.last < s.start || s.missed < 0 || s.inferred < 0:
		return false
	case s.open:
		return s.inferred == 0 && !(s.listed && s.missed > 0)
	default:
		return !s.listed && s.missed == 0
	}
}

// pending reports whether an episode is missed once: the next well-formed poll decides it.
func (m awsMemo) pending() bool {
	for _, spans := range m {
		for _, s := range spans {
			if s.open && s.missed > 0 {
				return true
			}
		}
	}
	return false
}

// state writes the memo as fetch-state entries, each service's episodes by start.
func (m awsMemo) state() model.FetchState {
	st := make(model.FetchState, len(m))
	for service, spans := range m {
		slices.SortFunc(spans, func(a, b awsSpan) int { return cmp.Compare(a.start, b.start) })
		eps := make([]model.Episode, len(spans))
		for i, s := range spans {
			eps[i] = model.Episode{Start: s.start, Last: s.last, Open: s.open}
			switch {
			case s.open && s.missed > 0:
				eps[i].Missed = s.missed
			case s.open && s.listed:
				eps[i].Listed = true
			case !s.open && s.inferred > 0:
				eps[i].Inferred = s.inferred
			}
		}
		st[awsEpisodeState+service] = model.EndpointState{Episodes: eps}
	}
	return st
}

// awsEpisode is one incident being built: the posts of one service between resolutions.
type awsEpisode struct {
	service string
	start   int64
	posts   []awsPost // oldest first
	event   *awsEvent // the open event matched with it, if any
}

// awsBuild combines one RSS feed and one currentevents list into incidents.
type awsBuild struct {
	feed     *awsFeed
	events   []awsEvent
	memo     awsMemo
	archived func(id string) *model.Incident // may be nil
	pageURL  string
	now      time.Time
}

// run builds the incidents, the listing and the memo to remember, in six steps.
func (b *awsBuild) run() ([]model.Incident, model.Listing, awsMemo) {
	groups, oldest := b.groupPosts()
	episodes, first := splitEpisodes(groups)
	open := b.openEvents()
	b.continueFirst(first, open)
	episodes = matchEvents(episodes, open)

	listing := model.Listing{Kind: model.KindIncident, Since: b.now}
	if oldest > 0 {
		listing.Since = time.Unix(oldest, 0).UTC()
	}
	out, memo, ids := b.incidents(episodes, listing.Since)
	out, memo = b.remembered(out, memo, ids, listing.Since)
	return out, listing, memo
}

// groupPosts groups the RSS posts by service, oldest first; a post listed twice counts
// once. oldest is the time of the oldest post, 0 when there is none.
func (b *awsBuild) groupPosts() (groups map[string][]awsPost, oldest int64) {
	groups = map[string][]awsPost{}
	seen := map[string]bool{}
	for _, p := range b.feed.posts {
		key := p.service + "_" + strconv.FormatInt(p.at, 10)
		if seen[key] {
			continue
		}
		seen[key] = true
		groups[p.service] = append(groups[p.service], p)
		if oldest == 0 || p.at < oldest {
			oldest = p.at
		}
	}
	return groups, oldest
}

// splitEpisodes splits each service's posts into episodes after each resolution post,
// services in order. first is the oldest episode of each service.
func splitEpisodes(groups map[string][]awsPost) (episodes []*awsEpisode, first map[string]*awsEpisode) {
	first = map[string]*awsEpisode{}
	for _, s := range slices.Sorted(maps.Keys(groups)) {
		g := groups[s]
		slices.SortStableFunc(g, func(x, y awsPost) int { return cmp.Compare(x.at, y.at) })
		var cur *awsEpisode
		for _, p := range g {
			if cur == nil {
				cur = &awsEpisode{service: s, start: p.at}
				episodes = append(episodes, cur)
				if first[s] == nil {
					first[s] = cur
				}
			}
			cur.posts = append(cur.posts, p)
			if p.resolved {
				cur = nil
			}
		}
	}
	return episodes, first
}

// openEvent is one currentevents entry, its posts parsed once.
type openEvent struct {
	ev    *awsEvent
	posts []awsPost
	start int64
	last  int64
}

// openEvents parses the open events once.
func (b *awsBuild) openEvents() []openEvent {
	var open []openEvent
	for i := range b.events {
		ev := &b.events[i]
		// An event with neither date nor post starts at 0 ("not given"): a stable id
		// beats one that moves with the clock.
		posts, start := ev.posts()
		start = max(start, 0)
		last := start
		for _, p := range posts {
			last = max(last, p.at)
		}
		open = append(open, openEvent{ev: ev, posts: posts, start: start, last: last})
	}
	return open
}

// continueFirst: the oldest episode of each service may have lost its first posts: it
// continues the latest remembered or open episode that started before it and was still
// open or reached past its first post.
func (b *awsBuild) continueFirst(first map[string]*awsEpisode, open []openEvent) {
	for s, e := range first {
		cands := slices.Clone(b.memo[s])
		for _, o := range open {
			if strings.TrimSpace(o.ev.Service) == s {
				cands = append(cands, awsSpan{start: o.start, last: o.last, open: true})
			}
		}
		t1 := e.posts[0].at
		var best *awsSpan
		for i := range cands {
			c := &cands[i]
			if c.start <= t1 && (best == nil || c.start > best.start) {
				best = c
			}
		}
		if best != nil && (best.open || t1 <= best.last) {
			e.start = best.start
		}
	}
}

// matchEvents matches each open event with the episode of its service that shares a post
// with it, else the one that starts when it starts; an event matching none is an episode
// of its own. The event's posts join the episode's.
func matchEvents(episodes []*awsEpisode, open []openEvent) []*awsEpisode {
	for _, o := range open {
		s := strings.TrimSpace(o.ev.Service)
		var match *awsEpisode
		for _, e := range episodes {
			if e.service != s || e.event != nil {
				continue
			}
			if e.start == o.start || awsSharePost(e.posts, o.posts) {
				match = e
				break
			}
		}
		if match == nil {
			match = &awsEpisode{service: s, start: o.start}
			episodes = append(episodes, match)
		}
		match.event = o.ev
		have := make(map[int64]bool, len(match.posts))
		for _, p := range match.posts {
			have[p.at] = true
		}
		for _, p := range o.posts {
			if !have[p.at] { // the RSS text wins for a post both list: they are the same
				have[p.at] = true
				match.posts = append(match.posts, p)
			}
		}
		slices.SortStableFunc(match.posts, func(x, y awsPost) int { return cmp.Compare(x.at, y.at) })
	}
	return episodes
}

// incidents makes an incident of each episode (the first of an id wins) and the span the
// memo remembers of it, applying the absence rule to an open episode currentevents no
// longer lists. ids are the incidents made.
func (b *awsBuild) incidents(episodes []*awsEpisode, since time.Time) ([]model.Incident, awsMemo, map[string]bool) {
	out := make([]model.Incident, 0, len(episodes))
	memo := awsMemo{}
	ids := map[string]bool{}
	for _, e := range episodes {
		inc := b.incident(e, since)
		if ids[inc.ID] {
			continue
		}
		ids[inc.ID] = true
		last := e.start
		if n := len(e.posts); n > 0 {
			last = max(last, e.posts[n-1].at)
		}
		span := awsSpan{start: e.start, last: last, open: inc.Status.Open()}
		span.listed = span.open && e.event != nil
		if span.open && e.event == nil {
			if r, ok := b.memo.find(e.service, e.start); ok && r.tracked() {
				b.absent(&inc, &span, r)
			}
		}
		out = append(out, inc)
		memo[e.service] = append(memo[e.service], span)
	}
	return out, memo, ids
}

// remembered: an episode currentevents listed may be gone from the feed too (it rolled
// out, or never reached it): the absence rule still runs its course, on the archived
// version.
func (b *awsBuild) remembered(out []model.Incident, memo awsMemo, ids map[string]bool, since time.Time) ([]model.Incident, awsMemo) {
	for _, s := range slices.Sorted(maps.Keys(b.memo)) {
		for _, r := range b.memo[s] {
			id := s + "_" + strconv.FormatInt(r.start, 10)
			if ids[id] || !r.tracked() || b.archived == nil {
				continue
			}
			prev := b.archived(id)
			if prev == nil {
				continue
			}
			inc, span := *prev, r
			switch {
			case r.inferred > 0:
				// Resolved already; listed while the feed's window covers its start, so
				// that a history snapshot does not take it for removed.
				if r.start < since.Unix() {
					continue
				}
				if inc.Open() {
					inc = awsInferResolved(inc, r.inferred)
				}
			case !inc.Open():
				continue // resolved in the archive already: nothing left to infer
			case r.missed > 0:
				inc = awsInferResolved(inc, r.missed)
				span = awsSpan{start: r.start, last: r.last, inferred: r.missed}
			default:
				if !b.miss(&span) {
					continue
				}
			}
			ids[id] = true
			out = append(out, inc)
			memo[s] = append(memo[s], span)
		}
	}
	return out, memo
}

// find returns the remembered episode of service that started at start.
func (m awsMemo) find(service string, start int64) (awsSpan, bool) {
	for _, s := range m[service] {
		if s.start == start {
			return s, true
		}
	}
	return awsSpan{}, false
}

// absent applies the absence rule (see poll) to an episode that currentevents listed once
// and does not list now, although no post resolved it: r is what the memo remembers of
// it, inc and span what this parse built, open.
func (b *awsBuild) absent(inc *model.Incident, span *awsSpan, r awsSpan) {
	newer := span.last > r.last // a post since the last parse: it is going on after all
	span.last = max(span.last, r.last)
	switch {
	case r.inferred > 0 && !newer:
		*inc = awsInferResolved(*inc, r.inferred)
		span.open, span.inferred = false, r.inferred
	case r.missed > 0 && !newer:
		*inc = awsInferResolved(*inc, r.missed)
		span.open, span.inferred = false, r.missed
	default: // listed last time, or reopened by a post: this poll is its first miss
		b.miss(span)
	}
}

// miss marks an open span missed once, now. The clock is needed: without it (never in
// the daemon) nothing is counted.
func (b *awsBuild) miss(span *awsSpan) bool {
	now := b.now.Unix()
	if b.now.IsZero() || now <= 0 {
		return false
	}
	span.open, span.listed, span.missed = true, false, now
	return true
}

// awsInferResolved is inc resolved at the unix time at, marked inferred, as the archive
// resolves the incidents of other open-only lists (archive.inferResolved): status_raw is
// cleared, since AWS never posted that word.
func awsInferResolved(inc model.Incident, at int64) model.Incident {
	inc.Status = model.StatusResolved
	inc.StatusRaw = ""
	inc.ResolvedAt = time.Unix(at, 0).UTC()
	inc.ResolvedInferred = true
	return inc
}

// awsSharePost reports whether two lists of posts share a timestamp.
func awsSharePost(a, b []awsPost) bool {
	at := make(map[int64]bool, len(a))
	for _, p := range a {
		at[p.at] = true
	}
	for _, p := range b {
		if at[p.at] {
			return true
		}
	}
	return false
}

// incident normalises one episode. window is the time of the oldest RSS item: archived
// posts older than it are carried over when missing.
func (b *awsBuild) incident(e *awsEpisode, window time.Time) model.Incident {
	inc := model.Incident{
		ID:     e.service + "_" + strconv.FormatInt(e.start, 10),
		Kind:   model.KindIncident,
		Status: model.StatusInvestigating,
		Impact: model.ImpactUnknown,
		URL:    b.pageURL,
	}
	if e.start > 0 {
		inc.StartedAt = time.Unix(e.start, 0).UTC()
	}
	components := []string{e.service}
	if e.event != nil {
		components = append(components, slices.Collect(maps.Keys(e.event.ImpactedServices))...)
	}
	updates := make([]model.Update, 0, len(e.posts))
	for _, p := range e.posts {
		status := model.StatusInvestigating
		if p.resolved {
			status = model.StatusResolved
		}
		html := awsHTML(p.body)
		updates = append(updates, model.Update{
			ID:       p.service + "_" + strconv.FormatInt(p.at, 10),
			Status:   status,
			Body:     htmltext.FromString(html),
			Format:   model.FormatHTML,
			HTML:     sanitize.HTML(html),
			PostedAt: time.Unix(p.at, 0).UTC(),
		})
	}

	// Carry over what the sources no longer hold: posts older than the feed's window,
	// and the components once currentevents stops listing the event.
	if b.archived != nil {
		if prev := b.archived(inc.ID); prev != nil {
			have := make(map[string]bool, len(updates))
			for _, u := range updates {
				have[u.ID] = true
			}
			for _, u := range prev.Updates {
				if !have[u.ID] && u.PostedAt.Before(window) {
					have[u.ID] = true
					updates = append(updates, u)
				}
			}
			if e.event == nil {
				components = append(components, prev.Components...)
			}
		}
	}
	slices.SortStableFunc(updates, func(x, y model.Update) int { return x.PostedAt.Compare(y.PostedAt) })
	inc.Updates = updates

	for i := range components {
		components[i] = strings.TrimSpace(components[i])
	}
	components = slices.DeleteFunc(components, func(s string) bool { return s == "" })
	slices.Sort(components)
	inc.Components = slices.Compact(components)

	// Title, status and impact from the latest posts.
	for i := len(e.posts) - 1; i >= 0; i-- {
		if s := e.posts[i].summary; s != "" {
			inc.Title = s
			break
		}
	}
	if n := len(e.posts); n > 0 {
		last := e.posts[n-1]
		inc.StatusRaw = last.raw
		if last.resolved {
			inc.Status = model.StatusResolved
			inc.ResolvedAt = time.Unix(last.at, 0).UTC()
		}
	}
	for i := len(e.posts) - 1; i >= 0; i-- {
		if p := e.posts[i]; !p.resolved {
			inc.Impact, inc.ImpactRaw = awsImpact(p.level), p.raw
			break
		}
	}
	return inc
}

// awsImpact maps a level; see the table on AWS.
func awsImpact(level int) model.Impact {
	switch level {
	case 0:
		return model.ImpactNone
	case 1:
		return model.ImpactMinor
	case 2:
		return model.ImpactMajor
	case 3:
		return model.ImpactCritical
	}
	return model.ImpactUnknown
}

// awsHTML turns a post's body, text with line breaks and inline links, into HTML that
// keeps its paragraphs: blank lines part paragraphs, single newlines become <br>.
func awsHTML(body string) string {
	body = strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n"))
	if body == "" {
		return ""
	}
	var sb strings.Builder
	for _, para := range strings.Split(body, "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		sb.WriteString("<p>")
		sb.WriteString(strings.ReplaceAll(para, "\n", "<br>"))
		sb.WriteString("</p>")
	}
	return sb.String()
}
