package web

import (
	"html/template"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

func TestRelative(t *testing.T) {
	tests := []struct {
		ago  time.Duration
		want string
	}{
		{0, "just now"},
		{59 * time.Second, "just now"},
		{time.Minute, "1m ago"},
		{59 * time.Minute, "59m ago"},
		{time.Hour, "1h ago"},
		{47 * time.Hour, "47h ago"},
		{48 * time.Hour, "2d ago"},
		{59 * day, "59d ago"},
		{60 * day, "2mo ago"},
		{800 * day, "2y ago"},
		{-3 * time.Hour, "in 3h"},
		{-36 * time.Hour, "in 36h"},
		{-5 * day, "in 5d"},
	}
	for _, tt := range tests {
		if got := relative(now.Add(-tt.ago), now); got != tt.want {
			t.Errorf("%v ago: got %q, want %q", tt.ago, got, tt.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"  spaced\n\nout  text ", 20, "spaced out text"},
		{"The load balancer dropped requests.", 20, "The load balancer…"},
		{"Cut, after a comma", 5, "Cut…"},
		{"Antidisestablishmentarianism", 6, "Antidi…"},
		{"東京リージョンで障害", 4, "東京リー…"},
		// A short word, then a long URL: cut inside the URL rather than after "See".
		{"See https://status.example.com/incidents/01HXYZ for details.", 24, "See https://status.examp…"},
		{"Resolved. See https://status.example.com/incidents/01HXYZ for details.", 40, "Resolved. See https://status.example.com…"},
		// A whole URL is a link, escaped, its sentence's full stop left out.
		{"See https://status.example.com/i?a=1&b=<2>. Thanks", 100,
			`See <a href="https://status.example.com/i?a=1&amp;b=" rel="nofollow noopener">https://status.example.com/i?a=1&amp;b=</a>&lt;2&gt;. Thanks`},
		{"Only (https://x.example/a_(b)) and javascript:alert(1) <b>", 100,
			`Only (<a href="https://x.example/a_(b)" rel="nofollow noopener">https://x.example/a_(b)</a>) and javascript:alert(1) &lt;b&gt;`},
	}
	for _, tt := range tests {
		if got := string(excerptHTML(tt.in, tt.n)); got != tt.want {
			t.Errorf("excerptHTML(%q, %d): got %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestSnippet(t *testing.T) {
	inc := &model.Incident{
		Title: "Database latency",
		Updates: []model.Update{
			{Body: "First: the <primary> database is slow."},
			{Body: strings.Repeat("padding ", 30) + "Replica LAG is elevated & growing." + strings.Repeat(" more", 30)},
		},
		Postmortem: &model.Postmortem{Body: "Ünïcode lag here"},
	}
	tests := []struct {
		words []string
		want  template.HTML
	}{
		{[]string{"primary"}, "First: the &lt;<mark>primary</mark>&gt; database is slow."},
		{[]string{"lag", "elevated"}, "…padding padding padding padding padding padding padding padding padding padding Replica <mark>LAG</mark> is <mark>elevated</mark> &amp; growing. more more more more more more more more more more more more more…"},
		{[]string{"latency"}, ""}, // only in the title
		{[]string{"here"}, "Ünïcode lag <mark>here</mark>"},
	}
	for _, tt := range tests {
		if got := snippet(inc, tt.words); got != tt.want {
			t.Errorf("snippet(%q):\ngot  %q\nwant %q", tt.words, got, tt.want)
		}
	}
}

func TestFigures(t *testing.T) {
	e := newEnv(t)
	watch := now.Add(-100 * day) // the first poll of the source
	info := func(id string, firstSeen time.Time, inc model.Incident) archive.IncidentInfo {
		inc.ID = id
		if inc.Kind == "" {
			inc.Kind = model.KindIncident
		}
		return archive.IncidentInfo{Source: "acme", ID: id, Latest: inc, FirstSeen: firstSeen}
	}
	infos := []archive.IncidentInfo{
		// Already on the page when watching began: counted, resolved, but when it first
		// showed is unknown.
		info("old", watch, model.Incident{StartedAt: watch.Add(-5 * day), ResolvedAt: watch.Add(-5*day + time.Hour)}),
		// Seen 6 minutes after its start, resolved after 30 minutes, postmortem 2 days on.
		info("a", now.Add(-10*day+6*time.Minute), model.Incident{StartedAt: now.Add(-10 * day), ResolvedAt: now.Add(-10*day + 30*time.Minute),
			Postmortem: &model.Postmortem{PublishedAt: now.Add(-8*day + 30*time.Minute)}}),
		// Backdated: first seen on a later poll, started before watching began.
		info("b", watch.Add(time.Hour), model.Incident{StartedAt: watch.Add(-time.Hour)}),
		// 45 days ago, resolved after 2h, seen after 4 minutes.
		info("c", now.Add(-45*day+4*time.Minute), model.Incident{StartedAt: now.Add(-45 * day), ResolvedAt: now.Add(-45*day + 2*time.Hour)}),
		// Maintenance counts in nothing.
		info("m", now.Add(-day), model.Incident{Kind: model.KindMaintenance, ScheduledFor: now.Add(-day)}),
	}
	got := e.srv.figures(infos)
	want := []figure{
		{"Incidents, last 30 days", "1", "by start time"},
		{"Incidents, last 90 days", "2", "by start time"},
		{"Median time to resolve", "1h", "median of 3 resolved incidents"},
		{"Resolution to postmortem", "2d", "median of 1 postmortem"},
		{"First shown after start", "6m", "median of 3 incidents seen appearing"},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("figure %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if got := e.srv.figures(nil); got[2].Value != "—" || got[2].Note != "no resolved incident yet" {
		t.Errorf("no incidents: got %+v", got[2])
	}
}

func TestTimeline(t *testing.T) {
	e := newEnv(t)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	inc := func(id string, impact model.Impact, start, end time.Time) archive.IncidentInfo {
		return archive.IncidentInfo{Source: "acme", ID: id, Latest: model.Incident{ID: id, Kind: model.KindIncident,
			Status: model.StatusResolved, Impact: impact, Title: "Incident " + id, StartedAt: start, ResolvedAt: end}}
	}
	open := inc("open", model.ImpactMajor, now.Add(-30*time.Hour), time.Time{})
	open.Latest.Status = model.StatusInvestigating
	maint := archive.IncidentInfo{Source: "acme", ID: "m", Latest: model.Incident{ID: "m", Kind: model.KindMaintenance,
		Status: model.StatusCompleted, Impact: model.ImpactMaintenance, Title: "Upgrade",
		ScheduledFor: today.AddDate(0, 0, -5).Add(2 * time.Hour), ScheduledUntil: today.AddDate(0, 0, -5).Add(4 * time.Hour)}}
	infos := []archive.IncidentInfo{
		inc("minor", model.ImpactMinor, today.AddDate(0, 0, -10).Add(time.Hour), today.AddDate(0, 0, -10).Add(2*time.Hour)),
		inc("critical", model.ImpactCritical, today.AddDate(0, 0, -10).Add(3*time.Hour), today.AddDate(0, 0, -10).Add(5*time.Hour)),
		open, maint,
		inc("ancient", model.ImpactMajor, today.AddDate(0, 0, -200), today.AddDate(0, 0, -199)),
	}
	tl := e.srv.timeline(infos)
	if len(tl.Bars) != timelineDays || tl.Count != 4 {
		t.Fatalf("got %d bars showing %d incidents, want %d bars and 4", len(tl.Bars), tl.Count, timelineDays)
	}
	last := timelineDays - 1
	tests := []struct {
		day          int // days before today
		class, h     string
		url, inTitle string
	}{
		{10, "bar b-critical", "40", "/incidents/acme/critical", "Incident minor (minor"},
		{5, "bar bar-maint", "16", "/incidents/acme/m", "Upgrade (maintenance"},
		{1, "bar b-major", "30", "/incidents/acme/open", "ongoing"},
		{0, "bar b-major", "30", "/incidents/acme/open", "Incident open (major, 2026-06-30 08:00 UTC"},
		{2, "bar day-quiet", "8", "", "no incident"},
	}
	for _, tt := range tests {
		b := tl.Bars[last-tt.day]
		if b.Class != tt.class || b.H != tt.h || b.URL != tt.url || !strings.Contains(b.Title, tt.inTitle) {
			t.Errorf("%d days ago: got %+v, want class %q height %s link %q and %q in the title", tt.day, b, tt.class, tt.h, tt.url, tt.inTitle)
		}
	}
	if tl.Axis != [3]string{"Apr 3", "May 18", "today"} {
		t.Errorf("axis: got %q", tl.Axis)
	}
}

func TestStateOf(t *testing.T) {
	tests := []struct {
		name                          string
		down, paused, retired, polled bool
		worst                         model.Impact
		incident, maintenance         bool
		want                          string
	}{
		{"operational", false, false, false, true, "", false, false, "Operational"},
		{"not polled", false, false, false, false, "", false, false, "Not polled yet"},
		{"paused", false, true, false, true, "", false, false, "Paused"},
		{"down beats an incident", true, false, false, true, model.ImpactCritical, true, false, "Cannot be read"},
		{"critical", false, false, false, true, model.ImpactCritical, true, false, "Critical incident"},
		{"unknown impact", false, false, false, true, model.ImpactUnknown, true, false, "Incident"},
		{"incident beats maintenance", false, false, false, true, model.ImpactMinor, true, true, "Minor incident"},
		{"maintenance", false, false, false, true, "", false, true, "Maintenance"},
		{"retired", true, false, true, true, "", false, false, "Retired"},
	}
	for _, tt := range tests {
		got := stateOf(tt.down, tt.paused, tt.retired, tt.polled, tt.worst, tt.incident, tt.maintenance)
		if got.Label != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got.Label, tt.want)
		}
	}
}

func TestTextHTML(t *testing.T) {
	tests := []struct {
		in   string
		want template.HTML
	}{
		{"one line", "<p>one line</p>"},
		{"a\r\nb\n\n\nc <d> & e", "<p>a<br>b</p><p>c &lt;d&gt; &amp; e</p>"},
		{"  \n ", ""},
		{"bad \xff byte", "<p>bad \uFFFD byte</p>"},
	}
	for _, tt := range tests {
		if got := textHTML(tt.in); got != tt.want {
			t.Errorf("textHTML(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPostmortemHTML(t *testing.T) {
	got := string(postmortemHTML(&model.Postmortem{Format: model.FormatMarkdown,
		Body: "# Title\n\n## Cause\n\nSee [docs](https://example.com/x) and https://example.com/y.\n\n- one\n- two"}))
	for _, want := range []string{"<h3>Title</h3>", "<h4>Cause</h4>", `<a href="https://example.com/x" rel="nofollow noreferrer noopener" target="_blank">docs</a>`,
		`<a href="https://example.com/y" rel="nofollow noreferrer noopener" target="_blank">https://example.com/y</a>`, "<li>one</li>"} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant it to contain %s", got, want)
		}
	}
	if got := string(postmortemHTML(&model.Postmortem{Format: model.FormatText, Body: "# not a heading"})); got != "<p># not a heading</p>" {
		t.Errorf("text postmortem: got %q", got)
	}
}
