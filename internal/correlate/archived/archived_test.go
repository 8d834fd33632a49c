package archived

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/correlate"
	"github.com/statuswatch/statuswatch/internal/model"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

func open(tb testing.TB) *archive.Store {
	tb.Helper()
	st, err := archive.Open(filepath.Join(tb.TempDir(), "watcher.db"), archive.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

func record(tb testing.TB, st *archive.Store, source string, incs ...model.Incident) {
	tb.Helper()
	snap := &model.Snapshot{Source: source, FetchedAt: t0, Listings: []model.Listing{{Kind: model.KindIncident}, {Kind: model.KindMaintenance}}, Incidents: incs}
	if _, err := st.Record(source, snap, nil, nil, archive.Policy{}); err != nil {
		tb.Fatal(err)
	}
}

func incident(id, title string, m int, body string) model.Incident {
	at := t0.Add(time.Duration(m) * time.Minute)
	return model.Incident{ID: id, Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMinor, Title: title, StartedAt: at,
		Updates: []model.Update{{ID: id + "-1", Status: model.StatusInvestigating, Body: body, Format: model.FormatText, PostedAt: at}}}
}

func TestIndex(t *testing.T) {
	st := open(t)
	titles := map[string]string{"gcloud": "Google Cloud", "acme": "Acme", "beta": "Beta"}
	x := New(st, Options{TitleOf: func(s string) string { return titles[s] }, Now: func() time.Time { return t0.Add(time.Hour) }})
	// gcloud's incident names no term itself: its source's title makes it a GCP one.
	record(t, st, "gcloud", incident("g1", "Elevated latency", 0, "We are investigating."))
	record(t, st, "acme", incident("a1", "Errors", 5, "Our provider Google Cloud is degraded."),
		model.Incident{ID: "m1", Kind: model.KindMaintenance, Status: model.StatusInProgress, Impact: model.ImpactMaintenance,
			Title: "GCP migration", ScheduledFor: t0, ScheduledUntil: t0.Add(time.Hour), StartedAt: t0})
	res, err := x.Result()
	if err != nil {
		t.Fatal(err)
	}
	rels := res.Related("acme", "a1")
	if len(rels) != 1 || rels[0].Incident.ID != "g1" || !slices.Equal(rels[0].Reasons, []string{"same term: GCP", "started 5m apart"}) {
		t.Fatalf("acme's relations %+v", rels)
	}
	if res.EventOf("acme", "m1") != nil || len(res.Related("acme", "m1")) != 0 {
		t.Error("a maintenance is related")
	}
	if got := x.AlsoAffected("acme", "a1"); !slices.Equal(got, []string{"Google Cloud"}) {
		t.Errorf("AlsoAffected %q", got)
	}
	if got := x.AlsoAffected("gcloud", "nope"); got != nil {
		t.Errorf("AlsoAffected of an unknown incident %q", got)
	}
	again, _ := x.Result()
	if again != res {
		t.Error("an unchanged archive was computed again")
	}

	// A write changes the answer: beta joins the event.
	record(t, st, "beta", incident("b1", "Slow builds", 8, "GCP europe-west2 is slow."))
	res2, err := x.Result()
	if err != nil {
		t.Fatal(err)
	}
	if res2 == res {
		t.Fatal("the archive changed, the result did not")
	}
	if got := x.AlsoAffected("acme", "a1"); !slices.Equal(got, []string{"Beta", "Google Cloud"}) {
		t.Errorf("AlsoAffected after beta %q", got)
	}
	if ev := res2.Events(); len(ev) != 1 || ev[0].ID != "gcloud.g1" || len(ev[0].Incidents) != 3 {
		t.Errorf("events %+v", ev)
	}
}

func TestTexts(t *testing.T) {
	inc := incident("i", "Title", 0, "Body")
	inc.Components = []string{"API"}
	inc.Postmortem = &model.Postmortem{Body: "PM"}
	if got := Texts("src", "Source", &inc); !slices.Equal(got, []string{"src", "Source", "Title", "API", "Body", "PM"}) {
		t.Errorf("Texts %q", got)
	}
}

// BenchmarkResult is the work of a read after a write over an archive of 10,000
// incidents of 50 sources (a year of each, two updates each, most naming a region or a
// technology): "cold" with nothing kept (the first read of a daemon), "one changed" after
// a poll gave one incident a new version, "outbox write" after a write that changed no
// incident (a Slack message marked sent).
func BenchmarkResult(b *testing.B) {
	st := open(b)
	words := []string{"us-east-1", "DNS", "europe-west2", "load balancer", "Cloudflare", "nothing", "East US 2", "GKE"}
	make := func(s, i, n int) model.Incident {
		body := fmt.Sprintf("We are investigating errors in %s affecting some customers. %s", words[(s+i)%len(words)], strings.Repeat("More text here. ", 20))
		inc := incident(fmt.Sprintf("i%d", i), fmt.Sprintf("Elevated errors (%d)", n), (i*7919+s*104729)%(365*24*60), body)
		inc.Status, inc.ResolvedAt = model.StatusResolved, inc.StartedAt.Add(45*time.Minute)
		inc.Updates = append(inc.Updates, model.Update{ID: "r", Status: model.StatusResolved, Body: "This incident has been resolved.", PostedAt: inc.ResolvedAt})
		return inc
	}
	for s := range 50 {
		var incs []model.Incident
		for i := range 200 {
			incs = append(incs, make(s, i, 0))
		}
		record(b, st, fmt.Sprintf("vendor%02d", s), incs...)
	}
	o := Options{Now: func() time.Time { return t0.Add(400 * 24 * time.Hour) }}
	run := func(b *testing.B, before func(x *Index, n int)) {
		b.ReportAllocs()
		x := New(st, o)
		if _, err := x.Result(); err != nil {
			b.Fatal(err)
		}
		n := 0
		var res *correlate.Result
		for b.Loop() {
			n++
			b.StopTimer()
			before(x, n)
			b.StartTimer()
			var err error
			if res, err = x.Result(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(res.Events())), "events")
	}
	b.Run("cold", func(b *testing.B) {
		run(b, func(x *Index, _ int) { *x = *New(st, o) })
	})
	b.Run("one changed", func(b *testing.B) {
		run(b, func(_ *Index, n int) {
			var incs []model.Incident
			for i := range 200 {
				incs = append(incs, make(7, i, map[bool]int{true: n}[i == 3]))
			}
			record(b, st, "vendor07", incs...)
		})
	})
	b.Run("outbox write", func(b *testing.B) {
		run(b, func(_ *Index, n int) {
			if err := st.SetThread("vendor07", "i1", "C1", fmt.Sprint(n)); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// With a Horizon, the incidents closed that started before it are left out, unread, and an
// open one is kept however old; without one, every incident is correlated.
func TestHorizon(t *testing.T) {
	st := open(t)
	resolved := func(in model.Incident) model.Incident {
		in.Status = model.StatusResolved
		in.ResolvedAt = in.StartedAt.Add(20 * time.Minute)
		return in
	}
	// Two old closed incidents naming us-east-1, 3 minutes apart: an event without a horizon.
	record(t, st, "acme", resolved(incident("a-old", "Errors in us-east-1", 0, "AWS us-east-1.")))
	record(t, st, "beta", resolved(incident("b-old", "Slow us-east-1", 3, "AWS us-east-1.")))
	// And an old one still open, with a new one beside it now.
	record(t, st, "acme", resolved(incident("a-old", "Errors in us-east-1", 0, "AWS us-east-1.")), incident("a-open", "Stuck in eu-west-1", 10, "AWS eu-west-1."))
	now := func() time.Time { return t0.Add(30 * 24 * time.Hour) }
	all, err := New(st, Options{Now: now}).Result()
	if err != nil {
		t.Fatal(err)
	}
	if all.EventOf("acme", "a-old") == nil {
		t.Fatal("without a horizon the old incidents form no event")
	}
	x := New(st, Options{Now: now, Horizon: 7 * 24 * time.Hour})
	recent, err := x.Result()
	if err != nil {
		t.Fatal(err)
	}
	if recent.EventOf("acme", "a-old") != nil || len(recent.Related("beta", "b-old")) != 0 {
		t.Error("with a horizon of a week, incidents closed a month ago are correlated")
	}
	if _, ok := x.known[ref{"acme", "a-open"}]; !ok {
		t.Error("an open incident older than the horizon is left out")
	}
	if len(x.known) != 1 {
		t.Errorf("%d incidents read with the horizon, want 1 (the open one)", len(x.known))
	}
}
