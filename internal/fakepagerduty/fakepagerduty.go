// Package fakepagerduty is a recorder of PagerDuty's Events API v2 (POST /v2/enqueue),
// served on loopback by httptest, for tests of the PagerDuty receiver and end-to-end
// tests of the daemon. It checks each event the way PagerDuty documents it (a known
// routing key, an event_action, a dedup_key of at most 255 characters, a trigger's
// summary, source and severity), keeps the alerts it opened and resolved by dedup_key,
// and answers with programmable faults: 429 with Retry-After, 5xx, 400, or a delay.
package fakepagerduty

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/fakefault"
)

// maxBody is PagerDuty's limit on one event (512 KB).
const maxBody = 512 << 10

// Options configure a Server.
type Options struct {
	// RoutingKey, when set, is the only routing key accepted: any other gets 400
	// "Invalid routing key", as PagerDuty answers.
	RoutingKey string
	// Now stamps each Event; nil means time.Now.
	Now func() time.Time
}

// Event is one request the server answered.
type Event struct {
	RoutingKey string `json:"routing_key"`
	Action     string `json:"event_action"`
	DedupKey   string `json:"dedup_key"`
	Payload    *struct {
		Summary   string         `json:"summary"`
		Source    string         `json:"source"`
		Severity  string         `json:"severity"`
		Timestamp string         `json:"timestamp"`
		Component string         `json:"component"`
		Group     string         `json:"group"`
		Class     string         `json:"class"`
		Details   map[string]any `json:"custom_details"`
	} `json:"payload"`
	Links []struct {
		Href string `json:"href"`
		Text string `json:"text"`
	} `json:"links"`
	Client    string `json:"client"`
	ClientURL string `json:"client_url"`

	// Body is the request body as sent.
	Body []byte `json:"-"`
	// Status is the HTTP status answered, Error the error answered ("" on success).
	Status int       `json:"-"`
	Error  string    `json:"-"`
	At     time.Time `json:"-"`
}

// OK reports whether the event was accepted.
func (e Event) OK() bool { return e.Status == http.StatusAccepted }

// Fault is an answer to inject instead of the normal one.
type Fault struct {
	// Status is the HTTP status to answer (429, 500, 400, …).
	Status int
	// RetryAfter is the Retry-After header, in seconds; 0 sends none.
	RetryAfter int
	// Message is the error's message in the answer's JSON; empty: a generic one.
	Message string
	// Delay holds the answer this long, or until the client gives up; with no Status
	// the event then proceeds normally.
	Delay time.Duration
}

// Alert is where one dedup_key's alert stands.
type Alert struct {
	DedupKey string
	Open     bool
	Triggers int // accepted trigger events
	Resolves int // accepted resolve events
	Severity string
	Summary  string
}

// Server is a fake Events API. Its methods are safe for concurrent use.
type Server struct {
	srv *httptest.Server
	key string
	now func() time.Time

	mu     sync.Mutex
	events []Event
	faults fakefault.Queue[Fault]
	alerts map[string]*Alert
	order  []string
}

// New starts a Server on loopback. Close it when done.
func New(o Options) *Server {
	s := &Server{key: o.RoutingKey, now: o.Now, alerts: map[string]*Alert{}}
	if s.now == nil {
		s.now = time.Now
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v2/enqueue", s.enqueue)
	s.srv = httptest.NewServer(mux)
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// URL is the Events API base to configure (pagerduty.api_url).
func (s *Server) URL() string { return s.srv.URL }

// Events returns every event answered so far, in order.
func (s *Server) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.events)
	for i := range out {
		out[i].Body = slices.Clone(out[i].Body)
	}
	return out
}

// Accepted returns the events answered 202, in order.
func (s *Server) Accepted() []Event {
	return slices.DeleteFunc(s.Events(), func(x Event) bool { return !x.OK() })
}

// Alerts returns every alert, in the order of their first trigger or resolve.
func (s *Server) Alerts() []Alert {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Alert, len(s.order))
	for i, k := range s.order {
		out[i] = *s.alerts[k]
	}
	return out
}

// Fail makes the next n events answer with f. Faults queue up in the order given.
func (s *Server) Fail(n int, f Fault) {
	s.faults.Add(n, f)
}

// Reset forgets the events, alerts and pending faults.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events, s.alerts, s.order = nil, map[string]*Alert{}, nil
	s.faults.Reset()
}

func (s *Server) enqueue(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	ev := Event{Body: body, At: s.now()}
	if err == nil && len(body) > maxBody {
		err = fmt.Errorf("request body over %d bytes", maxBody)
	}
	if err == nil {
		err = json.Unmarshal(body, &ev)
	}
	if f, ok := s.faults.Take(nil); ok {
		if f.Delay > 0 {
			select {
			case <-time.After(f.Delay):
			case <-r.Context().Done():
			}
		}
		if f.Status != 0 {
			msg := f.Message
			if msg == "" {
				msg = http.StatusText(f.Status)
			}
			if f.RetryAfter > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
			}
			s.answer(w, ev, f.Status, "error", msg, nil)
			return
		}
	}
	if err != nil {
		s.answer(w, ev, http.StatusBadRequest, "invalid event", "Event object is invalid", []string{err.Error()})
		return
	}
	if errs := s.check(&ev); len(errs) > 0 {
		s.answer(w, ev, http.StatusBadRequest, "invalid event", "Event object is invalid", errs)
		return
	}
	s.mu.Lock()
	a := s.alerts[ev.DedupKey]
	if a == nil {
		a = &Alert{DedupKey: ev.DedupKey}
		s.alerts[ev.DedupKey] = a
		s.order = append(s.order, ev.DedupKey)
	}
	switch ev.Action {
	case "trigger":
		a.Open, a.Triggers, a.Severity, a.Summary = true, a.Triggers+1, ev.Payload.Severity, ev.Payload.Summary
	case "resolve":
		a.Open, a.Resolves = false, a.Resolves+1
	}
	s.mu.Unlock()
	s.answer(w, ev, http.StatusAccepted, "success", "Event processed", nil)
}

// check validates an event as PagerDuty does, returning its complaints.
func (s *Server) check(ev *Event) []string {
	var errs []string
	switch {
	case ev.RoutingKey == "":
		errs = append(errs, "'routing_key' is missing or blank")
	case s.key != "" && ev.RoutingKey != s.key:
		errs = append(errs, "Invalid routing key")
	}
	switch ev.Action {
	case "trigger", "acknowledge", "resolve":
	default:
		errs = append(errs, fmt.Sprintf("'event_action' is invalid (must be one of: trigger, acknowledge, resolve): %q", ev.Action))
	}
	if len(ev.DedupKey) > 255 {
		errs = append(errs, "'dedup_key' is too long (max 255 characters)")
	}
	if ev.Action != "trigger" {
		if ev.DedupKey == "" {
			errs = append(errs, "'dedup_key' is required for "+ev.Action)
		}
		return errs
	}
	p := ev.Payload
	if p == nil {
		return append(errs, "'payload' is missing")
	}
	if p.Summary == "" {
		errs = append(errs, "'payload.summary' is missing or blank")
	}
	if utf8.RuneCountInString(p.Summary) > 1024 {
		errs = append(errs, "'payload.summary' is longer than 1024 characters")
	}
	if p.Source == "" {
		errs = append(errs, "'payload.source' is missing or blank")
	}
	switch p.Severity {
	case "critical", "error", "warning", "info":
	default:
		errs = append(errs, fmt.Sprintf("'payload.severity' is invalid: %q", p.Severity))
	}
	if p.Timestamp != "" {
		if _, err := time.Parse(time.RFC3339, p.Timestamp); err != nil {
			errs = append(errs, "'payload.timestamp' is not ISO 8601")
		}
	}
	for _, l := range ev.Links {
		if l.Href == "" {
			errs = append(errs, "'links[].href' is missing")
		}
	}
	return errs
}

func (s *Server) answer(w http.ResponseWriter, ev Event, status int, st, msg string, errs []string) {
	ev.Status = status
	if status != http.StatusAccepted {
		ev.Error = msg
		if len(errs) > 0 {
			ev.Error += ": " + fmt.Sprint(errs)
		}
	}
	s.mu.Lock()
	s.events = append(s.events, ev)
	s.mu.Unlock()
	ans := map[string]any{"status": st, "message": msg}
	if status == http.StatusAccepted {
		ans["dedup_key"] = ev.DedupKey
	}
	if len(errs) > 0 {
		ans["errors"] = errs
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(ans)
}
