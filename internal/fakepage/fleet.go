package fakepage

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// FiftyIncidents builds a realistic Statuspage history: 50 resolved incidents of 6 updates
// each, newest first, the newest started at t0 and one every 36 hours before it. Served as
// incidents.json it is about 190 KB, the size of a busy vendor's page.
func FiftyIncidents(t0 time.Time) []Incident {
	out := make([]Incident, 50)
	for i := range out {
		start := t0.Add(-time.Duration(i) * 36 * time.Hour)
		end := start.Add(95 * time.Minute)
		in := Incident{
			ID: fmt.Sprintf("inc%04d", i), Name: fmt.Sprintf("Degraded performance for Actions and Pages (%d)", i),
			Status: "resolved", Impact: "minor", CreatedAt: start, UpdatedAt: end, StartedAt: start, ResolvedAt: &end,
			Shortlink:  "https://stspg.io/x" + fmt.Sprint(i),
			Components: []Component{{ID: "c1", Name: "Actions", Status: "operational"}, {ID: "c2", Name: "Pages", Status: "operational"}},
		}
		for u := 5; u >= 0; u-- {
			at := start.Add(time.Duration(u) * 19 * time.Minute)
			in.Updates = append(in.Updates, Update{
				ID: fmt.Sprintf("u%04d-%d", i, u), Status: []string{"investigating", "identified", "identified", "monitoring", "monitoring", "resolved"}[u],
				Body:      "We are investigating reports of degraded performance for Actions and Pages. Customers may see delays in workflow runs starting and in page builds completing; we will post an update as we learn more.",
				CreatedAt: at, UpdatedAt: at, DisplayAt: at,
			})
		}
		out[i] = in
	}
	return out
}

// VendorIncidents builds the history a fleet page serves: shaped like FiftyIncidents (50
// resolved incidents, newest first, one every 36 hours before t0) but with 8 updates each
// whose bodies are varied prose from a generator seeded by seed, and 1 to 4 components,
// so that parsers and compressors see text like a real page's rather than one sentence
// repeated. Served as incidents.json it is about 200 KB.
func VendorIncidents(seed uint64, t0 time.Time) []Incident {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	statuses := []string{"investigating", "identified", "identified", "monitoring", "monitoring", "monitoring", "resolved", "resolved"}
	out := make([]Incident, 50)
	for i := range out {
		start := t0.Add(-time.Duration(i) * 36 * time.Hour)
		end := start.Add(time.Duration(60+rng.IntN(240)) * time.Minute)
		var comps []Component
		for c := range 1 + rng.IntN(4) {
			name := componentNames[(i+c*7)%len(componentNames)]
			comps = append(comps, Component{ID: fmt.Sprintf("c%02d", (i+c*7)%len(componentNames)), Name: name, Status: "operational"})
		}
		in := Incident{
			ID:     fmt.Sprintf("inc%04d", i),
			Name:   fmt.Sprintf("%s %s %s", pick(rng, titleHeads), pick(rng, titleWhat), comps[0].Name),
			Status: "resolved", Impact: []string{"none", "minor", "minor", "major", "critical"}[rng.IntN(5)],
			CreatedAt: start, UpdatedAt: end, StartedAt: start, ResolvedAt: &end,
			Shortlink:  fmt.Sprintf("https://stspg.io/%x", rng.Uint32()),
			Components: comps,
		}
		step := end.Sub(start) / time.Duration(len(statuses))
		for u := len(statuses) - 1; u >= 0; u-- {
			at := start.Add(time.Duration(u) * step)
			in.Updates = append(in.Updates, Update{
				ID: fmt.Sprintf("u%04d-%d", i, u), Status: statuses[u], Body: prose(rng, comps, statuses[u]),
				CreatedAt: at, UpdatedAt: at, DisplayAt: at,
			})
		}
		out[i] = in
	}
	return out
}

var (
	componentNames = []string{"API", "Webhooks", "Git Operations", "Actions", "Pages", "Packages",
		"Codespaces", "Copilot", "Issues", "Pull Requests", "Authentication", "Connector Heartbeat",
		"Dashboard", "Billing", "DNS", "CDN", "Object Storage", "Compute", "Load Balancers", "Email Delivery"}
	titleHeads = []string{"Degraded performance for", "Elevated error rates for", "Partial outage of",
		"Increased latency in", "Disruption with some", "Delays in", "Intermittent failures in"}
	titleWhat = []string{"requests to", "jobs in", "customers using", "traffic to", "writes to", "sign-ins to"}
	openers   = map[string][]string{
		"investigating": {"We are investigating reports of", "We are currently investigating", "Our engineers are looking into", "We have received reports of"},
		"identified":    {"We have identified the cause of", "The issue has been identified as", "We traced the problem to", "A fix is being rolled out for"},
		"monitoring":    {"A fix has been deployed for", "We are monitoring the recovery of", "Error rates are returning to normal for", "Mitigation is in place for"},
		"resolved":      {"This incident has been resolved:", "We have confirmed full recovery of", "The issue affecting", "Service has been restored for"},
	}
	symptoms = []string{"elevated error rates", "increased latency", "failed requests", "timeouts",
		"delayed processing", "stale data", "intermittent 502 responses", "slow page loads",
		"queued jobs not starting", "failed deployments", "authentication errors", "missing notifications"}
	causes = []string{"a misconfigured load balancer", "a database failover that took longer than expected",
		"an expired TLS certificate on an internal service", "a faulty deploy that we have rolled back",
		"resource exhaustion in one availability zone", "a dependency outage at an upstream provider",
		"a change to our DNS configuration", "a retry storm between two internal services",
		"connection pool exhaustion after a traffic spike", "a bug in a recently enabled feature flag"}
	fillers = []string{"Customers may see", "Some users will notice", "A subset of requests may experience",
		"Affected customers could observe", "Users in the EU and US regions may encounter"}
	closers = []string{"We will provide another update within 30 minutes.", "We apologise for the inconvenience.",
		"No data was lost.", "We will publish a detailed post-incident review.",
		"Thank you for your patience while we work on this.", "Retries should now succeed."}
)

func pick(rng *rand.Rand, xs []string) string { return xs[rng.IntN(len(xs))] }

// prose writes an update body of 2 to 5 sentences about comps.
func prose(rng *rand.Rand, comps []Component, status string) string {
	var b strings.Builder
	names := make([]string, len(comps))
	for i, c := range comps {
		names[i] = c.Name
	}
	fmt.Fprintf(&b, "%s %s affecting %s.", pick(rng, openers[status]), pick(rng, symptoms), strings.Join(names, ", "))
	for range 1 + rng.IntN(4) {
		switch rng.IntN(3) {
		case 0:
			fmt.Fprintf(&b, " %s %s when using %s.", pick(rng, fillers), pick(rng, symptoms), pick(rng, names))
		case 1:
			fmt.Fprintf(&b, " The cause appears to be %s, which led to %s for about %d%% of traffic.", pick(rng, causes), pick(rng, symptoms), 1+rng.IntN(60))
		default:
			fmt.Fprintf(&b, " %s", pick(rng, closers))
		}
	}
	return b.String()
}

// fleetEpoch is the start of the newest incident of page 0; page i's history is i hours
// older, so no two pages serve the same bytes.
var fleetEpoch = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// Fleet serves n fake Statuspage pages on loopback, each on its own listener (its own
// 127.0.0.1 port), as n vendors on n hosts would be: per-host connection limits and
// connection reuse behave as they do in production. Every page starts with its own
// VendorIncidents; Change posts a new update on one of its incidents. Safe for concurrent
// use.
type Fleet struct {
	pages   []*Statuspage
	urls    []string
	srvs    []*http.Server
	ca      *fleetCA // under FleetOptions.TLS
	counter connCounter

	mu      sync.Mutex
	changes []int // changes posted per page since the last Reset
	// resetAt is each page's Set count right after the last Reset rendered it: a page
	// not set since still serves its initial history, and Reset leaves it alone.
	resetAt []uint64
}

// NewFleet starts n pages over plain HTTP on 127.0.0.1. Close stops them.
func NewFleet(n int) (*Fleet, error) { return NewFleetWith(n, FleetOptions{}) }

// NewFleetWith starts n pages as o says. Close stops them.
func NewFleetWith(n int, o FleetOptions) (*Fleet, error) {
	f := &Fleet{
		pages:   make([]*Statuspage, n),
		urls:    make([]string, n),
		srvs:    make([]*http.Server, n),
		changes: make([]int, n),
		resetAt: make([]uint64, n),
	}
	f.counter.take()
	idle := o.IdleTimeout
	if idle <= 0 {
		idle = 2 * time.Minute
	}
	if o.TLS {
		ca, err := newFleetCA()
		if err != nil {
			return nil, err
		}
		f.ca = ca
	}
	for i := range n {
		f.pages[i] = &Statuspage{Name: fmt.Sprintf("Vendor %04d", i)}
		srv := &http.Server{Handler: f.counter.counting(f.pages[i]), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: idle, ConnState: f.counter.connState}
		var ln net.Listener
		var err error
		if o.TLS {
			ln, srv.TLSConfig, err = f.listenTLS(i)
		} else {
			ln, err = net.Listen("tcp", "127.0.0.1:0")
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("fleet page %d: %w", i, err)
		}
		f.srvs[i] = srv
		if o.TLS {
			f.urls[i] = "https://" + ln.Addr().String()
			// ServeTLS offers HTTP/2 (ALPN h2) beside HTTP/1.1, as vendors' CDNs do.
			go srv.ServeTLS(ln, "", "")
		} else {
			f.urls[i] = "http://" + ln.Addr().String()
			go srv.Serve(ln)
		}
	}
	f.Reset()
	return f, nil
}

// Len is the number of pages.
func (f *Fleet) Len() int { return len(f.pages) }

// URL is page i's base URL (http://127.0.0.1:port, or https://127.1.x.y:port under
// TLS), where its /api/v2/*.json live.
func (f *Fleet) URL(i int) string { return f.urls[i] }

// Page is page i.
func (f *Fleet) Page(i int) *Statuspage { return f.pages[i] }

// Reset makes every page serve its initial 50 incidents again and forgets the changes;
// a page not set since the last Reset is left as it is (it serves them already).
func (f *Fleet) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.changes)
	// Generating and rendering a page costs a few ms: spread it over the cores.
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				f.pages[i].Set(VendorIncidents(uint64(i), fleetEpoch.Add(-time.Duration(i)*time.Hour)), nil)
				f.resetAt[i] = f.pages[i].setCount()
			}
		})
	}
	for i := range f.pages {
		if f.pages[i].setCount() == 0 || f.pages[i].setCount() != f.resetAt[i] {
			next <- i
		}
	}
	close(next)
	wg.Wait()
}

// Change posts a new update on one incident of page i (a different incident each time,
// newest first), which changes that incident and only it: one new version for a client
// that archives incidents.
func (f *Fleet) Change(i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := f.changes[i]
	f.changes[i]++
	incs := f.pages[i].served()
	j := k % len(incs)
	in := incs[j]
	at := in.UpdatedAt.Add(time.Hour)
	in.Updates = append([]Update{{
		ID: fmt.Sprintf("%s-f%d", in.ID, k), Status: in.Status,
		Body:      fmt.Sprintf("Follow-up %d: we have completed our review of this incident and added monitoring so that delays in workflow runs and page builds are caught earlier.", k+1),
		CreatedAt: at, UpdatedAt: at, DisplayAt: at,
	}}, in.Updates...)
	in.UpdatedAt = at
	incs[j] = in
	f.pages[i].Set(incs, nil)
}

// Open posts a new unresolved incident on page i, newest first, named name with one
// update of body: a new incident for a client that archives incidents.
func (f *Fleet) Open(i int, name, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := f.changes[i]
	f.changes[i]++
	at := time.Now().UTC().Truncate(time.Second)
	in := Incident{
		ID: fmt.Sprintf("open%04d%04d", i, k), Name: name, Status: "investigating", Impact: "major",
		CreatedAt: at, UpdatedAt: at, StartedAt: at,
		Updates: []Update{{ID: fmt.Sprintf("open%04d%04d-0", i, k), Status: "investigating", Body: body, CreatedAt: at, UpdatedAt: at, DisplayAt: at}},
	}
	f.pages[i].Set(append([]Incident{in}, f.pages[i].served()...), nil)
}

// FollowUp posts an update of body on page i's newest unresolved incident, and reports
// whether it had one.
func (f *Fleet) FollowUp(i int, body string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	incs := f.pages[i].served()
	for j, in := range incs {
		if in.ResolvedAt != nil {
			continue
		}
		k := f.changes[i]
		f.changes[i]++
		at := time.Now().UTC().Truncate(time.Second)
		in.Updates = append([]Update{{ID: fmt.Sprintf("%s-u%d", in.ID, k), Status: "identified", Body: body, CreatedAt: at, UpdatedAt: at, DisplayAt: at}}, in.Updates...)
		in.Status, in.UpdatedAt = "identified", at
		incs[j] = in
		f.pages[i].Set(incs, nil)
		return true
	}
	return false
}

// Requests returns the requests every page answered so far, page by page, and forgets
// them.
func (f *Fleet) Requests() []Request {
	var out []Request
	for _, p := range f.pages {
		out = append(out, p.Requests()...)
	}
	return out
}

// Close stops every page's server and closes its connections.
func (f *Fleet) Close() error {
	var errs []error
	for _, s := range f.srvs {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// ModelIncidents are VendorIncidents(seed, t0) as the archive's benchmarks record them:
// resolved incidents of minor impact, their components by name, their updates as text.
func ModelIncidents(seed uint64, t0 time.Time) []model.Incident {
	var out []model.Incident
	for _, v := range VendorIncidents(seed, t0) {
		in := model.Incident{ID: v.ID, Kind: model.KindIncident, Status: model.StatusResolved, Impact: model.ImpactMinor,
			Title: v.Name, StartedAt: v.StartedAt}
		for _, c := range v.Components {
			in.Components = append(in.Components, c.Name)
		}
		for _, u := range v.Updates {
			in.Updates = append(in.Updates, model.Update{ID: u.ID, Status: model.StatusResolved, Body: u.Body,
				Format: model.FormatText, PostedAt: u.CreatedAt})
		}
		out = append(out, in)
	}
	return out
}
