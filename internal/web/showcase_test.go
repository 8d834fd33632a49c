package web

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// The showcase archive: five vendors and three months of incidents in the shape of real
// write-ups, for the browser tests and the screenshots in docs/screenshots. At the
// server's now (2026-07-01 14:00 UTC) Twingate has a major incident open whose first
// update was silently reworded (change 3), GitHub a minor one, Cloudflare a maintenance
// scheduled, and OpenAI's page cannot be read.

// showcaseTitles are the display names of the showcase's sources.
var showcaseTitles = map[string]string{
	"github": "GitHub", "cloudflare": "Cloudflare", "aws": "AWS Health", "openai": "OpenAI", "twingate": "Twingate",
}

// showcaseOptions give the server the showcase's titles and daemon.
func showcaseOptions(o *Options) {
	o.TitleOf = func(source string) string { return showcaseTitles[source] }
}

// showcaseSources is the daemon's view of the showcase's sources, in config order.
func showcaseSources() []SourceStatus {
	st := func(name, url string, ago time.Duration) SourceStatus {
		return SourceStatus{Name: name, Title: showcaseTitles[name], URL: url, Kind: "statuspage",
			LastPollAt: now.Add(-ago), LastSuccessAt: now.Add(-ago)}
	}
	out := []SourceStatus{
		st("github", "https://www.githubstatus.com", 41*time.Second),
		st("cloudflare", "https://www.cloudflarestatus.com", 12*time.Second),
		st("aws", "https://health.aws.amazon.com/health/status", 95*time.Second),
		st("openai", "https://status.openai.com", 0),
		st("twingate", "https://status.twingate.com", 20*time.Second),
	}
	out[2].Kind = "aws"
	out[3].LastSuccessAt = now.Add(-9 * time.Minute)
	out[3].ConsecutiveFailures = 4
	out[3].LastError = "GET https://status.openai.com/api/v2/incidents.json: 503 Service Unavailable"
	return out
}

// TwingateAuth is the open incident with the silent edit; its change 3 rewords update
// tg-u1.
const (
	twingateAuth    = "tg-auth"
	silentEditFirst = "We are investigating elevated authentication failures for some users. Connectors are not affected."
	silentEditAfter = "We are investigating elevated authentication failures for users in North America. Connectors may fail to reconnect."
)

// event is one poll of a source that saw incident inc in the state it has then.
type event struct {
	source string
	at     time.Time
	inc    model.Incident
}

// history is the events of a resolved incident: posted 4 minutes after its start,
// identified half way, resolved, and a postmortem pmAfter its resolution (none when 0).
func history(source, id, title string, impact model.Impact, start time.Time, dur time.Duration, comps []string, pmAfter time.Duration, pm string) []event {
	base := model.Incident{
		ID: id, Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: impact, Title: title,
		StartedAt: start, Components: comps,
		URL: "https://status.example.com/incidents/" + id,
		Updates: []model.Update{{ID: id + "-1", Status: model.StatusInvestigating, Format: model.FormatText, PostedAt: start.Add(4 * time.Minute),
			Body: "We are investigating reports of " + lowerFirst(title) + "."}},
	}
	evs := []event{{source, start.Add(5 * time.Minute), base}}
	done := clone(base)
	done.Status = model.StatusResolved
	done.ResolvedAt = start.Add(dur)
	done.Updates = append(done.Updates,
		model.Update{ID: id + "-2", Status: model.StatusIdentified, Format: model.FormatText, PostedAt: start.Add(dur / 2),
			Body: "The issue has been identified and a fix is being implemented."},
		model.Update{ID: id + "-3", Status: model.StatusResolved, Format: model.FormatText, PostedAt: start.Add(dur),
			Body: "This incident has been resolved."})
	evs = append(evs, event{source, start.Add(dur + 2*time.Minute), done})
	if pmAfter > 0 {
		withPM := clone(done)
		withPM.Status = model.StatusPostmortem
		withPM.Postmortem = &model.Postmortem{Body: pm, Format: model.FormatMarkdown, PublishedAt: done.ResolvedAt.Add(pmAfter)}
		evs = append(evs, event{source, withPM.Postmortem.PublishedAt.Add(3 * time.Minute), withPM})
	}
	return evs
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}

// clone deep-copies an incident, so that an event never shares slices with another.
func clone(inc model.Incident) model.Incident {
	c := inc
	c.Components = slices.Clone(inc.Components)
	c.Updates = slices.Clone(inc.Updates)
	if inc.Postmortem != nil {
		pm := *inc.Postmortem
		c.Postmortem = &pm
	}
	return c
}

const postmortemConnector = "## Summary\n\nBetween 09:12 and 10:43 UTC, Connectors in eu-west-1 disconnected repeatedly, and users in Europe could not reach private resources.\n\n" +
	"## Root cause\n\nA routine certificate rotation restarted the relay fleet in one step instead of in batches. Connectors reconnected all at once and **overloaded** the remaining relays.\n\n" +
	"## What we are changing\n\n- Rotate certificates in batches of 10% with health checks between them.\n- Add jittered backoff to Connector reconnects.\n- Alert on the reconnect rate per region."

const postmortemOutage = "## Summary\n\nFor 2h 10m, every sign-in failed.\n\n## Root cause\n\nAn expired signing key in the identity service.\n\n## Follow-up\n\n- Alert 30 days before a key expires."

const postmortemCloudflare = "## What happened\n\nA change to the API gateway's rate limiter rejected valid requests to the Dashboard and the API for 47 minutes.\n\n" +
	"## Remediation\n\n1. The change was rolled back at 13:54 UTC.\n2. Rate limiter changes now roll out per colo, with automatic rollback on error-rate alerts."

// showcaseEvents is every poll of the showcase that changed something.
func showcaseEvents() []event {
	d := func(days int, hour, min int) time.Time {
		return time.Date(2026, 7, 1, hour, min, 0, 0, time.UTC).AddDate(0, 0, -days)
	}
	var evs []event
	add := func(e ...event) { evs = append(evs, e...) }

	// Twingate: the open incident, with its silent edit.
	auth := model.Incident{
		ID: twingateAuth, Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMajor,
		Title: "Elevated authentication failures", StartedAt: now.Add(-58 * time.Minute), Components: []string{"Authentication"},
		URL: "https://status.twingate.com/incidents/tg-auth",
		Updates: []model.Update{{ID: "tg-u1", Status: model.StatusInvestigating, Format: model.FormatText,
			PostedAt: now.Add(-53 * time.Minute), Body: silentEditFirst}},
	}
	add(event{"twingate", now.Add(-52 * time.Minute), auth})
	auth = clone(auth)
	auth.Status = model.StatusIdentified
	auth.Components = append(auth.Components, "Connector Heartbeat")
	auth.Updates = append(auth.Updates, model.Update{ID: "tg-u2", Status: model.StatusIdentified, Format: model.FormatText,
		PostedAt: now.Add(-41 * time.Minute),
		Body:     "We have identified a misconfigured load balancer in us-east-1 that drops a share of authentication requests.\nConnector heartbeats are delayed as a result."})
	add(event{"twingate", now.Add(-40 * time.Minute), auth})
	auth = clone(auth)
	auth.Updates[0].Body = silentEditAfter
	add(event{"twingate", now.Add(-31 * time.Minute), auth})
	add(history("twingate", "tg-h1", "Delayed admin console emails", model.ImpactMinor, d(9, 8, 5), 50*time.Minute, []string{"Admin Console"}, 0, "")...)
	add(history("twingate", "tg-h2", "Connector disconnections in eu-west-1", model.ImpactMajor, d(23, 9, 12), 91*time.Minute,
		[]string{"Connector Heartbeat", "Relays"}, 3*24*time.Hour+5*time.Hour, postmortemConnector)...)
	add(history("twingate", "tg-h3", "Slow policy propagation", model.ImpactMinor, d(41, 15, 30), 3*time.Hour+20*time.Minute, []string{"Policy Engine"}, 0, "")...)
	add(history("twingate", "tg-h4", "Authentication outage", model.ImpactCritical, d(67, 2, 40), 130*time.Minute,
		[]string{"Authentication", "Admin Console", "Client Applications"}, 2*24*time.Hour, postmortemOutage)...)
	add(history("twingate", "tg-h5", "Intermittent DNS resolution failures", model.ImpactMinor, d(80, 19, 0), 35*time.Minute, []string{"DNS"}, 0, "")...)

	// GitHub: a minor incident open, and a busy history.
	actions := model.Incident{
		ID: "gh-actions", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMinor,
		Title: "Degraded performance for GitHub Actions", StartedAt: now.Add(-25 * time.Minute), Components: []string{"Actions"},
		Updates: []model.Update{{ID: "gh-a1", Status: model.StatusInvestigating, Format: model.FormatText, PostedAt: now.Add(-21 * time.Minute),
			Body: "We are investigating reports of degraded performance for Actions. Some jobs are queued for longer than usual."}},
	}
	add(event{"github", now.Add(-20 * time.Minute), actions})
	for i, h := range []struct {
		title  string
		impact model.Impact
		days   int
		dur    time.Duration
		comp   string
	}{
		{"Incident with Git Operations", model.ImpactMajor, 3, 72 * time.Minute, "Git Operations"},
		{"Disruption with some GitHub services", model.ImpactMinor, 8, 40 * time.Minute, "Issues"},
		{"Delayed webhook deliveries", model.ImpactMinor, 16, 2 * time.Hour, "Webhooks"},
		{"Codespaces unavailable in Europe", model.ImpactMajor, 27, 95 * time.Minute, "Codespaces"},
		{"Disruption with some GitHub services", model.ImpactMinor, 38, 25 * time.Minute, "Pull Requests"},
		{"Copilot responses degraded", model.ImpactMinor, 52, 65 * time.Minute, "Copilot"},
		{"Pages builds failing", model.ImpactMinor, 63, 50 * time.Minute, "Pages"},
		{"Incident with API Requests", model.ImpactCritical, 85, 44 * time.Minute, "API Requests"},
	} {
		add(history("github", fmt.Sprintf("gh-h%d", i+1), h.title, h.impact, d(h.days, 10+i, 15), h.dur, []string{h.comp}, 0, "")...)
	}

	// Cloudflare: operational, a maintenance scheduled.
	add(event{"cloudflare", now.Add(-26 * time.Hour), model.Incident{
		ID: "cf-m1", Kind: model.KindMaintenance, Status: model.StatusScheduled, Impact: model.ImpactMaintenance,
		Title: "Scheduled maintenance in FRA (Frankfurt) datacenter", ScheduledFor: d(-2, 2, 0), ScheduledUntil: d(-2, 6, 0),
		Components: []string{"Frankfurt, Germany - (FRA)"},
		Updates: []model.Update{{ID: "cf-m1-1", Status: model.StatusScheduled, Format: model.FormatHTML, PostedAt: now.Add(-26 * time.Hour),
			Body: "We will be performing scheduled maintenance in FRA (Frankfurt) datacenter.",
			HTML: "<p>We will be performing scheduled maintenance in <strong>FRA</strong> (Frankfurt) datacenter.</p>"}},
	}})
	add(history("cloudflare", "cf-h1", "Cloudflare Dashboard and API errors", model.ImpactCritical, d(12, 13, 7), 47*time.Minute,
		[]string{"API", "Dashboard"}, 26*time.Hour, postmortemCloudflare)...)
	add(history("cloudflare", "cf-h2", "Increased 5xx errors for Workers", model.ImpactMajor, d(34, 6, 20), 38*time.Minute, []string{"Workers"}, 0, "")...)
	add(history("cloudflare", "cf-h3", "Delayed analytics", model.ImpactMinor, d(58, 11, 0), 5*time.Hour, []string{"Analytics"}, 0, "")...)
	add(history("cloudflare", "cf-h4", "DNS resolution issues in some regions", model.ImpactMajor, d(76, 21, 30), 29*time.Minute, []string{"DNS"}, 0, "")...)

	// AWS and OpenAI.
	add(history("aws", "aws-h1", "Increased API error rates in us-east-1", model.ImpactMajor, d(30, 17, 45), 2*time.Hour+10*time.Minute, []string{"Amazon EC2 (N. Virginia)"}, 0, "")...)
	add(history("aws", "aws-h2", "Elevated Lambda invocation latency", model.ImpactMinor, d(61, 4, 5), 55*time.Minute, []string{"AWS Lambda (Ireland)"}, 0, "")...)
	add(history("openai", "oa-h1", "Elevated error rates on ChatGPT", model.ImpactMajor, d(5, 16, 12), 84*time.Minute, []string{"ChatGPT"}, 0, "")...)
	add(history("openai", "oa-h2", "Increased latency for the API", model.ImpactMinor, d(19, 7, 48), 33*time.Minute, []string{"API"}, 0, "")...)

	slices.SortStableFunc(evs, func(a, b event) int { return a.at.Compare(b.at) })
	return evs
}

// showcase archives the showcase's events, each poll listing every incident its source
// had then, and marks OpenAI's page as failing.
func (e *env) showcase() *env {
	e.tb.Helper()
	state := map[string]map[string]model.Incident{}
	for _, ev := range showcaseEvents() {
		if state[ev.source] == nil {
			state[ev.source] = map[string]model.Incident{}
		}
		state[ev.source][ev.inc.ID] = ev.inc
		var incs []model.Incident
		for _, inc := range state[ev.source] {
			incs = append(incs, clone(inc))
		}
		slices.SortFunc(incs, func(a, b model.Incident) int { return b.StartedAt.Compare(a.StartedAt) })
		e.record(ev.source, ev.at, incs)
	}
	for range 4 {
		if _, err := e.store.RecordFailure("openai", "GET https://status.openai.com/api/v2/incidents.json: 503 Service Unavailable", 3); err != nil {
			e.tb.Fatal(err)
		}
	}
	e.daemon.SourcesFn = showcaseSources
	return e
}

// newShowcase serves the showcase archive.
func newShowcase(tb testing.TB) *env {
	tb.Helper()
	return newEnv(tb, showcaseOptions).showcase()
}
