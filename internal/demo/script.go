package demo

import (
	"fmt"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
)

// Step is one moment of the recorded incident: what the vendor's page shows from then on.
type Step struct {
	Say       string    // what the demo prints when the page changes
	At        time.Time // the replay clock when the step appears: nothing on the page is later
	Incidents []fakepage.Incident
}

// Script is the recorded incident the demo replays, modelled on real vendor write-ups:
// new → identified → a silent edit of the first update → monitoring → resolved →
// postmortem, with an older resolved incident already on the page. Times are relative to
// start, the moment the incident is posted; each step's At is a minute after the last
// thing it shows was posted, as if the page were polled every minute, so the replay clock
// set to At finds every update in the past. The postmortem names the incident's own start
// and resolution.
func Script(start time.Time) []Step {
	start = start.UTC()
	at := func(m int) time.Time { return start.Add(time.Duration(m) * time.Minute) }
	ptr := func(t time.Time) *time.Time { return &t }
	auth := fakepage.Component{ID: "cmp-auth", Name: "Authentication", Status: "major_outage"}
	conn := fakepage.Component{ID: "cmp-conn", Name: "Connector Heartbeat", Status: "degraded_performance"}
	upd := func(id, status, body string, m int) fakepage.Update {
		return fakepage.Update{ID: id, Status: status, Body: body, CreatedAt: at(m), UpdatedAt: at(m), DisplayAt: at(m)}
	}
	const day = 24 * 60
	old := fakepage.Incident{
		ID: "hist01", Name: "Delayed admin console emails", Status: "resolved", Impact: "minor",
		CreatedAt: at(-9 * day), UpdatedAt: at(-9*day + 50), StartedAt: at(-9 * day), ResolvedAt: ptr(at(-9*day + 50)),
		Updates: []fakepage.Update{
			upd("h1u2", "resolved", "Email delivery has caught up. This incident has been resolved.", -9*day+50),
			upd("h1u1", "investigating", "Some admin console emails are delayed. We are investigating.", -9*day),
		},
	}
	inc := fakepage.Incident{
		ID: "demo01", Name: "Elevated authentication failures", Status: "investigating", Impact: "major",
		CreatedAt: at(0), UpdatedAt: at(0), StartedAt: at(-6), Components: []fakepage.Component{auth},
		Updates: []fakepage.Update{upd("d1u1", "investigating", "We are investigating elevated authentication failures for some users. Connectors are not affected.", 0)},
	}
	var steps []Step
	snap := func(say string, m int) {
		c := inc
		c.Components = append([]fakepage.Component(nil), inc.Components...)
		c.Updates = append([]fakepage.Update(nil), inc.Updates...)
		steps = append(steps, Step{Say: say, At: at(m + 1), Incidents: []fakepage.Incident{c, old}})
	}
	steps = append(steps, Step{Say: "The vendor's page shows only an old, resolved incident.", At: at(-10), Incidents: []fakepage.Incident{old}})
	snap("The vendor posts a new major incident.", 0)

	inc.Status, inc.UpdatedAt = "identified", at(18)
	inc.Components = append(inc.Components, conn)
	inc.Updates = append([]fakepage.Update{upd("d1u2", "identified",
		"We have identified a misconfigured load balancer in us-east-1 that drops a share of authentication requests. Connector heartbeats are delayed as a result.", 18)}, inc.Updates...)
	snap("The vendor identifies the cause and adds a component.", 18)

	// The silent edit: the first update is reworded; only updated_at tells.
	inc.Updates[1].Body = "We are investigating elevated authentication failures for users in North America. Connectors may fail to reconnect."
	inc.Updates[1].UpdatedAt, inc.UpdatedAt = at(25), at(25)
	snap("The vendor silently rewords its first update.", 25)

	inc.Status, inc.UpdatedAt = "monitoring", at(41)
	inc.Updates = append([]fakepage.Update{upd("d1u3", "monitoring", "A fix has been deployed and authentication success rates are back to normal. We are monitoring.", 41)}, inc.Updates...)
	snap("The vendor deploys a fix and monitors.", 41)

	inc.Status, inc.UpdatedAt, inc.ResolvedAt = "resolved", at(77), ptr(at(77))
	inc.Impact = "minor" // vendors often downgrade the impact when they resolve
	inc.Updates = append([]fakepage.Update{upd("d1u4", "resolved", "This incident has been resolved.", 77)}, inc.Updates...)
	snap("The vendor resolves the incident and downgrades its impact.", 77)

	published := 3 * day
	inc.Status, inc.UpdatedAt = "postmortem", at(published)
	inc.PostmortemBody = "## Summary\n\n" + between(inc.StartedAt, *inc.ResolvedAt) + ", a share of authentication requests failed.\n\n" +
		"## Root cause\n\nA load balancer configuration change removed half of the healthy backends in us-east-1.\n\n" +
		"## What we are doing\n\n- Validating load balancer changes against live health checks.\n- Alerting on authentication success rate per region."
	inc.PostmortemPublishedAt = ptr(at(published))
	snap("Three days later, the vendor publishes a postmortem.", published)
	return steps
}

// between says when an incident lasted, as a postmortem would: "Between 14:54 and 16:11 UTC
// on 1 December 2026", with both dates when it crossed midnight.
func between(from, to time.Time) string {
	from, to = from.UTC(), to.UTC()
	const clock, date = "15:04", "2 January 2006"
	if from.Format(date) == to.Format(date) {
		return fmt.Sprintf("Between %s and %s UTC on %s", from.Format(clock), to.Format(clock), from.Format(date))
	}
	return fmt.Sprintf("Between %s UTC on %s and %s UTC on %s", from.Format(clock), from.Format(date), to.Format(clock), to.Format(date))
}
