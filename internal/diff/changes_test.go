package diff

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// fixture is an incident in the shape of the real write-ups that shaped the design: a title, an
// impact, components and a timeline of updates.
func fixture() *model.Incident {
	return &model.Incident{
		ID:         "p7h2k9x8bh1v",
		Kind:       model.KindIncident,
		Status:     model.StatusMonitoring,
		StatusRaw:  "monitoring",
		Impact:     model.ImpactMajor,
		ImpactRaw:  "major",
		Title:      "Elevated API error rates",
		StartedAt:  ts("2025-03-04T14:05:00Z"),
		Components: []string{"API", "Dashboard"},
		Updates: []model.Update{
			{ID: "u1", Status: model.StatusInvestigating, Format: model.FormatText, PostedAt: ts("2025-03-04T14:07:00Z"),
				Body: "We are investigating elevated error rates on the API."},
			{ID: "u2", Status: model.StatusIdentified, Format: model.FormatText, PostedAt: ts("2025-03-04T14:40:00Z"),
				Body: "The issue has been identified as a misconfigured load balancer health check."},
			{ID: "u3", Status: model.StatusMonitoring, Format: model.FormatText, PostedAt: ts("2025-03-04T15:10:00Z"),
				Body: "A fix has been deployed and we are monitoring the results."},
		},
		URL: "https://status.example.com/incidents/p7h2k9x8bh1v",
	}
}

// clone deep-copies an incident so a test can edit it.
func clone(inc *model.Incident) *model.Incident {
	c := *inc
	c.Components = slices.Clone(inc.Components)
	c.Updates = slices.Clone(inc.Updates)
	if inc.Postmortem != nil {
		pm := *inc.Postmortem
		c.Postmortem = &pm
	}
	return &c
}

func edit(f func(*model.Incident)) *model.Incident {
	inc := clone(fixture())
	f(inc)
	return inc
}

// brief writes a change as "field: before → after", nil as "∅".
func brief(c model.Change) string {
	s := func(p *string) string {
		if p == nil {
			return "∅"
		}
		return fmt.Sprintf("%q", *p)
	}
	return c.Field + ": " + s(c.Before) + " → " + s(c.After)
}

func briefs(cs []model.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = brief(c)
	}
	return out
}

// checkOps fails t unless every text field carries ops that join to its values and
// every other field carries none.
func checkOps(t *testing.T, cs []model.Change) {
	t.Helper()
	for _, c := range cs {
		text := c.Field == FieldTitle || c.Field == FieldPostmortemBody ||
			strings.HasPrefix(c.Field, "updates[") && !strings.HasSuffix(c.Field, ".status")
		if !text {
			if c.Ops != nil {
				t.Errorf("%s: got ops %v, want none on a non-text field", c.Field, c.Ops)
			}
			continue
		}
		var b, a string
		if c.Before != nil {
			b = *c.Before
		}
		if c.After != nil {
			a = *c.After
		}
		if err := joinsError(c.Ops, b, a); err != nil {
			t.Errorf("%s: %v", c.Field, err)
		}
	}
}

func TestChangesVersionZero(t *testing.T) {
	got := Changes(nil, fixture())
	checkOps(t, got)
	want := []string{
		`title: ∅ → "Elevated API error rates"`,
		`status: ∅ → "monitoring"`,
		`impact: ∅ → "major"`,
		`kind: ∅ → "incident"`,
		`started_at: ∅ → "2025-03-04T14:05:00Z"`,
		`components: ∅ → "API, Dashboard"`,
		`updates[u1]: ∅ → "We are investigating elevated error rates on the API."`,
		`updates[u2]: ∅ → "The issue has been identified as a misconfigured load balancer health check."`,
		`updates[u3]: ∅ → "A fix has been deployed and we are monitoring the results."`,
	}
	if g := briefs(got); !slices.Equal(g, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	if ops := got[0].Ops; len(ops) != 1 || ops[0].Op != model.OpInsert {
		t.Errorf("title ops: got %v, want one insert", ops)
	}
}

func TestChangesFields(t *testing.T) {
	pm := func(body string, at time.Time) *model.Postmortem {
		return &model.Postmortem{Body: body, Format: model.FormatMarkdown, PublishedAt: at}
	}
	tests := []struct {
		name   string
		before *model.Incident
		after  *model.Incident
		want   []string
	}{
		{"title edited", fixture(), edit(func(i *model.Incident) { i.Title = "Elevated API and dashboard error rates" }),
			[]string{`title: "Elevated API error rates" → "Elevated API and dashboard error rates"`}},
		{"status", fixture(), edit(func(i *model.Incident) { i.Status = model.StatusResolved }),
			[]string{`status: "monitoring" → "resolved"`}},
		{"impact downgraded", fixture(), edit(func(i *model.Incident) { i.Impact = model.ImpactMinor }),
			[]string{`impact: "major" → "minor"`}},
		{"kind", fixture(), edit(func(i *model.Incident) { i.Kind = model.KindMaintenance }),
			[]string{`kind: "incident" → "maintenance"`}},
		{"start backdated", fixture(), edit(func(i *model.Incident) { i.StartedAt = ts("2025-03-04T13:50:00Z") }),
			[]string{`started_at: "2025-03-04T14:05:00Z" → "2025-03-04T13:50:00Z"`}},
		{"start removed", fixture(), edit(func(i *model.Incident) { i.StartedAt = time.Time{} }),
			[]string{`started_at: "2025-03-04T14:05:00Z" → ∅`}},
		{"resolved time set, shown in UTC", fixture(), edit(func(i *model.Incident) {
			i.ResolvedAt = ts("2025-03-04T17:36:00+02:00")
		}), []string{`resolved_at: ∅ → "2025-03-04T15:36:00Z"`}},
		{"scheduled window", fixture(), edit(func(i *model.Incident) {
			i.ScheduledFor, i.ScheduledUntil = ts("2025-03-10T02:00:00Z"), ts("2025-03-10T04:00:00Z")
		}), []string{`scheduled_for: ∅ → "2025-03-10T02:00:00Z"`, `scheduled_until: ∅ → "2025-03-10T04:00:00Z"`}},
		{"component added", fixture(), edit(func(i *model.Incident) { i.Components = []string{"API", "Dashboard", "Webhooks"} }),
			[]string{`components: "API, Dashboard" → "API, Dashboard, Webhooks"`}},
		{"components dropped", fixture(), edit(func(i *model.Incident) { i.Components = nil }),
			[]string{`components: "API, Dashboard" → ∅`}},
		{"update added", fixture(), edit(func(i *model.Incident) {
			i.Updates = append(i.Updates, model.Update{ID: "u4", Status: model.StatusResolved, Body: "This incident has been resolved."})
		}), []string{`updates[u4]: ∅ → "This incident has been resolved."`}},
		{"update with empty body added", fixture(), edit(func(i *model.Incident) {
			i.Updates = append(i.Updates, model.Update{ID: "u4", Status: model.StatusResolved})
		}), []string{`updates[u4]: ∅ → ""`}},
		{"update body edited", fixture(), edit(func(i *model.Incident) {
			i.Updates[1].Body = "The issue has been identified as a misconfigured load balancer."
		}), []string{`updates[u2].body: "The issue has been identified as a misconfigured load balancer health check." → "The issue has been identified as a misconfigured load balancer."`}},
		{"update status edited", fixture(), edit(func(i *model.Incident) { i.Updates[1].Status = model.StatusMonitoring }),
			[]string{`updates[u2].status: "identified" → "monitoring"`}},
		{"update body and status edited", fixture(), edit(func(i *model.Incident) {
			i.Updates[0].Body, i.Updates[0].Status = "We are looking into it.", model.StatusIdentified
		}), []string{
			`updates[u1].body: "We are investigating elevated error rates on the API." → "We are looking into it."`,
			`updates[u1].status: "investigating" → "identified"`,
		}},
		{"update removed", fixture(), edit(func(i *model.Incident) { i.Updates = slices.Delete(i.Updates, 1, 2) }),
			[]string{`updates[u2]: "The issue has been identified as a misconfigured load balancer health check." → ∅`}},
		{"postmortem published", fixture(), edit(func(i *model.Incident) {
			i.Postmortem = pm("## Root cause\nA health check restarted healthy nodes.", ts("2025-03-07T09:00:00Z"))
		}), []string{
			`postmortem.body: ∅ → "## Root cause\nA health check restarted healthy nodes."`,
			`postmortem.published_at: ∅ → "2025-03-07T09:00:00Z"`,
		}},
		{"postmortem edited",
			edit(func(i *model.Incident) {
				i.Postmortem = pm("A health check restarted healthy nodes.", ts("2025-03-07T09:00:00Z"))
			}),
			edit(func(i *model.Incident) {
				i.Postmortem = pm("A misconfigured health check restarted healthy nodes.", ts("2025-03-08T09:00:00Z"))
			}), []string{
				`postmortem.body: "A health check restarted healthy nodes." → "A misconfigured health check restarted healthy nodes."`,
				`postmortem.published_at: "2025-03-07T09:00:00Z" → "2025-03-08T09:00:00Z"`,
			}},
		{"postmortem removed",
			edit(func(i *model.Incident) { i.Postmortem = pm("Root cause.", time.Time{}) }),
			fixture(), []string{`postmortem.body: "Root cause." → ∅`}},
		{"incident removed", fixture(), nil, []string{
			`title: "Elevated API error rates" → ∅`,
			`status: "monitoring" → ∅`,
			`impact: "major" → ∅`,
			`kind: "incident" → ∅`,
			`started_at: "2025-03-04T14:05:00Z" → ∅`,
			`components: "API, Dashboard" → ∅`,
			`updates[u1]: "We are investigating elevated error rates on the API." → ∅`,
			`updates[u2]: "The issue has been identified as a misconfigured load balancer health check." → ∅`,
			`updates[u3]: "A fix has been deployed and we are monitoring the results." → ∅`,
		}},
		{"both nil", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Changes(tt.before, tt.after)
			checkOps(t, got)
			if g := briefs(got); !slices.Equal(g, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestChangesCosmetic checks that what docs/design.md §4 calls cosmetic is no change.
func TestChangesCosmetic(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(*model.Incident)
		before func(*model.Incident) // edits the fixture used as before, when set
	}{
		{name: "nothing", edit: func(*model.Incident) {}},
		{name: "title whitespace", edit: func(i *model.Incident) { i.Title = "  Elevated  API\terror rates\n" }},
		{name: "update body whitespace", edit: func(i *model.Incident) {
			i.Updates[0].Body = "We are investigating\n\nelevated error  rates on the API.  "
		}},
		{name: "component order and duplicates", edit: func(i *model.Incident) { i.Components = []string{"Dashboard", "API", "API", " "} }},
		{name: "component name whitespace", edit: func(i *model.Incident) { i.Components = []string{" API", "Dashboard  "} }},
		{name: "update posted_at and format moved", edit: func(i *model.Incident) {
			i.Updates[2].PostedAt = ts("2025-03-04T15:12:00Z")
			i.Updates[2].Format = model.FormatHTML
		}},
		{name: "update order", edit: func(i *model.Incident) { slices.Reverse(i.Updates) }},
		{name: "not version fields", edit: func(i *model.Incident) {
			i.URL, i.StatusRaw, i.ImpactRaw, i.ResolvedInferred, i.ID = "https://other.example/", "Monitoring", "MAJOROUTAGE", true, "other"
		}},
		{name: "same instant in another zone", edit: func(i *model.Incident) {
			i.StartedAt = i.StartedAt.In(time.FixedZone("CET", 3600))
		}},
		{name: "sub-second precision", edit: func(i *model.Incident) { i.StartedAt = i.StartedAt.Add(250 * time.Millisecond) }},
		{name: "empty postmortem", edit: func(i *model.Incident) { i.Postmortem = &model.Postmortem{Body: " \n", Format: model.FormatHTML} }},
		{name: "whitespace-only title is no title", edit: func(i *model.Incident) { i.Title = "" },
			before: func(i *model.Incident) { i.Title = " \t " }},
		{name: "duplicate update id", edit: func(i *model.Incident) {
			i.Updates = append(i.Updates, model.Update{ID: "u1", Body: "a repeat the provider should not send"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fixture()
			if tt.before != nil {
				tt.before(before)
			}
			after := edit(tt.edit)
			if got := Changes(before, after); len(got) != 0 {
				t.Errorf("got changes %q, want none", briefs(got))
			}
			if Fingerprint(before) != Fingerprint(after) {
				t.Errorf("got different fingerprints, want equal")
			}
		})
	}
}

// TestChangesShowActualStrings checks that a real change shows the vendor's strings as
// they are, whitespace included, and that the ops join to them.
func TestChangesShowActualStrings(t *testing.T) {
	after := edit(func(i *model.Incident) { i.Title = "  Elevated API  error rates (EU)" })
	got := Changes(fixture(), after)
	want := []string{`title: "Elevated API error rates" → "  Elevated API  error rates (EU)"`}
	if g := briefs(got); !slices.Equal(g, want) {
		t.Errorf("got %q, want %q", g, want)
	}
	checkOps(t, got)
}

func TestChangesOrder(t *testing.T) {
	before := fixture()
	after := edit(func(i *model.Incident) {
		// u1 removed, u2 edited, u5 added between u2 and u3, u3 edited, u4 added last;
		// the update list is also given newest first for u3/u5 to show after's order wins.
		i.Title = "Elevated API error rates in EU"
		i.Status = model.StatusResolved
		i.Postmortem = &model.Postmortem{Body: "Root cause.", PublishedAt: ts("2025-03-06T00:00:00Z")}
		i.Updates = []model.Update{
			{ID: "u2", Status: model.StatusIdentified, Body: "Identified."},
			{ID: "u5", Status: model.StatusMonitoring, Body: "Partial fix."},
			{ID: "u3", Status: model.StatusResolved, Body: "A fix has been deployed and we are monitoring the results."},
			{ID: "u4", Status: model.StatusResolved, Body: "Resolved."},
		}
	})
	before.Updates = append(before.Updates, model.Update{ID: "u0", Body: "Old note."})
	var got []string
	for _, c := range Changes(before, after) {
		got = append(got, c.Field)
	}
	want := []string{
		"title", "status",
		"updates[u2].body", "updates[u5]", "updates[u3].status", "updates[u4]",
		"updates[u1]", "updates[u0]",
		"postmortem.body", "postmortem.published_at",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got fields %q, want %q", got, want)
	}
}

// fingerprintVariants are incidents that differ from the fixture in every field, and
// cosmetically, for the property test.
func fingerprintVariants() map[string]*model.Incident {
	return map[string]*model.Incident{
		"nil":              nil,
		"empty":            {},
		"fixture":          fixture(),
		"fixture cosmetic": edit(func(i *model.Incident) { i.Title = " Elevated API error  rates"; slices.Reverse(i.Components) }),
		"title":            edit(func(i *model.Incident) { i.Title = "Elevated API errors" }),
		"status":           edit(func(i *model.Incident) { i.Status = model.StatusResolved }),
		"impact":           edit(func(i *model.Incident) { i.Impact = model.ImpactCritical }),
		"kind":             edit(func(i *model.Incident) { i.Kind = model.KindMaintenance }),
		"started":          edit(func(i *model.Incident) { i.StartedAt = ts("2025-03-04T14:00:00Z") }),
		"resolved":         edit(func(i *model.Incident) { i.ResolvedAt = ts("2025-03-04T16:00:00Z") }),
		"scheduled for":    edit(func(i *model.Incident) { i.ScheduledFor = ts("2025-03-04T16:00:00Z") }),
		"scheduled until":  edit(func(i *model.Incident) { i.ScheduledUntil = ts("2025-03-04T16:00:00Z") }),
		"one component":    edit(func(i *model.Incident) { i.Components = []string{"API"} }),
		"joined component": edit(func(i *model.Incident) { i.Components = []string{"API, Dashboard"} }),
		"update body":      edit(func(i *model.Incident) { i.Updates[0].Body = "Investigating." }),
		"update status":    edit(func(i *model.Incident) { i.Updates[0].Status = model.StatusIdentified }),
		"update id":        edit(func(i *model.Incident) { i.Updates[0].ID = "u9" }),
		"update dropped":   edit(func(i *model.Incident) { i.Updates = i.Updates[:2] }),
		"update added":     edit(func(i *model.Incident) { i.Updates = append(i.Updates, model.Update{ID: "u4"}) }),
		"update order":     edit(func(i *model.Incident) { slices.Reverse(i.Updates) }),
		"update moved":     edit(func(i *model.Incident) { i.Updates[0].PostedAt = ts("2025-03-04T14:08:00Z") }),
		"postmortem":       edit(func(i *model.Incident) { i.Postmortem = &model.Postmortem{Body: "RCA"} }),
		"postmortem dated": edit(func(i *model.Incident) {
			i.Postmortem = &model.Postmortem{Body: "RCA", PublishedAt: ts("2025-03-05T00:00:00Z")}
		}),
		"postmortem spaced": edit(func(i *model.Incident) { i.Postmortem = &model.Postmortem{Body: " RCA\n"} }),
		"postmortem empty":  edit(func(i *model.Incident) { i.Postmortem = &model.Postmortem{} }),
		"only title":        {Title: "Elevated API error rates"},
		"only components":   {Components: []string{"API", "Dashboard"}},
		"title = body":      {Title: "u1"},
		"components spaced": edit(func(i *model.Incident) { i.Components = []string{"Dashboard ", "", "API", "API"} }),
		"update repeated": edit(func(i *model.Incident) {
			i.Updates = append(i.Updates, model.Update{ID: "u1", Body: "A later update with an id seen before."})
		}),
		"update id = title": {Updates: []model.Update{{ID: "Elevated API error rates"}}},
	}
}

// TestFingerprintMatchesChanges checks, over every pair of variants, that fingerprints
// are equal exactly when Changes finds nothing, both ways round.
func TestFingerprintMatchesChanges(t *testing.T) {
	vs := fingerprintVariants()
	names := make([]string, 0, len(vs))
	for n := range vs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, a := range names {
		for _, b := range names {
			t.Run(a+" vs "+b, func(t *testing.T) {
				sameFP := Fingerprint(vs[a]) == Fingerprint(vs[b])
				changes := Changes(vs[a], vs[b])
				if sameFP != (len(changes) == 0) {
					t.Errorf("got equal fingerprints %v with changes %q, want equal fingerprints exactly when no changes",
						sameFP, briefs(changes))
				}
			})
		}
	}
}

// TestFingerprintStable pins the hash: the archive stores fingerprints, so a change in
// the encoding must be deliberate (it makes every stored fingerprint stale).
func TestFingerprintStable(t *testing.T) {
	fp := Fingerprint(fixture())
	got := hex.EncodeToString(fp[:])
	const want = "6f0151ac2be2a4a1617de289f9a2f240318af162a28f5275d7eb8fd24001670c"
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestChangesDoesNotModifyInput(t *testing.T) {
	before, after := fixture(), edit(func(i *model.Incident) { slices.Reverse(i.Components); i.Title = "x" })
	b0, a0 := clone(before), clone(after)
	Changes(before, after)
	Fingerprint(after)
	if !slices.Equal(before.Components, b0.Components) || !slices.Equal(after.Components, a0.Components) ||
		before.Title != b0.Title || after.Title != a0.Title {
		t.Errorf("got inputs modified, want them untouched")
	}
}
