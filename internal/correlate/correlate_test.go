package correlate

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// inc is an incident of source started m minutes after t0, active for d minutes.
func inc(source, id string, m, d int, terms ...string) Incident {
	return Incident{Source: source, ID: id, Title: id, Start: t0.Add(time.Duration(m) * time.Minute),
		End: t0.Add(time.Duration(m+d) * time.Minute), Terms: terms}
}

func reasonsOf(r *Result, source, id string) map[string][]string {
	out := map[string][]string{}
	for _, rel := range r.Related(source, id) {
		out[rel.Incident.Source+"/"+rel.Incident.ID] = rel.Reasons
	}
	return out
}

func TestCorrelateTime(t *testing.T) {
	for name, tc := range map[string]struct {
		a, b Incident
		want []string // b's reasons seen from a; nil: not related
	}{
		"started 7m apart": {inc("x", "1", 0, 5, "us-east-1"), inc("y", "2", 7, 5, "us-east-1"),
			[]string{"same term: us-east-1", "started 7m apart"}},
		"started together": {inc("x", "1", 0, 5, "DNS"), inc("y", "2", 0, 5, "DNS"),
			[]string{"same term: DNS", "started less than a minute apart"}},
		"exactly the window apart, not overlapping": {inc("x", "1", 0, 1, "DNS"), inc("y", "2", 30, 1, "DNS"),
			[]string{"same term: DNS", "started 30m apart"}},
		"a second past the window, not overlapping": {inc("x", "1", 0, 1, "DNS"), Incident{Source: "y", ID: "2",
			Start: t0.Add(30*time.Minute + time.Second), End: t0.Add(40 * time.Minute), Terms: []string{"DNS"}}, nil},
		"overlapping long after the start": {inc("x", "1", 0, 300, "AWS"), inc("y", "2", 120, 60, "AWS"),
			[]string{"same term: AWS", "overlapping for 1h"}},
		"touching ends": {inc("x", "1", 0, 60, "AWS"), inc("y", "2", 60, 60, "AWS"),
			[]string{"same term: AWS", "overlapping"}},
		"same source":    {inc("x", "1", 0, 5, "AWS"), inc("x", "2", 1, 5, "AWS"), nil},
		"no shared term": {inc("x", "1", 0, 5, "AWS"), inc("y", "2", 1, 5, "GCP"), nil},
		"several terms sorted": {inc("x", "1", 0, 5, "us-east-1", "AWS", "DNS"), inc("y", "2", 3, 5, "DNS", "us-east-1", "AWS"),
			[]string{"same term: AWS", "same term: DNS", "same term: us-east-1", "started 3m apart"}},
		"end before start": {Incident{Source: "x", ID: "1", Start: t0, End: t0.Add(-time.Hour), Terms: []string{"CDN"}},
			inc("y", "2", 20, 5, "CDN"), []string{"same term: CDN", "started 20m apart"}},
	} {
		t.Run(name, func(t *testing.T) {
			r := Correlate([]Incident{tc.a, tc.b}, Options{})
			got := reasonsOf(r, tc.a.Source, tc.a.ID)[tc.b.Source+"/"+tc.b.ID]
			if !slices.Equal(got, tc.want) {
				t.Errorf("reasons %q, want %q", got, tc.want)
			}
			back := reasonsOf(r, tc.b.Source, tc.b.ID)[tc.a.Source+"/"+tc.a.ID]
			if !slices.Equal(back, tc.want) {
				t.Errorf("seen from the other: %q, want %q", back, tc.want)
			}
			if (len(r.Events()) == 1) != (tc.want != nil) {
				t.Errorf("got %d events", len(r.Events()))
			}
		})
	}
}

func TestCorrelateWindowOption(t *testing.T) {
	a, b := inc("x", "1", 0, 1, "DNS"), inc("y", "2", 50, 1, "DNS")
	if r := Correlate([]Incident{a, b}, Options{}); len(r.Events()) != 0 {
		t.Errorf("50m apart with the default window: related")
	}
	r := Correlate([]Incident{a, b}, Options{Window: time.Hour})
	if got := reasonsOf(r, "x", "1")["y/2"]; !slices.Equal(got, []string{"same term: DNS", "started 50m apart"}) {
		t.Errorf("window 1h: reasons %q", got)
	}
}

func TestCorrelateDependsOn(t *testing.T) {
	deps := map[string][]string{"twingate": {"gcp"}, "vercel": {"aws", "cloudflare"}, "netlify": {"aws"}, "self": {"self"}}
	for name, tc := range map[string]struct {
		a, b Incident
		want []string
	}{
		"depends on the other": {inc("gcp", "1", 0, 30), inc("twingate", "2", 10, 30), []string{"twingate depends on gcp", "started 10m apart"}},
		"both depend on":       {inc("netlify", "1", 0, 30), inc("vercel", "2", 5, 30), []string{"both depend on aws", "started 5m apart"}},
		"term and dependency": {inc("aws", "1", 0, 30, "us-east-1"), inc("vercel", "2", 5, 30, "us-east-1"),
			[]string{"same term: us-east-1", "vercel depends on aws", "started 5m apart"}},
		"no link":                       {inc("gcp", "1", 0, 30), inc("vercel", "2", 10, 30), nil},
		"itself is no dependency":       {inc("self", "1", 0, 30), inc("gcp", "2", 0, 30), nil},
		"dependency, but too far apart": {inc("gcp", "1", 0, 10), inc("twingate", "2", 60, 30), nil},
	} {
		t.Run(name, func(t *testing.T) {
			r := Correlate([]Incident{tc.a, tc.b}, Options{DependsOn: deps})
			if got := reasonsOf(r, tc.a.Source, tc.a.ID)[tc.b.Source+"/"+tc.b.ID]; !slices.Equal(got, tc.want) {
				t.Errorf("reasons %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCorrelateEvents(t *testing.T) {
	open := inc("vercel", "v1", 12, 0, "Cloudflare")
	open.Open = true
	open.End = t0.Add(3 * time.Hour)
	incs := []Incident{
		// One chain: aws–netlify share us-east-1, netlify–vercel share Cloudflare; aws and
		// vercel share nothing, yet the three are one event.
		inc("aws", "a1", 0, 60, "AWS", "us-east-1"),
		inc("netlify", "n1", 5, 30, "us-east-1", "Cloudflare"),
		open,
		// Another, later, of two sources.
		inc("github", "g1", 600, 30, "DNS"),
		inc("slack", "s1", 610, 30, "DNS"),
		// Alone: no shared term.
		inc("openai", "o1", 3, 30, "Azure"),
		// Same term, but only its own source: no event.
		inc("github", "g2", 900, 10, "BGP"),
		inc("github", "g3", 905, 10, "BGP"),
	}
	r := Correlate(slices.Clone(incs), Options{})
	evs := r.Events()
	if len(evs) != 2 {
		t.Fatalf("got %d events, want 2", len(evs))
	}
	later, first := evs[0], evs[1] // newest first
	if first.ID != "aws.a1" || later.ID != "github.g1" {
		t.Errorf("ids %q, %q; want aws.a1 and github.g1", first.ID, later.ID)
	}
	if !slices.Equal(first.Sources, []string{"aws", "netlify", "vercel"}) {
		t.Errorf("sources %q", first.Sources)
	}
	if !slices.Equal(first.Terms, []string{"Cloudflare", "us-east-1"}) {
		t.Errorf("terms %q, want the shared ones only", first.Terms)
	}
	if !first.Start.Equal(t0) || !first.End.IsZero() {
		t.Errorf("first event %v – %v, want from t0 and open", first.Start, first.End)
	}
	if !later.End.Equal(t0.Add(640 * time.Minute)) {
		t.Errorf("later event ends %v", later.End)
	}
	var ids []string
	for _, in := range first.Incidents {
		ids = append(ids, in.ID)
	}
	if !slices.Equal(ids, []string{"a1", "n1", "v1"}) {
		t.Errorf("incidents %q, want by start", ids)
	}
	if r.EventOf("vercel", "v1") != first || r.Event("github.g1") != later || r.EventOf("openai", "o1") != nil || r.Event("nope") != nil {
		t.Error("EventOf or Event does not find the events")
	}
	if r.Related("aws", "a1")[0].Incident.ID != "n1" || len(r.Related("aws", "a1")) != 1 {
		t.Errorf("aws related to %v, want netlify only", r.Related("aws", "a1"))
	}

	// Determinism: any order of the input gives the same answer.
	for range 20 {
		shuffled := slices.Clone(incs)
		rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		r2 := Correlate(shuffled, Options{})
		if got := summary(r2); got != summary(r) {
			t.Fatalf("order changed the answer:\n%s\nwant\n%s", got, summary(r))
		}
	}
}

// summary writes a Result as text, for comparisons.
func summary(r *Result) string {
	s := ""
	for _, ev := range r.Events() {
		s += ev.ID + " " + ev.Start.String() + " " + ev.End.String() + " " + slices.Concat(ev.Sources, ev.Terms)[0] + "\n"
		for _, in := range ev.Incidents {
			s += "  " + in.Source + "/" + in.ID + "\n"
			for _, rel := range r.Related(in.Source, in.ID) {
				s += "    " + rel.Incident.Source + "/" + rel.Incident.ID + " " + slices.Concat(rel.Reasons, rel.Terms)[0] + "\n"
				for _, reason := range rel.Reasons {
					s += "      " + reason + "\n"
				}
			}
		}
	}
	return s
}

func TestCorrelateBounded(t *testing.T) {
	// Every incident open for a day and naming AWS: each pair is a candidate, and the
	// relations kept per incident stay capped.
	var incs []Incident
	for i := range 300 {
		incs = append(incs, inc("s"+string(rune('a'+i%26))+string(rune('a'+i/26)), "i", i, 24*60, "AWS"))
	}
	r := Correlate(incs, Options{})
	for _, in := range incs {
		if n := len(r.Related(in.Source, in.ID)); n > MaxRelated {
			t.Fatalf("%d relations kept, want at most %d", n, MaxRelated)
		}
	}
	if len(r.Events()) != 1 || len(r.Events()[0].Incidents) != 300 {
		t.Errorf("got %d events", len(r.Events()))
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		7 * time.Minute: "7m", 59*time.Minute + 59*time.Second: "59m", time.Hour: "1h", 125 * time.Minute: "2h 5m",
		48 * time.Hour: "2d", 76 * time.Hour: "3d 4h",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestCorrelateSpecificReasons(t *testing.T) {
	v := Default()
	a, b := inc("aws", "1", 0, 5, v.Find("EC2 in us-east-1")...), inc("vercel", "2", 4, 5, v.Find("AWS us-east-1 and DNS")...)
	r := Correlate([]Incident{a, b}, Options{Vocabulary: v})
	rel := r.Related("aws", "1")[0]
	if want := []string{"same term: us-east-1", "started 4m apart"}; !slices.Equal(rel.Reasons, want) {
		t.Errorf("reasons %q, want %q (AWS is implied by us-east-1)", rel.Reasons, want)
	}
	if want := []string{"AWS", "us-east-1"}; !slices.Equal(rel.Terms, want) || !slices.Equal(r.Events()[0].Terms, want) {
		t.Errorf("terms %q and event terms %q, want %q", rel.Terms, r.Events()[0].Terms, want)
	}
}
