package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakeslack"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
)

const token = "xoxb-1234-SECRET-token"

// hookPath is a webhook's secret part, as Slack's URLs carry it.
const hookPath = "T000/B000/SECRETHOOK"

func newSink(t *testing.T, fs *fakeslack.Server, route func(string) (string, string)) *Notifier {
	t.Helper()
	n, err := New(Options{Token: token, APIURL: fs.APIURL(), Route: route,
		HTTPClient: &http.Client{Timeout: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func botRoute(string) (string, string) { return "#status", "" }

func TestSendBot(t *testing.T) {
	fs := fakeslack.New(fakeslack.Options{Token: token})
	defer fs.Close()
	s := newSink(t, fs, botRoute)
	ctx := context.Background()
	vs := versions(plainFixture.life())

	if d := s.Destination("acme"); d != (notify.Destination{Key: "#status", Account: botAccount, Interval: time.Second, Threads: true}) {
		t.Errorf("Destination: got %+v", d)
	}
	root, err := s.Send(ctx, note(plainFixture, vs[0], model.EventNew, false))
	if err != nil {
		t.Fatalf("root: %v", err)
	}
	if root.Channel != "C0001" || root.TS == "" {
		t.Fatalf("root receipt: got %+v, want channel C0001 and a ts", root)
	}
	resolved := note(plainFixture, vs[3], model.EventResolved, false)
	resolved.Thread = &notify.Thread{Channel: root.Channel, TS: root.TS}
	if _, err := s.Send(ctx, resolved); err != nil {
		t.Fatalf("reply: %v", err)
	}
	if err := s.UpdateRoot(ctx, resolved); err != nil {
		t.Fatalf("update: %v", err)
	}
	plain := *resolved
	plain.PlainText = true
	if err := s.UpdateRoot(ctx, &plain); err != nil {
		t.Fatalf("plain update: %v", err)
	}
	down := &notify.Notification{Message: model.Message{Source: "acme", Event: model.EventSourceDown, Text: "timeout"}, SourceTitle: "Acme"}
	if _, err := s.Send(ctx, down); err != nil {
		t.Fatalf("source down: %v", err)
	}

	want := []string{
		"chat.postMessage #status thread= broadcast=false blocks=true",
		"chat.postMessage C0001 thread=" + root.TS + " broadcast=true blocks=true",
		"chat.update C0001 thread= broadcast=false blocks=true",
		"chat.update C0001 thread= broadcast=false blocks=[]",
		"chat.postMessage #status thread= broadcast=false blocks=true",
	}
	calls := fs.Calls()
	if len(calls) != len(want) {
		t.Fatalf("calls: got %d, want %d", len(calls), len(want))
	}
	for i, c := range calls {
		blocks := fmt.Sprint(c.Blocks != nil)
		if string(c.Blocks) == "[]" {
			blocks = "[]"
		}
		got := fmt.Sprintf("%s %s thread=%s broadcast=%t blocks=%s", c.Method, c.Channel, c.ThreadTS, c.ReplyBroadcast, blocks)
		if got != want[i] || !c.OK() {
			t.Errorf("call %d: got %q (%d %s), want %q", i, got, c.Status, c.Error, want[i])
		}
		if p := c.Params.Get("parse"); c.Method == "chat.postMessage" && p != "none" {
			t.Errorf("call %d: parse=%q, want none", i, p)
		}
		if u := c.Params.Get("unfurl_links"); c.Method == "chat.postMessage" && u != "false" {
			t.Errorf("call %d: unfurl_links=%q, want false", i, u)
		}
	}
	if m, _ := fs.Message("C0001", root.TS); m.Edits != 2 || !strings.Contains(m.Text, "Resolved") {
		t.Errorf("root after updates: got %+v, want 2 edits and the resolved text", m)
	}
}

func TestSendWebhook(t *testing.T) {
	fs := fakeslack.New(fakeslack.Options{Token: token})
	defer fs.Close()
	hook := fs.WebhookURL(hookPath)
	s := newSink(t, fs, func(src string) (string, string) {
		if src == "acme" {
			return "#status", hook
		}
		return "#status", ""
	})
	vs := versions(plainFixture.life())
	d := s.Destination("acme")
	if d.Threads || d.Key != WebhookName(hook) || d.Account != d.Key || strings.Contains(d.Key, "SECRET") {
		t.Errorf("Destination: got %+v, want an unthreaded webhook named by hash", d)
	}
	n := note(plainFixture, vs[1], model.EventChanged, false)
	if _, err := s.Send(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	calls := fs.Calls()
	if len(calls) != 1 || calls[0].Method != "webhook" || calls[0].ThreadTS != "" || !strings.Contains(calls[0].Text, "Elevated API errors") {
		t.Errorf("calls: got %+v, want one webhook message naming the incident", calls)
	}
	if d := s.Destination("beta"); !d.Threads {
		t.Errorf("a source without its own webhook: got %+v, want the bot channel", d)
	}
}

// TestClassify checks what every kind of Slack failure means for delivery, and that no
// error text carries the token or the webhook's secret.
func TestClassify(t *testing.T) {
	tests := []struct {
		name       string
		webhook    bool
		fault      fakeslack.Fault
		want       notify.Class
		retryAfter time.Duration
	}{
		{"429 Retry-After", false, fakeslack.Fault{Status: 429, RetryAfter: 7}, notify.RateLimited, 7 * time.Second},
		{"429 without Retry-After", false, fakeslack.Fault{Status: 429}, notify.RateLimited, 0},
		{"500", false, fakeslack.Fault{Status: 500}, notify.Transient, 0},
		{"503", false, fakeslack.Fault{Status: 503}, notify.Transient, 0},
		{"timeout", false, fakeslack.Fault{Delay: time.Minute}, notify.Transient, 0},
		{"invalid_auth", false, fakeslack.Fault{Error: "invalid_auth"}, notify.Auth, 0},
		{"not_authed", false, fakeslack.Fault{Error: "not_authed"}, notify.Auth, 0},
		{"token_revoked", false, fakeslack.Fault{Error: "token_revoked"}, notify.Auth, 0},
		{"account_inactive", false, fakeslack.Fault{Error: "account_inactive"}, notify.Auth, 0},
		{"channel_not_found", false, fakeslack.Fault{Error: "channel_not_found"}, notify.ChannelGone, 0},
		{"not_in_channel", false, fakeslack.Fault{Error: "not_in_channel"}, notify.ChannelGone, 0},
		{"is_archived", false, fakeslack.Fault{Error: "is_archived"}, notify.ChannelGone, 0},
		{"invalid_blocks", false, fakeslack.Fault{Error: "invalid_blocks"}, notify.Rejected, 0},
		{"msg_too_long", false, fakeslack.Fault{Error: "msg_too_long"}, notify.Rejected, 0},
		{"msg_blocks_too_long", false, fakeslack.Fault{Error: "msg_blocks_too_long"}, notify.Rejected, 0},
		{"invalid_attachments", false, fakeslack.Fault{Error: "invalid_attachments"}, notify.Rejected, 0},
		{"unknown error", false, fakeslack.Fault{Error: "something_new"}, notify.Rejected, 0},
		{"ok:false ratelimited", false, fakeslack.Fault{Error: "ratelimited"}, notify.RateLimited, 0},
		{"internal_error", false, fakeslack.Fault{Error: "internal_error"}, notify.Transient, 0},
		{"webhook 400", true, fakeslack.Fault{Status: 400, Error: "invalid_payload"}, notify.Rejected, 0},
		{"webhook 403", true, fakeslack.Fault{Status: 403, Error: "invalid_token"}, notify.Auth, 0},
		{"webhook 404", true, fakeslack.Fault{Status: 404, Error: "no_service"}, notify.ChannelGone, 0},
		{"webhook 410", true, fakeslack.Fault{Status: 410, Error: "channel_is_archived"}, notify.ChannelGone, 0},
		{"webhook 429", true, fakeslack.Fault{Status: 429, RetryAfter: 3}, notify.RateLimited, 3 * time.Second},
		{"webhook 500", true, fakeslack.Fault{Status: 500}, notify.Transient, 0},
		{"webhook timeout", true, fakeslack.Fault{Delay: time.Minute}, notify.Transient, 0},
	}
	vs := versions(plainFixture.life())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := fakeslack.New(fakeslack.Options{Token: token})
			defer fs.Close()
			hook := ""
			if tt.webhook {
				hook = fs.WebhookURL(hookPath)
			}
			s, err := New(Options{Token: token, APIURL: fs.APIURL(), Route: func(string) (string, string) { return "#status", hook },
				// Short, so the delay faults become client timeouts.
				HTTPClient: &http.Client{Timeout: 200 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			fs.Fail(1, tt.fault)
			_, err = s.Send(context.Background(), note(plainFixture, vs[0], model.EventNew, false))
			if err == nil {
				t.Fatal("Send: got no error")
			}
			class, after := notify.ClassOf(err)
			if class != tt.want || after != tt.retryAfter {
				t.Errorf("class: got %s %s, want %s %s (%v)", class, after, tt.want, tt.retryAfter, err)
			}
			checkNoSecret(t, err.Error(), hook)
		})
	}

	t.Run("network error", func(t *testing.T) {
		fs := fakeslack.New(fakeslack.Options{})
		hook := fs.WebhookURL(hookPath)
		api := fs.APIURL()
		fs.Close() // nothing listens there any more
		for _, route := range [][2]string{{"#status", hook}, {"#status", ""}} {
			s, err := New(Options{Token: token, APIURL: api, Route: func(string) (string, string) { return route[0], route[1] }})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Send(context.Background(), note(plainFixture, vs[0], model.EventNew, false))
			if class, _ := notify.ClassOf(err); err == nil || class != notify.Transient {
				t.Errorf("route %v: got %v (%s), want a transient error", route[1] != "", err, class)
			}
			checkNoSecret(t, err.Error(), hook)
		}
	})
}

func checkNoSecret(t *testing.T, text, hook string) {
	t.Helper()
	for _, secret := range []string{token, "SECRET", hook, hookPath} {
		if secret != "" && strings.Contains(text, secret) {
			t.Errorf("error %q carries the secret %q", text, secret)
		}
	}
}

// TestHostileOnTheWire sends every kind of message with the attack in every vendor field,
// through the bot and a webhook, and checks what reached Slack.
func TestHostileOnTheWire(t *testing.T) {
	fs := fakeslack.New(fakeslack.Options{Token: token})
	defer fs.Close()
	ctx := context.Background()
	for _, webhook := range []bool{false, true} {
		hook := ""
		if webhook {
			hook = fs.WebhookURL("hook")
		}
		s := newSink(t, fs, func(string) (string, string) { return "#status", hook })
		f := hostileFixture
		inc := versions(f.life())
		mnt := versions(f.maintenance())
		var notes []*notify.Notification
		root, err := s.Send(ctx, note(f, inc[0], model.EventNew, false))
		if err != nil {
			t.Fatalf("root: %v", err)
		}
		for i, ev := range []model.Event{model.EventNew, model.EventChanged, model.EventChanged, model.EventResolved, model.EventPostmortem} {
			n := note(f, inc[i], ev, false)
			if i > 0 && !webhook {
				n.Thread = &notify.Thread{Channel: root.Channel, TS: root.TS}
			}
			notes = append(notes, n)
		}
		notes = append(notes,
			note(f, inc[2], model.EventRemoved, !webhook),
			note(f, mnt[1], model.EventChanged, false),
			&notify.Notification{Message: model.Message{Source: "acme", Event: model.EventSourceDown, Text: f.errText}, SourceTitle: f.source},
			&notify.Notification{Message: model.Message{Source: "acme", Event: model.EventSourceUp}, SourceTitle: f.source},
			&notify.Notification{Message: model.Message{Source: "acme"}, Digest: &notify.Digest{Count: 2, MaxAge: time.Hour, Sources: []notify.SourceCount{{Source: f.source, Count: 2}}}},
		)
		for _, n := range notes {
			for _, plain := range []bool{false, true} {
				n.PlainText = plain
				if _, err := s.Send(ctx, n); err != nil {
					t.Fatalf("send %s: %v", n.Message.Event, err)
				}
				if n.Thread != nil {
					if err := s.UpdateRoot(ctx, n); err != nil {
						t.Fatalf("update root: %v", err)
					}
				}
			}
		}
	}
	calls := fs.Calls()
	if len(calls) < 40 {
		t.Fatalf("calls: got %d, want every kind sent", len(calls))
	}
	for i, c := range calls {
		if !c.OK() {
			t.Errorf("call %d: %d %s", i, c.Status, c.Error)
		}
		doc, _ := json.Marshal(map[string]any{"text": c.Text, "blocks": json.RawMessage(orNull(c.Blocks))})
		if s := unescapedAttack(doc); s != "" {
			t.Errorf("call %d (%s): unescaped vendor text in %q", i, c.Method, s)
		}
	}
}

func orNull(b []byte) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}
