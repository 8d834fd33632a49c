// Package fakewebhook is a webhook receiver for tests: an httptest server that checks
// every delivery's signature (X-Statuswatch-Signature) with the shared secret, records
// what it was sent, and answers failures on demand (Fail), the way a real receiver
// that is down, rate limiting or refusing would.
package fakewebhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"
)

// The headers a delivery carries.
const (
	HeaderSignature = "X-Statuswatch-Signature"
	HeaderDelivery  = "X-Statuswatch-Delivery"
)

// Call is one request the server answered.
type Call struct {
	Delivery string      // X-Statuswatch-Delivery
	Body     []byte      // as received
	Header   http.Header // as received
	// SignatureOK reports whether the signature was the body's with the secret.
	SignatureOK bool
	Status      int // what the server answered
	At          time.Time
}

// Delivery is one delivery the server took (answered 2xx with a good signature).
type Delivery struct {
	ID      string // X-Statuswatch-Delivery
	Body    []byte
	Payload map[string]any // Body decoded
	Header  http.Header
	// Repeat counts the earlier deliveries with the same id: a receiver drops them.
	Repeat int
}

// Fault is an answer to give instead of taking a delivery.
type Fault struct {
	Status     int // e.g. 500, 429, 403
	RetryAfter int // seconds, sent as Retry-After when above 0
	Body       string
}

// Server is the fake receiver.
type Server struct {
	srv    *httptest.Server
	secret string

	mu         sync.Mutex
	calls      []Call
	deliveries []Delivery
	seen       map[string]int
	faults     []Fault // answered in turn, one per request
	always     *Fault  // answered to every request while set
}

// New starts a receiver that checks signatures with secret.
func New(secret string) *Server {
	s := &Server{secret: secret, seen: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// URL is where deliveries go.
func (s *Server) URL() string { return s.srv.URL + "/hook" }

// Fail answers the next n requests with f.
func (s *Server) Fail(n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults = append(s.faults, f)
	}
}

// FailAll answers every request with f until Heal.
func (s *Server) FailAll(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always = &f
}

// Heal ends FailAll and the faults still to come.
func (s *Server) Heal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always, s.faults = nil, nil
}

// Calls lists every request answered, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Deliveries lists the deliveries taken, in order, repeats included.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Delivery(nil), s.deliveries...)
}

// Sign is the signature of body with the server's secret.
func (s *Server) Sign(body []byte) string {
	m := hmac.New(sha256.New, []byte(s.secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	c := Call{Delivery: r.Header.Get(HeaderDelivery), Body: body, Header: r.Header.Clone(), At: time.Now()}
	c.SignatureOK = hmac.Equal([]byte(s.Sign(body)), []byte(r.Header.Get(HeaderSignature)))
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.always
	if f == nil && len(s.faults) > 0 {
		f, s.faults = &s.faults[0], s.faults[1:]
	}
	switch {
	case r.Method != http.MethodPost:
		c.Status = http.StatusMethodNotAllowed
	case f != nil:
		c.Status = f.Status
		if f.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
		}
	case !c.SignatureOK:
		c.Status = http.StatusUnauthorized
	default:
		var p map[string]any
		if err := json.Unmarshal(body, &p); err != nil {
			c.Status = http.StatusBadRequest
			break
		}
		c.Status = http.StatusNoContent
		s.deliveries = append(s.deliveries, Delivery{ID: c.Delivery, Body: body, Payload: p, Header: c.Header, Repeat: s.seen[c.Delivery]})
		s.seen[c.Delivery]++
	}
	s.calls = append(s.calls, c)
	w.WriteHeader(c.Status)
	if f != nil && f.Body != "" {
		_, _ = io.WriteString(w, f.Body)
	}
}
