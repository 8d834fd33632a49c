package config

import (
	"fmt"
	"net"
	"net/http"
	"net/mail"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify/route"
)

// The kinds of receiver, each its own block of a receivers: item.
const (
	ReceiverWebhook   = "webhook"
	ReceiverPagerDuty = "pagerduty"
	ReceiverTeams     = "teams"
	ReceiverEmail     = "email"
)

// ReceiverKinds lists the kinds of receiver the config knows.
var ReceiverKinds = []string{ReceiverWebhook, ReceiverPagerDuty, ReceiverTeams, ReceiverEmail}

// Receiver is one destination of notifications beyond the slack: block: a name and
// exactly one kind, whose block is the one non-nil field.
type Receiver struct {
	Name      string // [a-z0-9][a-z0-9_-]*, unique, never "slack"
	Kind      string // one of ReceiverKinds
	Webhook   *Webhook
	PagerDuty *PagerDuty
	Teams     *Teams
	Email     *Email
}

// Webhook is a generic JSON receiver: a signed POST per notification.
type Webhook struct {
	URL     Secret            // http(s); a secret, since hook URLs often carry a token
	Secret  Secret            // the HMAC-SHA256 key of the signature header
	Headers map[string]Secret // extra request headers
}

// PagerDuty is an Events API v2 receiver.
type PagerDuty struct {
	RoutingKey Secret // the integration's routing key
	APIURL     string // the events endpoint; empty: PagerDuty's own
}

// Teams is a Microsoft Teams Workflows webhook receiver.
type Teams struct {
	WebhookURL Secret
}

// Email is an SMTP receiver.
type Email struct {
	SMTP     string   // host:port of the submission server
	From     string   // the sender address
	To       []string // the recipients
	Username string   // empty: no authentication
	Password Secret
	StartTLS bool // require STARTTLS (default true)
}

// Receiver returns the receiver named name, or nil.
func (c *Config) Receiver(name string) *Receiver {
	for i := range c.Receivers {
		if c.Receivers[i].Name == name {
			return &c.Receivers[i]
		}
	}
	return nil
}

// Route gives the receivers of a notification about to be written, as
// model.Message.Receiver values (the empty one is Slack, or the console): the routes
// of the config, everything to Slack without any. The archive calls it for every
// message it writes.
func (c *Config) Route(n *model.Notice) []string { return c.Routes.Outbox(n) }

// reservedHeaders are the request headers a webhook sets itself.
var reservedHeaders = []string{"Content-Type", "Content-Length", "Host", "X-Statuswatch-Signature", "X-Statuswatch-Delivery"}

func (d *decoder) receivers(cfg *Config, path string, n *yaml.Node) error {
	names := map[string]string{}
	return d.each(path, n, func(rp string, item *yaml.Node) error {
		rc, err := d.receiver(rp, item)
		if err != nil {
			d.fail(err)
			return nil
		}
		d.uniqueName(names, "receiver", rp, rc.Name, line(item, 0))
		d.require(rc.Kind != "", rp, line(item, 0), "needs one of "+strings.Join(ReceiverKinds, ", "))
		cfg.Receivers = append(cfg.Receivers, rc)
		return nil
	})
}

func (d *decoder) receiver(path string, n *yaml.Node) (Receiver, error) {
	var rc Receiver
	if err := d.item(path, n, "name and one of "+strings.Join(ReceiverKinds, ", ")); err != nil {
		return rc, err
	}
	kind := func(k string, parse func(path string, v *yaml.Node) error) handler {
		return func(kp string, v *yaml.Node) error {
			if rc.Kind != "" {
				return d.errorf(kp, d.lines[kp], "a receiver has one kind: %s is set already", rc.Kind)
			}
			rc.Kind = k
			return parse(kp, v)
		}
	}
	err := d.mapping(path, n, map[string]handler{
		"name": typed(d, &rc.Name, nil, func(v string) (string, error) {
			if v == route.Slack {
				return "", fmt.Errorf("%q names the slack: block; name this receiver otherwise", v)
			}
			return nameValue(v)
		}),
		ReceiverWebhook: kind(ReceiverWebhook, func(p string, v *yaml.Node) error {
			rc.Webhook = &Webhook{}
			return d.webhook(rc.Webhook, p, v)
		}),
		ReceiverPagerDuty: kind(ReceiverPagerDuty, func(p string, v *yaml.Node) error {
			rc.PagerDuty = &PagerDuty{}
			return d.pagerDuty(rc.PagerDuty, p, v)
		}),
		ReceiverTeams: kind(ReceiverTeams, func(p string, v *yaml.Node) error {
			rc.Teams = &Teams{}
			return d.teams(rc.Teams, p, v)
		}),
		ReceiverEmail: kind(ReceiverEmail, func(p string, v *yaml.Node) error {
			rc.Email = &Email{StartTLS: true}
			return d.email(rc.Email, p, v)
		}),
	})
	return rc, err
}

func (d *decoder) webhook(w *Webhook, path string, n *yaml.Node) error {
	h := map[string]handler{"headers": d.headers(&w.Headers)}
	u, sec := d.secretKey(h, path, "url"), d.secretKey(h, path, "secret")
	if err := d.mapping(path, n, h); err != nil {
		return err
	}
	w.URL, w.Secret = d.secret(u, secretURL), d.secret(sec, nil)
	d.required(w.URL, u)
	d.required(w.Secret, sec)
	for name := range w.Headers {
		if slices.Contains(reservedHeaders, http.CanonicalHeaderKey(name)) {
			hp := joinKey(path+".headers", name)
			d.fail(d.errorf(hp, d.lines[path+".headers"], "set by the webhook itself"))
		}
	}
	return nil
}

func (d *decoder) pagerDuty(p *PagerDuty, path string, n *yaml.Node) error {
	h := map[string]handler{"api_url": typed(d, &p.APIURL, nil, urlValue)}
	return d.requiredSecret(&p.RoutingKey, path, n, h, "routing_key", nil)
}

func (d *decoder) teams(t *Teams, path string, n *yaml.Node) error {
	return d.requiredSecret(&t.WebhookURL, path, n, map[string]handler{}, "webhook_url", secretURL)
}

// requiredSecret decodes a mapping whose keys are h's and the secret key name, which it
// requires, into dst.
func (d *decoder) requiredSecret(dst *Secret, path string, n *yaml.Node, h map[string]handler, name string, check func(string) string) error {
	sk := d.secretKey(h, path, name)
	if err := d.mapping(path, n, h); err != nil {
		return err
	}
	*dst = d.secret(sk, check)
	d.required(*dst, sk)
	return nil
}

func (d *decoder) email(e *Email, path string, n *yaml.Node) error {
	address := func(v string) (string, error) {
		if _, err := mail.ParseAddress(v); err != nil {
			return "", fmt.Errorf("not a mail address: %q", v)
		}
		return v, nil
	}
	h := map[string]handler{
		"smtp": typed(d, &e.SMTP, nil, func(v string) (string, error) {
			if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
				return "", fmt.Errorf("must be host:port, found %q", v)
			}
			return v, nil
		}),
		"from": typed(d, &e.From, nil, address),
		"to": func(p string, v *yaml.Node) error {
			if err := d.list(&e.To, "address")(p, v); err != nil {
				return err
			}
			for i, a := range e.To {
				if _, err := address(a); err != nil {
					d.fail(d.errorf(index(p, i), d.lines[p], "%v", err))
				}
			}
			return nil
		},
		"username": d.str(&e.Username),
		"starttls": typed(d, &e.StartTLS, nil, parseBool),
	}
	pw := d.secretKey(h, path, "password")
	if err := d.mapping(path, n, h); err != nil {
		return err
	}
	e.Password = d.secret(pw, nil)
	d.require(e.SMTP != "", path+".smtp", d.lines[path], "required")
	d.require(e.From != "", path+".from", d.lines[path], "required")
	d.require(len(e.To) > 0, path+".to", d.lines[path], "required")
	if e.Username == "" && e.Password.IsSet() {
		d.fail(d.errorf(path+".username", d.lines[path], "required with password"))
	}
	return nil
}

// routeMeta is what the walk remembers of a route for the checks across keys.
type routeMeta struct {
	path string
}

func (d *decoder) routes(cfg *Config, m *meta, path string, n *yaml.Node) error {
	return d.each(path, n, func(rp string, item *yaml.Node) error {
		if rr := resolve(item); isNull(rr) || rr.Kind != yaml.MappingNode {
			d.fail(d.errorf(rp, line(item, 0), "expected a mapping with match and receivers"))
			return nil
		}
		d.lines[rp] = line(item, 0)
		var rt route.Route
		err := d.mapping(rp, item, map[string]handler{
			"match":     func(p string, v *yaml.Node) error { return d.match(&rt.Match, p, v) },
			"receivers": d.list(&rt.Receivers, "receiver name"),
			"continue":  typed(d, &rt.Continue, nil, parseBool),
		})
		if err != nil {
			d.fail(err)
			return nil
		}
		d.require(len(rt.Receivers) > 0, rp+".receivers", d.lines[rp], "required: the receivers this route sends to")
		cfg.Routes = append(cfg.Routes, rt)
		m.routes = append(m.routes, routeMeta{path: rp})
		return nil
	})
}

func (d *decoder) match(mt *route.Match, path string, n *yaml.Node) error {
	words := func(dst *[]string, what string, known []string) handler {
		return func(p string, v *yaml.Node) error {
			if err := d.list(dst, what)(p, v); err != nil {
				return err
			}
			for i, w := range *dst {
				if !slices.Contains(known, w) {
					hint := suggest(w, known)
					if hint == "" {
						hint = "; known: " + strings.Join(known, ", ")
					}
					d.fail(d.errorf(index(p, i), d.lines[p], "unknown %s %q%s", what, w, hint))
				}
			}
			return nil
		}
	}
	return d.mapping(path, n, map[string]handler{
		"sources":    d.list(&mt.Sources, "source name"),
		"kinds":      words(&mt.Kinds, "kind", route.Kinds),
		"min_impact": typed(d, &mt.MinImpact, nil, oneOf(impacts...)),
		"components": d.list(&mt.Components, "component name"),
		"events":     words(&mt.Events, "event", route.Events),
		"title_regex": typed(d, &mt.TitleRegex, nil, func(v string) (*regexp.Regexp, error) {
			re, err := regexp.Compile(v)
			if err != nil {
				return nil, fmt.Errorf("not a regular expression: %v", err)
			}
			return re, nil
		}),
	})
}

// checkRoutes checks the routes against the rest of the config: every receiver they
// name exists, every source they name is configured, and each can match something.
// A receiver no route sends to gets a warning.
func (d *decoder) checkRoutes(cfg *Config, m *meta) {
	used := map[string]bool{}
	for i := range cfg.Routes {
		rt, rp := &cfg.Routes[i], m.routes[i].path
		for j, name := range rt.Receivers {
			used[name] = true
			if name != route.Slack && cfg.Receiver(name) == nil {
				known := []string{route.Slack}
				for _, r := range cfg.Receivers {
					known = append(known, r.Name)
				}
				d.fail(d.errorf(index(rp+".receivers", j), d.lines[rp+".receivers"], "unknown receiver %q; known: %s", name, strings.Join(known, ", ")))
			}
		}
		mp := rp + ".match"
		for j, s := range rt.Match.Sources {
			if cfg.Source(s) == nil {
				d.fail(d.errorf(index(mp+".sources", j), d.lines[mp+".sources"], "unknown source %q: this route can never match it", s))
			}
		}
		if d.failedAt(mp) {
			continue
		}
		if why := rt.Match.Never(); why != "" {
			d.fail(d.errorf(mp, d.lines[mp], "can never match: %s", why))
		}
	}
	for i := range cfg.Receivers {
		r := &cfg.Receivers[i]
		if r.Name != "" && !used[r.Name] {
			p := index("receivers", i)
			d.warn(p+".name", d.lines[p+".name"], "receiver %q is in no route: it gets nothing", r.Name)
		}
	}
}
