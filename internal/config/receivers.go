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
	r := resolve(n)
	if isNull(r) {
		return nil
	}
	if r.Kind != yaml.SequenceNode {
		return d.errorf(path, line(n, d.lines[path]), "expected a list, found %s", describe(r))
	}
	names := map[string]string{}
	for i, item := range r.Content {
		rp := index(path, i)
		if err := d.spend(rp, item.Line); err != nil {
			return err
		}
		rc, err := d.receiver(rp, item)
		if err != nil {
			d.fail(err)
			continue
		}
		np := rp + ".name"
		switch first, dup := names[rc.Name]; {
		case rc.Name == "":
			if !d.failedAt(np) {
				d.fail(d.errorf(np, line(item, 0), "required"))
			}
		case dup:
			d.fail(d.errorf(np, d.lines[np], "duplicate receiver name %q (first at %s, line %d)", rc.Name, first, d.lines[first+".name"]))
		default:
			names[rc.Name] = rp
		}
		if rc.Kind == "" && !d.failedAt(rp) {
			d.fail(d.errorf(rp, line(item, 0), "needs one of %s", strings.Join(ReceiverKinds, ", ")))
		}
		cfg.Receivers = append(cfg.Receivers, rc)
	}
	return nil
}

func (d *decoder) receiver(path string, n *yaml.Node) (Receiver, error) {
	var rc Receiver
	if r := resolve(n); isNull(r) || r.Kind != yaml.MappingNode {
		found := "nothing"
		if !isNull(r) {
			found = describe(r)
		}
		return rc, d.errorf(path, line(n, 0), "expected a mapping with name and one of %s, found %s", strings.Join(ReceiverKinds, ", "), found)
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
			if !sourceName.MatchString(v) {
				return "", fmt.Errorf("must match [a-z0-9][a-z0-9_-]*, found %q", v)
			}
			if v == route.Slack {
				return "", fmt.Errorf("%q names the slack: block; name this receiver otherwise", v)
			}
			return v, nil
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

// required records "required" for a secret key left out (neither form set), unless
// its own error said more.
func (d *decoder) required(s Secret, path, key string) {
	kp := joinKey(path, key)
	if !s.IsSet() && !d.failedAt(kp) {
		d.fail(d.errorf(kp, d.lines[path], "required (or %s_file)", key))
	}
}

func (d *decoder) webhook(w *Webhook, path string, n *yaml.Node) error {
	u := &secretKeys{name: "url", path: path}
	sec := &secretKeys{name: "secret", path: path}
	uv, uf := d.secretKey(u)
	sv, sf := d.secretKey(sec)
	err := d.mapping(path, n, map[string]handler{
		"url": uv, "url_file": uf,
		"secret": sv, "secret_file": sf,
		"headers": d.headers(&w.Headers),
	})
	if err != nil {
		return err
	}
	w.URL, err = d.secret(u, secretURL)
	d.fail(err)
	w.Secret, err = d.secret(sec, nil)
	d.fail(err)
	d.required(w.URL, path, "url")
	d.required(w.Secret, path, "secret")
	for name := range w.Headers {
		if slices.Contains(reservedHeaders, http.CanonicalHeaderKey(name)) {
			hp := joinKey(path+".headers", name)
			d.fail(d.errorf(hp, d.lines[path+".headers"], "set by the webhook itself"))
		}
	}
	return nil
}

func (d *decoder) pagerDuty(p *PagerDuty, path string, n *yaml.Node) error {
	key := &secretKeys{name: "routing_key", path: path}
	kv, kf := d.secretKey(key)
	err := d.mapping(path, n, map[string]handler{
		"routing_key": kv, "routing_key_file": kf,
		"api_url": typed(d, &p.APIURL, nil, urlValue),
	})
	if err != nil {
		return err
	}
	p.RoutingKey, err = d.secret(key, nil)
	d.fail(err)
	d.required(p.RoutingKey, path, "routing_key")
	return nil
}

func (d *decoder) teams(t *Teams, path string, n *yaml.Node) error {
	hook := &secretKeys{name: "webhook_url", path: path}
	hv, hf := d.secretKey(hook)
	err := d.mapping(path, n, map[string]handler{"webhook_url": hv, "webhook_url_file": hf})
	if err != nil {
		return err
	}
	t.WebhookURL, err = d.secret(hook, secretURL)
	d.fail(err)
	d.required(t.WebhookURL, path, "webhook_url")
	return nil
}

func (d *decoder) email(e *Email, path string, n *yaml.Node) error {
	pw := &secretKeys{name: "password", path: path}
	pv, pf := d.secretKey(pw)
	address := func(v string) (string, error) {
		if _, err := mail.ParseAddress(v); err != nil {
			return "", fmt.Errorf("not a mail address: %q", v)
		}
		return v, nil
	}
	err := d.mapping(path, n, map[string]handler{
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
		"username":      d.str(&e.Username),
		"password":      pv,
		"password_file": pf,
		"starttls":      typed(d, &e.StartTLS, nil, parseBool),
	})
	if err != nil {
		return err
	}
	e.Password, err = d.secret(pw, nil)
	d.fail(err)
	for _, k := range []struct {
		key string
		set bool
	}{{"smtp", e.SMTP != ""}, {"from", e.From != ""}, {"to", len(e.To) > 0}} {
		if kp := joinKey(path, k.key); !k.set && !d.failedAt(kp) {
			d.fail(d.errorf(kp, d.lines[path], "required"))
		}
	}
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
	r := resolve(n)
	if isNull(r) {
		return nil
	}
	if r.Kind != yaml.SequenceNode {
		return d.errorf(path, line(n, d.lines[path]), "expected a list, found %s", describe(r))
	}
	for i, item := range r.Content {
		rp := index(path, i)
		if err := d.spend(rp, item.Line); err != nil {
			return err
		}
		if rr := resolve(item); isNull(rr) || rr.Kind != yaml.MappingNode {
			d.fail(d.errorf(rp, line(item, 0), "expected a mapping with match and receivers"))
			continue
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
			continue
		}
		if len(rt.Receivers) == 0 && !d.failedAt(rp+".receivers") {
			d.fail(d.errorf(rp+".receivers", d.lines[rp], "required: the receivers this route sends to"))
		}
		cfg.Routes = append(cfg.Routes, rt)
		m.routes = append(m.routes, routeMeta{path: rp})
	}
	return nil
}

func (d *decoder) match(mt *route.Match, path string, n *yaml.Node) error {
	words := func(dst *[]string, what string, known []string) handler {
		return func(p string, v *yaml.Node) error {
			if err := d.list(dst, what)(p, v); err != nil {
				return err
			}
			for i, w := range *dst {
				if !slices.Contains(known, w) {
					msg := fmt.Sprintf("unknown %s %q; known: %s", what, w, strings.Join(known, ", "))
					if best := nearest(w, known); best != "" {
						msg = fmt.Sprintf("unknown %s %q (did you mean %s?)", what, w, best)
					}
					d.fail(d.errorf(index(p, i), d.lines[p], "%s", msg))
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
