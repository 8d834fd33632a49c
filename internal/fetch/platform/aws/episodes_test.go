package aws

// The episodes over many polls into a real archive: an incident AWS stops listing is
// resolved by inference, once it is missed twice; a miss then a return is no resolution.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest"
	"github.com/statuswatch/statuswatch/internal/fetch/payload"
	"github.com/statuswatch/statuswatch/internal/model"
)

const (
	awsAbsService = "ec2-us-east-1"
	awsAbsT0      = int64(1787000000) // the event's start, before fetchtest.PollNow
	awsAbsID      = "ec2-us-east-1_1787000000"
)

// awsAbsence serves one open EC2 event, in the feed (two posts, no resolution) and in
// currentevents, both with ETags, and records every poll in an archive.
type awsAbsence struct {
	t     *testing.T
	page  *fetchtest.FakePage
	a     *fetchtest.Archive
	items []awsItem
	event awsEventJSON
	n     int // ETag generation
}

func newAWSAbsence(t *testing.T) *awsAbsence {
	x := &awsAbsence{t: t, page: fetchtest.NewFakePage()}
	srv := fetchtest.NewServer(t, x.page)
	x.a = fetchtest.NewArchive(t, Kind, model.Source{Name: "aws", URL: srv.URL, Kind: Kind})
	x.items = []awsItem{
		{awsAbsService, awsAbsT0, "Service disruption: Instance launch errors", "Investigating."},
		{awsAbsService, awsAbsT0 + 600, "Service disruption: Instance launch errors", "Mitigating."},
	}
	x.event = awsEventJSON{Date: fmt.Sprint(awsAbsT0), Service: awsAbsService, Status: "3", Summary: "Instance launch errors",
		EventLog: []awsLogJSON{
			{Summary: "Instance launch errors", Message: "Investigating.", Status: 3, Timestamp: awsAbsT0},
			{Summary: "Instance launch errors", Message: "Mitigating.", Status: 3, Timestamp: awsAbsT0 + 600},
		},
		ImpactedServices: map[string]map[string]string{awsAbsService: {"current": "3"}, "elb-us-east-1": {"current": "2"}}}
	x.setRSS(x.items...)
	x.setCE(x.event)
	return x
}

// setRSS and setCE serve new bodies under a new ETag.
func (x *awsAbsence) setRSS(items ...awsItem) {
	x.n++
	x.page.Set("/rss/all.rss", fetchtest.Route{Body: awsRSSBody(items...), ContentType: "application/rss+xml", ETag: fmt.Sprintf(`"r%d"`, x.n)})
}

func (x *awsAbsence) setCE(events ...awsEventJSON) {
	x.n++
	x.page.Set("/public/currentevents", fetchtest.Route{Body: awsCEBody(x.t, events...), ETag: fmt.Sprintf(`"c%d"`, x.n)})
}

// poll polls and records once; it returns the result, what the archive did, the number
// of requests made, and the EC2 incident of the snapshot (nil when not in it).
func (x *awsAbsence) poll(name string) (*fetch.Result, archive.Result, int, *model.Incident) {
	x.t.Helper()
	res, r, err := x.a.Poll()
	if err != nil {
		x.t.Fatalf("%s: %v", name, err)
	}
	n := len(x.page.Requests())
	if res.Snapshot == nil {
		return res, r, n, nil
	}
	for i := range res.Snapshot.Incidents {
		if inc := &res.Snapshot.Incidents[i]; inc.ID == awsAbsID {
			return res, r, n, inc
		}
	}
	return res, r, n, nil
}

func (x *awsAbsence) memo(res *fetch.Result) string {
	return awsNotation(res.State[awsEpisodeState+awsAbsService].Episodes)
}

// awsNotation writes remembered episodes in the short form the tests compare, which is
// the one the fetch state held up to layout 2 (start-last, then + open, +e listed,
// +m<unix> missed, i<unix> inferred), joined by commas.
func awsNotation(eps []model.Episode) string {
	parts := make([]string, len(eps))
	for i, e := range eps {
		parts[i] = fmt.Sprintf("%d-%d", e.Start, e.Last)
		switch {
		case e.Open && e.Missed > 0:
			parts[i] += fmt.Sprintf("+m%d", e.Missed)
		case e.Open && e.Listed:
			parts[i] += "+e"
		case e.Open:
			parts[i] += "+"
		case e.Inferred > 0:
			parts[i] += fmt.Sprintf("i%d", e.Inferred)
		}
	}
	return strings.Join(parts, ",")
}

// latest is the archived version of the EC2 incident.
func (x *awsAbsence) latest() *model.Incident {
	x.t.Helper()
	inc, err := x.a.Store.Latest("aws", awsAbsID)
	if err != nil || inc == nil {
		x.t.Fatalf("latest: %v %v", inc, err)
	}
	return inc
}

// checkOpen and checkInferred check an incident open as the event left it (status_raw
// from the feed, or the event alone), or resolved
// by inference at the unix time at.
func checkOpen(t *testing.T, name string, inc *model.Incident) {
	t.Helper()
	if inc == nil || inc.Status != model.StatusInvestigating || (inc.StatusRaw != "Service disruption" && inc.StatusRaw != "3") || !inc.ResolvedAt.IsZero() || inc.ResolvedInferred {
		t.Fatalf("%s: want open, got %+v", name, inc)
	}
}

func checkInferred(t *testing.T, name string, inc *model.Incident, at time.Time) {
	t.Helper()
	if inc == nil || inc.Status != model.StatusResolved || inc.StatusRaw != "" || !inc.ResolvedAt.Equal(at) || !inc.ResolvedInferred ||
		inc.Impact != model.ImpactCritical || inc.Title != "Instance launch errors" {
		t.Fatalf("%s: want resolved by inference at %v, got %+v", name, at, inc)
	}
}

// TestAWSInferredResolution: an open event leaves currentevents without a resolution post.
// The first poll without it only remembers the miss; the second, although both bodies are
// unchanged, resolves it at the time of the first, inferred; it stays resolved; a newer
// post reopens it and the count starts again.
func TestAWSInferredResolution(t *testing.T) {
	x := newAWSAbsence(t)
	res, r, _, inc := x.poll("poll 1")
	checkOpen(t, "poll 1", inc)
	if r.Changed != 1 || x.memo(res) != "1787000000-1787000600+e" {
		t.Fatalf("poll 1: %+v, memo %q", r, x.memo(res))
	}
	if !slices.Equal(inc.Components, []string{"ec2-us-east-1", "elb-us-east-1"}) {
		t.Errorf("poll 1 components %q", inc.Components)
	}

	// Poll 2: a well-formed, empty currentevents; the feed answers 304 and is read again.
	x.setCE()
	t2 := x.a.Now
	res, r, n, inc := x.poll("poll 2")
	checkOpen(t, "poll 2", inc)
	if want := fmt.Sprintf("1787000000-1787000600+m%d", t2.Unix()); x.memo(res) != want {
		t.Fatalf("poll 2 memo %q, want %q", x.memo(res), want)
	}
	if r.Changed != 0 || r.Removed != 0 || n != 3 {
		t.Errorf("poll 2: %+v, %d requests; want no change (the components carried over), 3 requests", r, n)
	}

	// Poll 3: both 304. The pending miss makes it read both again and parse: the second
	// well-formed answer without the event resolves it, at poll 2's time.
	res, r, n, inc = x.poll("poll 3")
	if inc == nil {
		t.Fatalf("poll 3: nothing parsed (%d requests); the second miss was not counted", n)
	}
	checkInferred(t, "poll 3", inc, t2)
	if n != 4 || res.Requests != 4 || r.Changed != 1 {
		t.Errorf("poll 3: %d requests (result %d), %+v; want 4 and one new version", n, res.Requests, r)
	}
	if want := fmt.Sprintf("1787000000-1787000600i%d", t2.Unix()); x.memo(res) != want {
		t.Errorf("poll 3 memo %q, want %q", x.memo(res), want)
	}
	checkInferred(t, "poll 3 archived", x.latest(), t2)
	if len(x.latest().Updates) != 2 || !slices.Equal(x.latest().Components, []string{"ec2-us-east-1", "elb-us-east-1"}) {
		t.Errorf("poll 3 archived: %+v", x.latest())
	}

	// Poll 4: unchanged, nothing pending: two conditional requests, nothing parsed.
	state := res.State
	res, r, n, inc = x.poll("poll 4")
	if inc != nil || res.Snapshot != nil || n != 2 || res.StateChanged(state) {
		t.Errorf("poll 4: snapshot %v, %d requests, state changed %v", res.Snapshot, n, res.StateChanged(state))
	}

	// Poll 5: the feed changes elsewhere; the episode is parsed again from posts that
	// still look open, and stays resolved as it was.
	other := awsItem{"s3-eu-west-1", awsAbsT0 + 900, "Informational message: Elevated errors", "Looking."}
	x.setRSS(append(slices.Clone(x.items), other)...)
	res, r, _, inc = x.poll("poll 5")
	checkInferred(t, "poll 5", inc, t2)
	if r.Changed != 1 { // the S3 incident only
		t.Errorf("poll 5: %+v", r)
	}
	if vs, err := x.a.Store.Versions("aws", awsAbsID); err != nil || len(vs) != 2 {
		t.Errorf("poll 5: %d versions %v, want 2 (open, resolved)", len(vs), err)
	}

	// Poll 6: a newer post, not a resolution, while the event is still absent: reopened,
	// and this poll is its first miss.
	x.items = append(x.items, awsItem{awsAbsService, awsAbsT0 + 1800, "Service disruption: Instance launch errors", "Still there."})
	x.setRSS(append(slices.Clone(x.items), other)...)
	t6 := x.a.Now
	res, _, _, inc = x.poll("poll 6")
	checkOpen(t, "poll 6", inc)
	if want := fmt.Sprintf("1787000000-1787001800+m%d", t6.Unix()); x.memo(res) != want {
		t.Errorf("poll 6 memo %q, want %q", x.memo(res), want)
	}
	// Poll 7, unchanged: resolved again, at poll 6's time.
	res, _, _, inc = x.poll("poll 7")
	checkInferred(t, "poll 7", inc, t6)
	if len(inc.Updates) != 3 {
		t.Errorf("poll 7: %d updates", len(inc.Updates))
	}
}

// TestAWSMissedOnceThenBack: an event absent from one poll and listed again stays open,
// and the miss is forgotten: a later absence counts from one again.
func TestAWSMissedOnceThenBack(t *testing.T) {
	x := newAWSAbsence(t)
	x.poll("poll 1")
	x.setCE()
	res, _, _, inc := x.poll("poll 2")
	checkOpen(t, "poll 2", inc)
	if !strings.Contains(x.memo(res), "+m") {
		t.Fatalf("poll 2 memo %q: no miss", x.memo(res))
	}
	x.setCE(x.event)
	res, r, _, inc := x.poll("poll 3")
	checkOpen(t, "poll 3", inc)
	if x.memo(res) != "1787000000-1787000600+e" || r.Changed != 0 {
		t.Fatalf("poll 3: memo %q, %+v; want listed, no miss, no change", x.memo(res), r)
	}
	// Unchanged: nothing pending, nothing parsed.
	if res, _, n, _ := x.poll("poll 4"); res.Snapshot != nil || n != 2 {
		t.Errorf("poll 4: snapshot %v, %d requests", res.Snapshot, n)
	}
	// Gone again: a first miss, not a second.
	x.setCE()
	t5 := x.a.Now
	res, _, _, inc = x.poll("poll 5")
	checkOpen(t, "poll 5", inc)
	if want := fmt.Sprintf("1787000000-1787000600+m%d", t5.Unix()); x.memo(res) != want {
		t.Errorf("poll 5 memo %q, want %q", x.memo(res), want)
	}
	_, _, _, inc = x.poll("poll 6")
	checkInferred(t, "poll 6", inc, t5)

	// Listed again after the inferred resolution: the open list says it is going on.
	x.setCE(x.event)
	res, _, _, inc = x.poll("poll 7")
	checkOpen(t, "poll 7", inc)
	if x.memo(res) != "1787000000-1787000600+e" {
		t.Errorf("poll 7 memo %q", x.memo(res))
	}
}

// TestAWSMissedOnceThenResolved: a resolution post after one miss resolves the incident
// at the post's time, not by inference.
func TestAWSMissedOnceThenResolved(t *testing.T) {
	x := newAWSAbsence(t)
	x.poll("poll 1")
	x.setCE()
	x.poll("poll 2")
	x.setRSS(append(slices.Clone(x.items),
		awsItem{awsAbsService, awsAbsT0 + 1200, "Service is operating normally: [RESOLVED] Instance launch errors", "Recovered."})...)
	res, _, _, inc := x.poll("poll 3")
	if inc == nil || inc.Status != model.StatusResolved || inc.ResolvedInferred || !inc.ResolvedAt.Equal(unixUTC(awsAbsT0+1200)) ||
		inc.StatusRaw != "Service is operating normally" {
		t.Fatalf("poll 3: want resolved by the post, got %+v", inc)
	}
	if x.memo(res) != "1787000000-1787001200" {
		t.Errorf("poll 3 memo %q", x.memo(res))
	}
	if l := x.latest(); l.ResolvedInferred || !l.ResolvedAt.Equal(unixUTC(awsAbsT0+1200)) {
		t.Errorf("poll 3 archived %+v", l)
	}
	if res, _, n, _ := x.poll("poll 4"); res.Snapshot != nil || n != 2 {
		t.Errorf("poll 4: snapshot %v, %d requests: nothing is pending", res.Snapshot, n)
	}

	// After an inferred resolution, a resolution post still wins with its own time.
	y := newAWSAbsence(t)
	y.poll("poll 1")
	y.setCE()
	t2 := y.a.Now
	y.poll("poll 2")
	_, _, _, inc = y.poll("poll 3")
	checkInferred(t, "inferred", inc, t2)
	y.setRSS(append(slices.Clone(y.items),
		awsItem{awsAbsService, awsAbsT0 + 1200, "Service is operating normally: [RESOLVED] Instance launch errors", "Recovered."})...)
	_, _, _, inc = y.poll("post after inference")
	if inc == nil || inc.Status != model.StatusResolved || inc.ResolvedInferred || !inc.ResolvedAt.Equal(unixUTC(awsAbsT0+1200)) {
		t.Errorf("post after inference: %+v", inc)
	}
}

// TestAWSMalformedIsNoMiss: a malformed currentevents fails the poll, which neither counts
// as a miss nor forgets one.
func TestAWSMalformedIsNoMiss(t *testing.T) {
	x := newAWSAbsence(t)
	x.poll("poll 1")
	html := []byte("<!DOCTYPE html><html><body>Service Unavailable</body></html>")
	malformed := func(name string) {
		t.Helper()
		x.page.Set("/public/currentevents", fetchtest.Route{Body: html, ContentType: "text/html"})
		before := x.a.State
		res, _, err := x.a.Poll()
		if !errors.Is(err, payload.ErrMalformed) || res == nil || res.Snapshot != nil || res.State != nil {
			t.Fatalf("%s: %v, %+v; want ErrMalformed and no snapshot or state", name, err, res)
		}
		if !x.a.State.Equal(before) {
			t.Fatalf("%s: the state moved on", name)
		}
		x.page.Requests()
	}

	malformed("poll 2")
	x.setCE()
	t3 := x.a.Now
	res, _, _, inc := x.poll("poll 3")
	checkOpen(t, "poll 3: the first well-formed answer without the event is the first miss", inc)
	if want := fmt.Sprintf("1787000000-1787000600+m%d", t3.Unix()); x.memo(res) != want {
		t.Fatalf("poll 3 memo %q, want %q", x.memo(res), want)
	}
	malformed("poll 4")
	x.setCE()
	_, _, _, inc = x.poll("poll 5")
	checkInferred(t, "poll 5", inc, t3)
}

// TestAWSAbsentFromBoth: an event that never reached the feed leaves currentevents. The
// snapshot repeats its archived version while it is missed once (neither a change nor,
// for the history rule, a miss), then carries it resolved by inference while the feed's
// window covers its start, so it is never taken for removed.
func TestAWSAbsentFromBoth(t *testing.T) {
	x := newAWSAbsence(t)
	other := []awsItem{{"s3-eu-west-1", awsAbsT0 - 3600, "Informational message: Elevated errors", "Looking."}}
	x.setRSS(other...)
	res, r, _, inc := x.poll("poll 1")
	checkOpen(t, "poll 1", inc)
	if len(inc.Updates) != 2 || r.Changed != 2 {
		t.Fatalf("poll 1: %+v, %+v", r, inc)
	}
	x.setCE()
	t2 := x.a.Now
	res, r, _, inc = x.poll("poll 2")
	checkOpen(t, "poll 2", inc)
	if r.Changed != 0 || r.Removed != 0 || !strings.Contains(x.memo(res), fmt.Sprintf("+m%d", t2.Unix())) {
		t.Fatalf("poll 2: %+v, memo %q", r, x.memo(res))
	}
	res, r, _, inc = x.poll("poll 3")
	checkInferred(t, "poll 3", inc, t2)
	if r.Changed != 1 || len(inc.Updates) != 2 {
		t.Fatalf("poll 3: %+v, %+v", r, inc)
	}
	checkInferred(t, "poll 3 archived", x.latest(), t2)
	for i := 4; i <= 6; i++ { // the feed moves on inside the window
		other = append(other, awsItem{"s3-eu-west-1", awsAbsT0 + int64(i)*60, "Informational message: Elevated errors", fmt.Sprint(i)})
		x.setRSS(other...)
		_, r, _, inc = x.poll(fmt.Sprint("poll ", i))
		checkInferred(t, fmt.Sprint("poll ", i), inc, t2)
		if r.Removed != 0 {
			t.Fatalf("poll %d: %+v", i, r)
		}
	}
	// Once the window passes its start, it is no longer carried nor remembered.
	x.setRSS(awsItem{"s3-eu-west-1", awsAbsT0 + 3600, "Informational message: Elevated errors", "Later."})
	res, r, _, inc = x.poll("poll 7")
	if inc != nil || r.Removed != 0 || x.memo(res) != "" {
		t.Errorf("poll 7: %+v, %+v, memo %q", inc, r, x.memo(res))
	}
	checkInferred(t, "poll 7 archived", x.latest(), t2)
}

// TestAWSMemoOfLayout2: a memo that the archive holds as builds before layout 3 wrote it
// (a list in the entry's Hash) reads back as today's, and the absence rule carries on
// from it: the miss it remembers is the first of two.
func TestAWSMemoOfLayout2(t *testing.T) {
	x := newAWSAbsence(t)
	x.poll("poll 1")
	x.setCE()
	t2 := x.a.Now
	res, _, _, _ := x.poll("poll 2")
	old := res.State.Clone()
	old[awsEpisodeState+awsAbsService] = model.EndpointState{Hash: fmt.Sprintf("1787000000-1787000600+m%d", t2.Unix())}
	if _, err := x.a.Store.Record("aws", res.Snapshot, old, nil, archive.Policy{}); err != nil {
		t.Fatal(err)
	}
	st, err := x.a.Store.FetchState("aws")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := x.memo(&fetch.Result{State: st}), fmt.Sprintf("1787000000-1787000600+m%d", t2.Unix()); got != want || st[awsEpisodeState+awsAbsService].Hash != "" {
		t.Fatalf("memo read back: %q (hash %q), want %q", got, st[awsEpisodeState+awsAbsService].Hash, want)
	}
	x.a.State = st
	_, _, _, inc := x.poll("poll 3")
	checkInferred(t, "poll 3", inc, t2)
}

// TestAWSMemoEncoding: the memo reads back what it writes, an entry state could not have
// written is skipped, and an open episode remembered before the absence rule (neither
// listed nor missed) counts as not listed by currentevents. The form the fetch state held
// before, a list in the entry's Hash, is read by the archive (layout 3).
func TestAWSMemoEncoding(t *testing.T) {
	m := awsMemoFrom(model.FetchState{
		"episodes/old": {Episodes: []model.Episode{{Start: 1772369485, Last: 1777533954, Open: true}, {Start: 1786765379, Last: 1787025679}}},
		"episodes/new": {Episodes: []model.Episode{{Start: 10, Last: 20, Open: true, Listed: true}, {Start: 30, Last: 40, Open: true, Missed: 50},
			{Start: 60, Last: 70, Inferred: 80}, {Start: 90, Last: 95, Open: true}}},
		"episodes/junk": {Episodes: []model.Episode{{Start: 7, Last: 6}, {Start: -1, Last: 2}, {Start: 1, Last: 2, Listed: true},
			{Start: 1, Last: 2, Missed: 3}, {Start: 1, Last: 2, Open: true, Inferred: 3}, {Start: 1, Last: 2, Open: true, Listed: true, Missed: 3},
			{Start: 1, Last: 2, Open: true, Missed: -3}, {Start: 15, Last: 16}}},
		"rss":            {ETag: `"x"`, Hash: "1-2"},
		"episodes/empty": {},
	})
	want := awsMemo{
		"old": {{start: 1772369485, last: 1777533954, open: true}, {start: 1786765379, last: 1787025679}},
		"new": {{start: 10, last: 20, open: true, listed: true}, {start: 30, last: 40, open: true, missed: 50},
			{start: 60, last: 70, inferred: 80}, {start: 90, last: 95, open: true}},
		"junk": {{start: 15, last: 16}},
	}
	if !maps.EqualFunc(m, want, func(a, b []awsSpan) bool { return slices.Equal(a, b) }) {
		t.Fatalf("got %+v, want %+v", m, want)
	}
	if !m.pending() {
		t.Error("30-40+m50 is pending")
	}
	if (awsMemo{"old": want["old"]}).pending() {
		t.Error("the old encoding has nothing pending")
	}
	st := m.state()
	if awsNotation(st["episodes/old"].Episodes) != "1772369485-1777533954+,1786765379-1787025679" ||
		awsNotation(st["episodes/new"].Episodes) != "10-20+e,30-40+m50,60-70i80,90-95+" {
		t.Errorf("state %v", st)
	}
	if again := awsMemoFrom(st).state(); !st.Equal(again) {
		t.Errorf("read back as %v", again)
	}

	// An old memo in the daemon's state: the open episode is matched again and becomes
	// listed; absent, it is not counted (nothing says currentevents listed it).
	rss := awsRSSBody(awsItem{awsAbsService, awsAbsT0, "Service disruption: Instance launch errors", "Investigating."})
	old := awsMemoFrom(model.FetchState{"episodes/" + awsAbsService: {Episodes: []model.Episode{{Start: 1787000000, Last: 1787000000, Open: true}}}})
	_, _, memo := awsBuildFrom(t, rss, awsCEBody(t), old, nil)
	if got := awsNotation(memo.state()["episodes/"+awsAbsService].Episodes); got != "1787000000-1787000000+" {
		t.Errorf("old memo, event absent: %q", got)
	}
	ev := awsEventJSON{Date: fmt.Sprint(awsAbsT0), Service: awsAbsService, EventLog: []awsLogJSON{{Message: "Investigating.", Status: 3, Timestamp: awsAbsT0}}}
	_, _, memo = awsBuildFrom(t, rss, awsCEBody(t, ev), old, nil)
	if got := awsNotation(memo.state()["episodes/"+awsAbsService].Episodes); got != "1787000000-1787000000+e" {
		t.Errorf("old memo, event listed: %q", got)
	}
}

// FuzzAWS feeds arbitrary bytes to both AWS decoders and, when both accept, the
// combination, seeded with the real payloads: errors only, never a panic.
