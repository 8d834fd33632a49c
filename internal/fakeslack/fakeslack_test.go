package fakeslack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	slackapi "github.com/slack-go/slack"
)

const token = "xoxb-fake-token"

func start(t *testing.T) (*Server, *slackapi.Client) {
	t.Helper()
	s := New(Options{Token: token})
	t.Cleanup(s.Close)
	return s, slackapi.New(token, slackapi.OptionAPIURL(s.APIURL()))
}

func TestPostReplyUpdate(t *testing.T) {
	s, api := start(t)
	ctx := context.Background()
	blocks := slackapi.MsgOptionBlocks(slackapi.NewSectionBlock(slackapi.NewTextBlockObject("mrkdwn", "root *card*", false, false), nil, nil))

	ch, root, err := api.PostMessageContext(ctx, "#ops", slackapi.MsgOptionText("root", false), blocks)
	if err != nil {
		t.Fatalf("post root: %v", err)
	}
	if ch != "C0001" || root != "1700000000.000100" {
		t.Errorf("root: got channel %q ts %q, want C0001 1700000000.000100", ch, root)
	}
	if got := s.ChannelID("ops"); got != "C0001" {
		t.Errorf("ChannelID(ops): got %q, want C0001", got)
	}
	_, reply, err := api.PostMessageContext(ctx, ch, slackapi.MsgOptionText("reply", false),
		slackapi.MsgOptionTS(root), slackapi.MsgOptionBroadcast())
	if err != nil {
		t.Fatalf("post reply: %v", err)
	}
	if _, _, _, err := api.UpdateMessageContext(ctx, ch, root, slackapi.MsgOptionText("root v2", false)); err != nil {
		t.Fatalf("update: %v", err)
	}

	calls := s.Calls()
	want := []string{
		"chat.postMessage #ops C0001 ts=1700000000.000100 thread= broadcast=false text=root",
		"chat.postMessage C0001 C0001 ts=1700000000.000200 thread=1700000000.000100 broadcast=true text=reply",
		"chat.update C0001 C0001 ts=1700000000.000100 thread= broadcast=false text=root v2",
	}
	if len(calls) != len(want) {
		t.Fatalf("calls: got %d, want %d: %+v", len(calls), len(want), calls)
	}
	for i, c := range calls {
		got := fmt.Sprintf("%s %s %s ts=%s thread=%s broadcast=%t text=%s", c.Method, c.Channel, c.ChannelID, c.TS, c.ThreadTS, c.ReplyBroadcast, c.Text)
		if got != want[i] || !c.OK() {
			t.Errorf("call %d: got %q (ok %t), want %q", i, got, c.OK(), want[i])
		}
	}
	if calls[0].Blocks == nil || calls[1].Blocks != nil {
		t.Errorf("blocks: got %s and %s, want the root's and none", calls[0].Blocks, calls[1].Blocks)
	}

	t.Run("update keeps blocks unless sent new ones", func(t *testing.T) {
		m, ok := s.Message("ops", root)
		if !ok || m.Text != "root v2" || !strings.Contains(string(m.Blocks), "root *card*") || m.Edits != 1 {
			t.Errorf("root: got %+v, %t; want text root v2, the old blocks, 1 edit", m, ok)
		}
		if _, _, _, err := api.UpdateMessageContext(ctx, ch, root, slackapi.MsgOptionText("root v3", false), slackapi.MsgOptionBlocks()); err != nil {
			t.Fatalf("update: %v", err)
		}
		if m, _ := s.Message(ch, root); string(m.Blocks) != "[]" {
			t.Errorf("blocks after blocks=[]: got %s, want []", m.Blocks)
		}
	})
	t.Run("update needs the channel ID", func(t *testing.T) {
		_, _, _, err := api.UpdateMessageContext(ctx, "#ops", root, slackapi.MsgOptionText("x", false))
		if se, ok := errors.AsType[slackapi.SlackErrorResponse](err); !ok || se.Err != "channel_not_found" {
			t.Errorf("update by name: got %v, want channel_not_found", err)
		}
	})
	t.Run("update of an unknown ts", func(t *testing.T) {
		_, _, _, err := api.UpdateMessageContext(ctx, ch, "1.000001", slackapi.MsgOptionText("x", false))
		if se, ok := errors.AsType[slackapi.SlackErrorResponse](err); !ok || se.Err != "message_not_found" {
			t.Errorf("got %v, want message_not_found", err)
		}
	})
	t.Run("threads and top-level messages", func(t *testing.T) {
		if got := s.Messages("#ops"); len(got) != 1 || got[0].TS != root {
			t.Errorf("Messages: got %+v, want the root only", got)
		}
		if got := s.Replies(ch, root); len(got) != 1 || got[0].TS != reply {
			t.Errorf("Replies: got %+v, want the reply", got)
		}
	})
}

func TestTimestampsUniqueUnderConcurrency(t *testing.T) {
	s, api := start(t)
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			ch := fmt.Sprintf("#c%d", i%3)
			if _, _, err := api.PostMessage(ch, slackapi.MsgOptionText("hi", false)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("post: %v", err)
	}
	seen := map[string]bool{}
	calls := s.Calls()
	if len(calls) != n {
		t.Fatalf("calls: got %d, want %d", len(calls), n)
	}
	prev := ""
	for _, c := range calls {
		if seen[c.TS] {
			t.Errorf("ts %s reused", c.TS)
		}
		seen[c.TS] = true
		if c.TS <= prev {
			t.Errorf("ts %s not after %s", c.TS, prev)
		}
		prev = c.TS
	}
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name  string
		fault Fault
		check func(t *testing.T, err error)
		call  Call // what the recorder says (Status, Error)
	}{
		{"429 with Retry-After", Fault{Status: 429, RetryAfter: 7}, func(t *testing.T, err error) {
			rl, ok := errors.AsType[*slackapi.RateLimitedError](err)
			if !ok || rl.RetryAfter != 7*time.Second {
				t.Errorf("got %v, want RateLimitedError of 7s", err)
			}
		}, Call{Status: 429, Error: "Too Many Requests"}},
		{"500", Fault{Status: 500}, func(t *testing.T, err error) {
			if sc, ok := errors.AsType[slackapi.StatusCodeError](err); !ok || sc.Code != 500 {
				t.Errorf("got %v, want StatusCodeError 500", err)
			}
		}, Call{Status: 500, Error: "Internal Server Error"}},
		{"ok:false", Fault{Error: "invalid_blocks"}, func(t *testing.T, err error) {
			if se, ok := errors.AsType[slackapi.SlackErrorResponse](err); !ok || se.Err != "invalid_blocks" {
				t.Errorf("got %v, want invalid_blocks", err)
			}
		}, Call{Status: 200, Error: "invalid_blocks"}},
		{"other channel untouched", Fault{Channel: "#elsewhere", Error: "channel_not_found"}, func(t *testing.T, err error) {
			if err != nil {
				t.Errorf("got %v, want success", err)
			}
		}, Call{Status: 200}},
		{"other method untouched", Fault{Method: "chat.update", Error: "invalid_auth"}, func(t *testing.T, err error) {
			if err != nil {
				t.Errorf("got %v, want success", err)
			}
		}, Call{Status: 200}},
		{"after skipping one", Fault{Skip: 1, Error: "not_in_channel"}, func(t *testing.T, err error) {
			if se, ok := errors.AsType[slackapi.SlackErrorResponse](err); !ok || se.Err != "not_in_channel" {
				t.Errorf("got %v, want not_in_channel", err)
			}
		}, Call{Status: 200, Error: "not_in_channel"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, api := start(t)
			s.Fail(1, tt.fault)
			for range tt.fault.Skip {
				if _, _, err := api.PostMessage("#ops", slackapi.MsgOptionText("first", false)); err != nil {
					t.Fatalf("skipped call: %v", err)
				}
			}
			_, _, err := api.PostMessage("#ops", slackapi.MsgOptionText("hi", false))
			tt.check(t, err)
			calls := s.Calls()
			last := calls[len(calls)-1]
			if last.Status != tt.call.Status || last.Error != tt.call.Error {
				t.Errorf("recorded: got %d %q, want %d %q", last.Status, last.Error, tt.call.Status, tt.call.Error)
			}
			// A fault is used up: the next call succeeds.
			if _, _, err := api.PostMessage("#ops", slackapi.MsgOptionText("again", false)); err != nil {
				t.Errorf("after the fault: %v", err)
			}
		})
	}
}

func TestFaultCountAndDelay(t *testing.T) {
	s, api := start(t)
	s.Fail(2, Fault{Status: 503})
	for i, want := range []int{503, 503, 200} {
		_, _, err := api.PostMessage("#ops", slackapi.MsgOptionText("x", false))
		if got := s.Calls()[i].Status; got != want {
			t.Errorf("call %d: got status %d (%v), want %d", i, got, err, want)
		}
	}

	t.Run("delay until the client gives up", func(t *testing.T) {
		s.Fail(1, Fault{Delay: time.Hour})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, err := api.PostMessageContext(ctx, "#ops", slackapi.MsgOptionText("x", false)); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	})
}

func TestAuth(t *testing.T) {
	s, api := start(t)
	if r, err := api.AuthTest(); err != nil || r.TeamID != "T0001" || r.UserID != "U0001" {
		t.Errorf("auth.test: got %+v, %v", r, err)
	}
	bad := slackapi.New("xoxb-wrong", slackapi.OptionAPIURL(s.APIURL()))
	_, _, err := bad.PostMessage("#ops", slackapi.MsgOptionText("x", false))
	if se, ok := errors.AsType[slackapi.SlackErrorResponse](err); !ok || se.Err != "invalid_auth" {
		t.Errorf("wrong token: got %v, want invalid_auth", err)
	}
}

func TestLimits(t *testing.T) {
	section := func(n int) slackapi.Block {
		return slackapi.NewSectionBlock(slackapi.NewTextBlockObject("mrkdwn", strings.Repeat("a", n), false, false), nil, nil)
	}
	many := make([]slackapi.Block, 51)
	for i := range many {
		many[i] = section(1)
	}
	tests := []struct {
		name   string
		blocks []slackapi.Block
		text   string
		want   string
	}{
		{"fits", []slackapi.Block{section(3000), section(3000)}, "x", ""},
		{"51 blocks", many, "x", "invalid_blocks"},
		{"section over 3000", []slackapi.Block{section(3001)}, "x", "invalid_blocks"},
		{"all blocks over 12000", []slackapi.Block{section(3000), section(3000), section(3000), section(3000), section(1)}, "x", "msg_blocks_too_long"},
		{"no text, no blocks", nil, "", "no_text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, api := start(t)
			opts := []slackapi.MsgOption{slackapi.MsgOptionText(tt.text, false)}
			if tt.blocks != nil {
				opts = append(opts, slackapi.MsgOptionBlocks(tt.blocks...))
			}
			_, _, err := api.PostMessage("#ops", opts...)
			got := ""
			if se, ok := errors.AsType[slackapi.SlackErrorResponse](err); ok {
				got = se.Err
			} else if err != nil {
				t.Fatalf("got %v", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWebhook(t *testing.T) {
	s := New(Options{})
	t.Cleanup(s.Close)
	msg := &slackapi.WebhookMessage{Text: "hello", Blocks: &slackapi.Blocks{BlockSet: []slackapi.Block{
		slackapi.NewSectionBlock(slackapi.NewTextBlockObject("mrkdwn", "*hi*", false, false), nil, nil)}}}
	ctx := context.Background()
	if err := slackapi.PostWebhookCustomHTTPContext(ctx, s.WebhookURL("ops"), http.DefaultClient, msg); err != nil {
		t.Fatalf("webhook: %v", err)
	}
	calls := s.Calls()
	if len(calls) != 1 || calls[0].Method != "webhook" || calls[0].Webhook != "ops" || calls[0].Text != "hello" || !calls[0].OK() {
		t.Fatalf("calls: got %+v", calls)
	}
	var blocks []map[string]any
	if err := json.Unmarshal(calls[0].Blocks, &blocks); err != nil || len(blocks) != 1 {
		t.Errorf("blocks: got %s (%v)", calls[0].Blocks, err)
	}
	if got := s.Messages("webhook/ops"); len(got) != 1 || got[0].Text != "hello" {
		t.Errorf("Messages(webhook/ops): got %+v", got)
	}

	for _, tt := range []struct {
		name  string
		fault Fault
		want  int
	}{
		{"gone", Fault{Method: "webhook", Status: 404, Error: "no_service"}, 404},
		{"archived", Fault{Method: "webhook", Status: 410, Error: "channel_is_archived"}, 410},
		{"revoked", Fault{Method: "webhook", Status: 403, Error: "invalid_token"}, 403},
		{"bad payload by default", Fault{Method: "webhook", Error: "invalid_payload"}, 400},
		{"other webhook untouched", Fault{Channel: "other", Status: 500}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s.Fail(1, tt.fault)
			err := slackapi.PostWebhookCustomHTTPContext(ctx, s.WebhookURL("ops"), http.DefaultClient, msg)
			got := 0
			if sc, ok := errors.AsType[slackapi.StatusCodeError](err); ok {
				got = sc.Code
			} else if err != nil {
				t.Fatalf("got %v", err)
			}
			if got != tt.want {
				t.Errorf("got status %d, want %d", got, tt.want)
			}
			s.Reset()
		})
	}
}
