// Package faketeams is a recorder of a Microsoft Teams Workflows webhook, served on
// loopback by httptest, for tests of the Teams receiver and end-to-end tests of the
// daemon. It checks what Teams checks — the message envelope with Adaptive Card
// attachments, each card's type, version and body, TextRun inlines, http(s) links, and
// the size limit — records every card, and answers with programmable faults: 429 with
// Retry-After, 5xx, 400, 401, 404, or a delay.
package faketeams

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakefault"
)

// MaxBytes is the size past which Teams refuses a message (about 28 KB).
const MaxBytes = 28 << 10

// Options configure a Server.
type Options struct {
	// Now stamps each Post; nil means time.Now.
	Now func() time.Time
}

// Card is an Adaptive Card as Teams reads it.
type Card struct {
	Type    string    `json:"type"`
	Version string    `json:"version"`
	Body    []Element `json:"body"`
	Actions []Action  `json:"actions"`
}

// Element is one element of a card's body.
type Element struct {
	Type    string    `json:"type"`
	Text    string    `json:"text"`
	Inlines []TextRun `json:"inlines"`
}

// TextRun is one inline of a RichTextBlock.
type TextRun struct {
	Type          string  `json:"type"`
	Text          string  `json:"text"`
	Color         string  `json:"color"`
	Strikethrough bool    `json:"strikethrough"`
	Underline     bool    `json:"underline"`
	SelectAction  *Action `json:"selectAction"`
}

// Action is a card's action, or a TextRun's selectAction.
type Action struct {
	Type  string `json:"type"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// Post is one request the server answered.
type Post struct {
	// Hook is the <name> of /webhook/<name>.
	Hook string
	// Body is the request body as sent.
	Body []byte
	// Cards are the message's cards, in order.
	Cards []Card
	// Status is the HTTP status answered; Error the error answered ("" on success).
	Status int
	Error  string
	At     time.Time
}

// OK reports whether the post was accepted.
func (p Post) OK() bool { return p.Status == http.StatusAccepted }

// Text is every text of the post's cards, in order: TextBlocks' text and TextRuns'.
func (p Post) Text() []string {
	var out []string
	for _, c := range p.Cards {
		for _, e := range c.Body {
			if e.Text != "" {
				out = append(out, e.Text)
			}
			for _, r := range e.Inlines {
				out = append(out, r.Text)
			}
		}
	}
	return out
}

// Fault is an answer to inject instead of the normal one.
type Fault struct {
	// Status is the HTTP status to answer (429, 500, 400, 401, 404, …).
	Status int
	// RetryAfter is the Retry-After header, in seconds; 0 sends none.
	RetryAfter int
	// Code is the error code in the answer's JSON; empty: one named after the status.
	Code string
	// Delay holds the answer this long, or until the client gives up; with no Status
	// the post then proceeds normally.
	Delay time.Duration
}

// Server is a fake Workflows webhook. Its methods are safe for concurrent use.
type Server struct {
	srv *httptest.Server
	now func() time.Time

	mu     sync.Mutex
	posts  []Post
	faults fakefault.Queue[Fault]
}

// New starts a Server on loopback. Close it when done.
func New(o Options) *Server {
	s := &Server{now: o.Now}
	if s.now == nil {
		s.now = time.Now
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhook/{name...}", s.post)
	s.srv = httptest.NewServer(mux)
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// WebhookURL is the URL of the webhook called name, with a signature in its query as
// a real one has (teams.webhook_url).
func (s *Server) WebhookURL(name string) string {
	return s.srv.URL + "/webhook/" + name + "?api-version=1&sig=fake-signature"
}

// Posts returns every post answered so far, in order.
func (s *Server) Posts() []Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.posts)
	for i := range out {
		out[i].Body = slices.Clone(out[i].Body)
	}
	return out
}

// Accepted returns the posts answered 202, in order.
func (s *Server) Accepted() []Post {
	return slices.DeleteFunc(s.Posts(), func(x Post) bool { return !x.OK() })
}

// Fail makes the next n posts answer with f. Faults queue up in the order given.
func (s *Server) Fail(n int, f Fault) {
	s.faults.Add(n, f)
}

// Reset forgets the posts and pending faults.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts = nil
	s.faults.Reset()
}

func (s *Server) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4*MaxBytes))
	p := Post{Hook: r.PathValue("name"), Body: body, At: s.now()}
	if f, ok := s.faults.Take(nil); ok {
		if f.Delay > 0 {
			select {
			case <-time.After(f.Delay):
			case <-r.Context().Done():
			}
		}
		if f.Status != 0 {
			if f.RetryAfter > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
			}
			code := f.Code
			if code == "" {
				code = http.StatusText(f.Status)
			}
			s.answer(w, p, f.Status, code, "injected fault")
			return
		}
	}
	switch {
	case err != nil:
		s.answer(w, p, http.StatusBadRequest, "BadRequest", err.Error())
	case r.URL.Query().Get("sig") == "":
		s.answer(w, p, http.StatusUnauthorized, "DirectApiAuthorizationRequired", "the request has no signature")
	case len(body) > MaxBytes:
		s.answer(w, p, http.StatusRequestEntityTooLarge, "MessageSizeTooBig", fmt.Sprintf("the message is %d bytes, over %d", len(body), MaxBytes))
	default:
		cards, err := check(body)
		p.Cards = cards
		if err != nil {
			s.answer(w, p, http.StatusBadRequest, "TriggerInputSchemaMismatch", err.Error())
			return
		}
		s.answer(w, p, http.StatusAccepted, "", "")
	}
}

// check reads a message as a Workflows webhook with "Post card" does, returning its
// cards or what is wrong with it.
func check(body []byte) ([]Card, error) {
	var m struct {
		Type        string `json:"type"`
		Attachments []struct {
			ContentType string          `json:"contentType"`
			Content     json.RawMessage `json:"content"`
		} `json:"attachments"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("the body is not JSON: %w", err)
	}
	if m.Type != "message" {
		return nil, fmt.Errorf("type is %q, want message", m.Type)
	}
	if len(m.Attachments) == 0 {
		return nil, fmt.Errorf("no attachments")
	}
	var cards []Card
	for i, a := range m.Attachments {
		if a.ContentType != "application/vnd.microsoft.card.adaptive" {
			return nil, fmt.Errorf("attachments[%d].contentType is %q", i, a.ContentType)
		}
		var c Card
		if err := json.Unmarshal(a.Content, &c); err != nil {
			return nil, fmt.Errorf("attachments[%d].content: %w", i, err)
		}
		if c.Type != "AdaptiveCard" || c.Version == "" || len(c.Body) == 0 {
			return nil, fmt.Errorf("attachments[%d].content is no Adaptive Card with a version and a body", i)
		}
		for j, e := range c.Body {
			switch e.Type {
			case "TextBlock":
				if e.Text == "" {
					return nil, fmt.Errorf("body[%d]: a TextBlock without text", j)
				}
			case "RichTextBlock":
				if len(e.Inlines) == 0 {
					return nil, fmt.Errorf("body[%d]: a RichTextBlock without inlines", j)
				}
				for k, r := range e.Inlines {
					if r.Type != "TextRun" {
						return nil, fmt.Errorf("body[%d].inlines[%d] is %q, want TextRun", j, k, r.Type)
					}
					if r.SelectAction != nil {
						if err := checkAction(*r.SelectAction); err != nil {
							return nil, fmt.Errorf("body[%d].inlines[%d].selectAction: %w", j, k, err)
						}
					}
				}
			default:
				return nil, fmt.Errorf("body[%d]: unexpected element type %q", j, e.Type)
			}
		}
		for j, a := range c.Actions {
			if err := checkAction(a); err != nil {
				return nil, fmt.Errorf("actions[%d]: %w", j, err)
			}
		}
		cards = append(cards, c)
	}
	return cards, nil
}

func checkAction(a Action) error {
	if a.Type != "Action.OpenUrl" {
		return fmt.Errorf("type %q, want Action.OpenUrl", a.Type)
	}
	u, err := url.Parse(a.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q is not an http(s) URL", a.URL)
	}
	return nil
}

func (s *Server) answer(w http.ResponseWriter, p Post, status int, code, msg string) {
	p.Status = status
	if status != http.StatusAccepted {
		p.Error = code + ": " + msg
	}
	s.mu.Lock()
	s.posts = append(s.posts, p)
	s.mu.Unlock()
	if status == http.StatusAccepted {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
}
