package slack

import (
	"context"
	"fmt"

	slackapi "github.com/slack-go/slack"
)

// Check posts a test message where source's notifications go (`watcher check -slack`): it
// proves the token or webhook and the channel work before an incident needs them. It
// returns where the message went, never a secret.
func (s *Notifier) Check(ctx context.Context, source, text string) (string, error) {
	ch, hook := s.route(source)
	m := message{Text: text}
	switch {
	case hook != "":
		return WebhookName(hook), s.webhook(ctx, hook, m)
	case s.api != nil && ch != "":
		if _, err := s.api.AuthTestContext(ctx); err != nil {
			return ch, s.classify("auth.test", "", err)
		}
		if _, _, err := s.api.PostMessageContext(ctx, ch, slackapi.MsgOptionText(text, false), slackapi.MsgOptionParse(false)); err != nil {
			return ch, s.classify("chat.postMessage", "", err)
		}
		return ch, nil
	}
	return "", fmt.Errorf("slack: no route for source %s", source)
}
