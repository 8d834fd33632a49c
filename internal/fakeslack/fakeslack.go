// Package fakeslack is a recorder of Slack's Web API (chat.postMessage, chat.update,
// auth.test) and of incoming webhooks, served on loopback by httptest, for tests of the
// Slack sink and end-to-end tests of the daemon.
//
// slack-go's own slacktest lacks chat.update, reuses timestamps within a second and
// cannot list what was posted (docs/design.md, "Dependencies and their traps"); this one records every call, hands out a
// unique increasing ts per message, keeps each message's current text and blocks after
// edits, checks Slack's block limits the way Slack does, and answers with programmable
// faults: 429 with Retry-After, 5xx, ok:false errors, or a delay.
package fakeslack

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Slack's limits, as its API enforces them (the whole-blocks cap is undocumented; Slack
// answers msg_blocks_too_long somewhere past 12,000 characters).
const (
	maxBlocks      = 50
	maxSectionText = 3000
	maxBlocksText  = 12000
	maxText        = 40000
)

// Options configure a Server.
type Options struct {
	// Token, when set, is the only token the Web API accepts: any other gets
	// invalid_auth, none gets not_authed.
	Token string
	// Now stamps each Call; nil means time.Now. Tests pass their fake clock.
	Now func() time.Time
}

// Call is one request the server answered.
type Call struct {
	// Method is "chat.postMessage", "chat.update", "auth.test" (any other Web API
	// method name as asked), or "webhook".
	Method string
	// Webhook is the <name> of /webhook/<name>, for webhook calls.
	Webhook string
	// Channel is the channel as the client sent it (a "#name" or an ID).
	Channel string
	// ChannelID is the channel's ID ("C0001"), when the channel is known.
	ChannelID string
	// TS is the message's ts: the one created (postMessage, webhook) or edited (update).
	TS             string
	ThreadTS       string
	ReplyBroadcast bool
	Text           string
	// Blocks is the blocks JSON as sent; nil when the call carried none ("[]" is not
	// none: chat.update then clears the blocks).
	Blocks json.RawMessage
	// Params are the request's parameters, token left out.
	Params url.Values
	// Status is the HTTP status answered; Error the ok:false error (or a webhook's error
	// body); both describe the fault when one was injected.
	Status int
	Error  string
	At     time.Time
}

// OK reports whether the call succeeded.
func (c Call) OK() bool { return c.Status == http.StatusOK && c.Error == "" }

// Message is a message as it stands now, after any chat.update.
type Message struct {
	ChannelID string
	TS        string
	ThreadTS  string // "" for a top-level message
	Text      string
	Blocks    json.RawMessage
	Edits     int // chat.update calls applied
}

// Fault is an answer to inject instead of the normal one.
type Fault struct {
	// Method limits the fault to calls of one method ("chat.postMessage", "chat.update",
	// "auth.test", "webhook"); "" matches any.
	Method string
	// Channel limits the fault to calls to one channel, as the client sends it or by ID;
	// for webhooks, the webhook's name. "" matches any.
	Channel string
	// Status is the HTTP status to answer (429, 500, 404, …); 0 means 200.
	Status int
	// RetryAfter is the Retry-After header of a 429, in seconds; 0 sends none.
	RetryAfter int
	// Error is the ok:false error of a Web API answer (invalid_auth, channel_not_found,
	// invalid_blocks, …), or a webhook's error body (then Status defaults to 400).
	Error string
	// Delay holds the answer this long, or until the client gives up. With no Status and
	// no Error, the call then proceeds normally.
	Delay time.Duration
	// Skip lets this many matching calls through before the fault starts: a fault in the
	// middle of a run.
	Skip int
}

type fault struct {
	Fault
	left int
}

type channel struct {
	id, name string
	msgs     []*Message // in ts order
}

// Server is a fake Slack. Its methods are safe for concurrent use.
type Server struct {
	srv   *httptest.Server
	token string
	now   func() time.Time

	mu       sync.Mutex
	calls    []Call
	faults   []*fault
	byName   map[string]*channel
	byID     map[string]*channel
	seq      int
	chanSeq  int
	webhooks map[string]*channel
}

// New starts a Server on loopback. Close it when done.
func New(o Options) *Server {
	s := &Server{
		token:    o.Token,
		now:      o.Now,
		byName:   map[string]*channel{},
		byID:     map[string]*channel{},
		webhooks: map[string]*channel{},
	}
	if s.now == nil {
		s.now = time.Now
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/{method}", s.api)
	mux.HandleFunc("GET /api/{method}", s.api)
	// {name...}: a name may hold slashes, as Slack's own /services/T…/B…/… paths do.
	mux.HandleFunc("POST /webhook/{name...}", s.webhook)
	s.srv = httptest.NewServer(mux)
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// URL is the server's base URL.
func (s *Server) URL() string { return s.srv.URL }

// APIURL is the Web API base to give slack-go's OptionAPIURL (slack.api_url).
func (s *Server) APIURL() string { return s.srv.URL + "/api/" }

// WebhookURL is the URL of the incoming webhook called name.
func (s *Server) WebhookURL(name string) string { return s.srv.URL + "/webhook/" + name }

// Calls returns every call so far, in the order they were answered.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Call, len(s.calls))
	for i, c := range s.calls {
		c.Params = cloneValues(c.Params)
		c.Blocks = slices.Clone(c.Blocks)
		out[i] = c
	}
	return out
}

// Reset forgets the calls and pending faults; channels and messages stay.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls, s.faults = nil, nil
}

// Fail makes the next n calls that match f answer with f. Faults queue up in the order
// given; a call takes the first that matches.
func (s *Server) Fail(n int, f Fault) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{Fault: f, left: n})
}

// ChannelID returns the ID of a channel by name ("#name" or "name"), "" if none was
// posted to yet.
func (s *Server) ChannelID(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.byName[normName(name)]; c != nil {
		return c.id
	}
	return ""
}

// Message returns a message as it stands now, by channel (ID or name) and ts.
func (s *Server) Message(ch, ts string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channel(ch)
	if c == nil {
		return Message{}, false
	}
	for _, m := range c.msgs {
		if m.TS == ts {
			return copyMessage(m), true
		}
	}
	return Message{}, false
}

// Messages returns a channel's top-level messages (channel by ID or name), or a
// webhook's messages (by "webhook/<name>"), oldest first.
func (s *Server) Messages(ch string) []Message {
	return s.Replies(ch, "") // a top-level message is in no thread
}

// Replies returns the replies in the thread of root ts, oldest first.
func (s *Server) Replies(ch, ts string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channel(ch)
	if c == nil {
		return nil
	}
	var out []Message
	for _, m := range c.msgs {
		if m.ThreadTS == ts {
			out = append(out, copyMessage(m))
		}
	}
	return out
}

func copyMessage(m *Message) Message {
	c := *m
	c.Blocks = slices.Clone(m.Blocks)
	return c
}

// channel finds a channel by ID, name or "webhook/<name>"; the caller holds mu.
func (s *Server) channel(ch string) *channel {
	if name, ok := strings.CutPrefix(ch, "webhook/"); ok {
		return s.webhooks[name]
	}
	if c := s.byID[ch]; c != nil {
		return c
	}
	return s.byName[normName(ch)]
}

var idLike = regexp.MustCompile(`^[CGD][A-Z0-9]{3,}$`)

func normName(name string) string { return strings.TrimPrefix(name, "#") }

// resolve returns the channel a postMessage goes to: a known ID, or a name, created on
// first use like a channel the bot was invited to. An unknown ID is channel_not_found.
func (s *Server) resolve(ch string) *channel {
	if c := s.byID[ch]; c != nil {
		return c
	}
	if ch == "" || idLike.MatchString(ch) {
		return nil
	}
	name := normName(ch)
	if c := s.byName[name]; c != nil {
		return c
	}
	s.chanSeq++
	c := &channel{id: fmt.Sprintf("C%04d", s.chanSeq), name: name}
	s.byName[name], s.byID[c.id] = c, c
	return c
}

// nextTS returns a new ts: unique and increasing, 100 µs apart, so ordering by ts is
// ordering by post, and no two messages share one even within a second.
func (s *Server) nextTS() string {
	s.seq++
	micro := int64(s.seq) * 100
	return fmt.Sprintf("%d.%06d", 1700000000+micro/1_000_000, micro%1_000_000)
}

// takeFault returns the fault for a call, if one matches, and uses it up.
func (s *Server) takeFault(method, ch string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Method != "" && f.Method != method {
			continue
		}
		if f.Channel != "" && f.Channel != ch && !s.sameChannel(f.Channel, ch) {
			continue
		}
		if f.Skip > 0 {
			f.Skip--
			return nil
		}
		f.left--
		if f.left == 0 {
			s.faults = slices.Delete(s.faults, i, i+1)
		}
		out := f.Fault
		return &out
	}
	return nil
}

// sameChannel reports whether a and b name one channel (a name and its ID); the caller
// holds mu.
func (s *Server) sameChannel(a, b string) bool {
	ca, cb := s.channel(a), s.channel(b)
	return ca != nil && ca == cb
}

// params reads a request's parameters: form-encoded, as slack-go sends them, or JSON.
func params(r *http.Request) (url.Values, error) {
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var body map[string]any
		data, err := io.ReadAll(io.LimitReader(r.Body, 10<<20))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &body); err != nil {
			return nil, err
		}
		v := url.Values{}
		for k, x := range body {
			switch x := x.(type) {
			case string:
				v.Set(k, x)
			case bool:
				v.Set(k, strconv.FormatBool(x))
			case nil:
			default:
				raw, _ := json.Marshal(x)
				v.Set(k, string(raw))
			}
		}
		for k := range r.URL.Query() {
			v.Set(k, r.URL.Query().Get(k))
		}
		return v, nil
	}
	if err := r.ParseForm(); err != nil {
		return nil, err
	}
	return cloneValues(r.Form), nil
}

func cloneValues(v url.Values) url.Values {
	if v == nil {
		return nil
	}
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

// wait holds the answer for f.Delay or until the client gives up; false if it did.
func wait(r *http.Request, f *Fault) bool {
	if f == nil || f.Delay <= 0 {
		return true
	}
	t := time.NewTimer(f.Delay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	method := r.PathValue("method")
	v, err := params(r)
	if err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	token := v.Get("token")
	if token == "" {
		token, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	v.Del("token")
	call := Call{
		Method:         method,
		Channel:        v.Get("channel"),
		ThreadTS:       v.Get("thread_ts"),
		ReplyBroadcast: v.Get("reply_broadcast") == "true",
		Text:           v.Get("text"),
		Params:         v,
	}
	if _, ok := v["blocks"]; ok {
		call.Blocks = json.RawMessage(v.Get("blocks"))
	}
	if s.injected(w, r, call, method, call.Channel, false) {
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	answer := map[string]any{"ok": true}
	errCode := ""
	switch {
	case token == "":
		errCode = "not_authed"
	case s.token != "" && token != s.token:
		errCode = "invalid_auth"
	}
	if errCode == "" {
		switch method {
		case "auth.test":
			answer = map[string]any{"ok": true, "url": s.srv.URL + "/", "team": "Fake", "user": "statuswatch",
				"team_id": "T0001", "user_id": "U0001", "bot_id": "B0001"}
		case "chat.postMessage":
			errCode = s.post(&call, answer)
		case "chat.update":
			errCode = s.update(&call, answer)
		default:
			errCode = "unknown_method"
		}
	}
	if errCode != "" {
		answer = map[string]any{"ok": false, "error": errCode}
	}
	s.recordLocked(call, http.StatusOK, errCode)
	writeJSON(w, http.StatusOK, answer)
}

// post handles chat.postMessage; the caller holds mu.
func (s *Server) post(call *Call, answer map[string]any) string {
	c := s.resolve(call.Channel)
	if c == nil {
		return "channel_not_found"
	}
	call.ChannelID = c.id
	if code := checkMessage(call.Text, call.Blocks); code != "" {
		return code
	}
	m := &Message{ChannelID: c.id, TS: s.nextTS(), ThreadTS: call.ThreadTS, Text: call.Text, Blocks: slices.Clone(call.Blocks)}
	c.msgs = append(c.msgs, m)
	call.TS = m.TS
	answer["channel"], answer["ts"] = c.id, m.TS
	answer["message"] = map[string]any{"text": m.Text, "ts": m.TS, "thread_ts": m.ThreadTS}
	return ""
}

// update handles chat.update, which, like Slack's, wants the channel's ID and keeps the
// old blocks unless new ones are sent; the caller holds mu.
func (s *Server) update(call *Call, answer map[string]any) string {
	c := s.byID[call.Channel]
	if c == nil {
		return "channel_not_found"
	}
	call.ChannelID = c.id
	ts := call.Params.Get("ts")
	call.TS = ts
	var m *Message
	for _, x := range c.msgs {
		if x.TS == ts {
			m = x
		}
	}
	if m == nil {
		return "message_not_found"
	}
	blocks := m.Blocks
	if call.Blocks != nil {
		blocks = call.Blocks
	}
	if code := checkMessage(call.Text, blocks); code != "" {
		return code
	}
	m.Text, m.Blocks = call.Text, slices.Clone(blocks)
	m.Edits++
	answer["channel"], answer["ts"], answer["text"] = c.id, ts, m.Text
	return ""
}

// checkMessage applies Slack's limits: the error Slack would answer, or "".
func checkMessage(text string, blocks json.RawMessage) string {
	if utf8.RuneCountInString(text) > maxText {
		return "msg_too_long"
	}
	empty := len(blocks) == 0 || string(blocks) == "[]"
	if empty {
		if strings.TrimSpace(text) == "" {
			return "no_text"
		}
		return ""
	}
	var bs []map[string]any
	if err := json.Unmarshal(blocks, &bs); err != nil {
		return "invalid_blocks_format"
	}
	if len(bs) > maxBlocks {
		return "invalid_blocks"
	}
	total := 0
	for _, b := range bs {
		if t, ok := b["text"].(map[string]any); ok {
			s, _ := t["text"].(string)
			if b["type"] == "section" && utf8.RuneCountInString(s) > maxSectionText {
				return "invalid_blocks"
			}
		}
		total += textLen(b)
	}
	if total > maxBlocksText {
		return "msg_blocks_too_long"
	}
	return ""
}

// textLen counts the characters of every "text" string in a block.
func textLen(x any) int {
	n := 0
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			if s, ok := v.(string); ok && k == "text" {
				n += utf8.RuneCountInString(s)
				continue
			}
			n += textLen(v)
		}
	case []any:
		for _, v := range x {
			n += textLen(v)
		}
	}
	return n
}

func (s *Server) webhook(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	data, err := io.ReadAll(io.LimitReader(r.Body, 10<<20))
	call := Call{Method: "webhook", Webhook: name, Channel: "webhook/" + name}
	var body struct {
		Text           string          `json:"text"`
		Blocks         json.RawMessage `json:"blocks"`
		ThreadTS       string          `json:"thread_ts"`
		ReplyBroadcast bool            `json:"reply_broadcast"`
	}
	if err == nil {
		err = json.Unmarshal(data, &body)
	}
	call.Text, call.ThreadTS, call.ReplyBroadcast = body.Text, body.ThreadTS, body.ReplyBroadcast
	if len(body.Blocks) > 0 && string(body.Blocks) != "null" {
		call.Blocks = body.Blocks
	}
	call.Params = url.Values{"payload": {string(data)}}
	if s.injected(w, r, call, "webhook", name, true) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	code := "invalid_payload"
	if err == nil {
		code = checkMessage(call.Text, call.Blocks)
	}
	if code != "" {
		s.recordLocked(call, http.StatusBadRequest, code)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, code)
		return
	}
	c := s.webhooks[name]
	if c == nil {
		c = &channel{id: "webhook/" + name, name: name}
		s.webhooks[name] = c
	}
	m := &Message{ChannelID: c.id, TS: s.nextTS(), Text: call.Text, Blocks: slices.Clone(call.Blocks)}
	c.msgs = append(c.msgs, m)
	call.ChannelID, call.TS = c.id, m.TS
	s.recordLocked(call, http.StatusOK, "")
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, "ok")
}

// injected applies the fault that matches a call, if any: it holds the answer for the
// fault's delay, then answers with the fault's status or error (as a webhook answers,
// when webhook). True when nothing is left to do: the fault answered, or the client gave
// up waiting.
func (s *Server) injected(w http.ResponseWriter, r *http.Request, call Call, method, ch string, webhook bool) bool {
	f := s.takeFault(method, ch)
	if !wait(r, f) {
		s.record(call, 0, "client gave up")
		return true
	}
	if f != nil && (f.Status != 0 || f.Error != "") {
		s.fault(w, call, f, webhook)
		return true
	}
	return false
}

// fault answers with an injected fault.
func (s *Server) fault(w http.ResponseWriter, call Call, f *Fault, webhook bool) {
	status := f.Status
	if status == 0 {
		status = http.StatusOK
		if webhook {
			status = http.StatusBadRequest
		}
	}
	errText := f.Error
	if errText == "" {
		errText = http.StatusText(status)
	}
	s.record(call, status, errText)
	if status == http.StatusTooManyRequests && f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	if webhook || status != http.StatusOK {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		io.WriteString(w, errText)
		return
	}
	writeJSON(w, status, map[string]any{"ok": false, "error": errText})
}

func (s *Server) record(c Call, status int, errText string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordLocked(c, status, errText)
}

func (s *Server) recordLocked(c Call, status int, errText string) {
	c.Status, c.Error, c.At = status, errText, s.now()
	s.calls = append(s.calls, c)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
