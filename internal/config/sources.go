package config

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
	"go.yaml.in/yaml/v3"
)

var (
	sourceName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	impacts    = []model.Impact{model.ImpactNone, model.ImpactMinor, model.ImpactMajor, model.ImpactCritical}
)

// kinds are the values of a source's kind: auto, then every platform the fetch registry
// holds, so that a new platform is a valid kind without a word changed here.
func kinds() []string { return append([]string{DefaultKind}, fetch.Kinds()...) }

func (d *decoder) sources(cfg *Config, m *meta, path string, n *yaml.Node) error {
	names := map[string]string{} // name → path of the source that has it
	return d.each(path, n, func(sp string, item *yaml.Node) error {
		src, sm, err := d.source(sp, item)
		if err != nil {
			d.fail(err)
			return nil
		}
		d.uniqueName(names, "source", sp, src.Name, line(item, 0))
		d.require(src.URL != "", sp+".url", line(item, 0), "required")
		// A source with errors is kept for the checks across keys, which skip what its
		// errors may have left unset (failedAt).
		sm.path = sp
		cfg.Sources = append(cfg.Sources, src)
		m.sources = append(m.sources, sm)
		return nil
	})
}

func (d *decoder) source(path string, n *yaml.Node) (Source, sourceMeta, error) {
	var s Source
	var sm sourceMeta
	if err := d.item(path, n, "name and url"); err != nil {
		return s, sm, err
	}
	h := map[string]handler{
		"name":              typed(d, &s.Name, nil, nameValue),
		"title":             d.str(&s.Title),
		"url":               typed(d, &s.URL, nil, urlValue),
		"kind":              typed(d, &s.Kind, nil, oneOf(kinds()...)),
		"schedule":          typed(d, &s.Schedule, &sm.schedule, schedule),
		"timeout":           typed(d, &s.Timeout, &sm.timeout, positiveDuration),
		"paused":            typed(d, &s.Paused, nil, parseBool),
		"components":        d.components(&s.Components),
		"min_impact":        typed(d, &s.MinImpact, nil, oneOf(impacts...)),
		"maintenance":       typed(d, &s.Maintenance, &sm.maintenance, parseBool),
		"channel":           d.str(&s.Channel),
		"failure_threshold": typed(d, &s.FailureThreshold, &sm.failureThreshold, atLeast(1)),
		"component_changes": typed(d, &s.ComponentChanges, &sm.componentChanges, componentChanges),
		"open_interval":     typed(d, &s.OpenInterval, &sm.openInterval, openInterval),
		"headers":           d.headers(&s.Headers),
		"endpoints":         d.endpoints(&s.Endpoints),
		"depends_on":        d.list(&s.DependsOn, "source name"),

		"maintenance_reminder": typed(d, &s.MaintenanceReminder, &sm.maintenanceReminder, maintenanceReminder),
	}
	webhook, hook := d.secretKey(h, path, "webhook_url"), d.secretKey(h, path, "hook_token")
	if err := d.mapping(path, n, h); err != nil {
		return s, sm, err
	}
	s.WebhookURL, s.HookToken = d.secret(webhook, secretURL), d.secret(hook, hookToken)
	if s.Kind == "" {
		s.Kind = DefaultKind
	}
	d.checkEndpointNames(path, &s)
	return s, sm, nil
}

// checkEndpointNames refuses an endpoint name the source's platform does not have: a
// misspelled override would otherwise be ignored without a word. The names are the ones
// each platform declares with its adapter; a kind: auto source may name any platform's.
// Each unknown name is its own error, and the walk goes on.
func (d *decoder) checkEndpointNames(path string, s *Source) {
	if len(s.Endpoints) == 0 {
		return
	}
	known := fetch.EndpointNames(s.Kind)
	for _, name := range slices.Sorted(maps.Keys(s.Endpoints)) {
		if slices.Contains(known, name) {
			continue
		}
		ep := joinKey(path+".endpoints", name)
		platform := "of kind " + s.Kind
		if s.Kind == DefaultKind {
			platform = "of any platform"
		}
		d.fail(d.errorf(ep, d.lines[ep], "no endpoint %q %s%s; known: %s", name, platform, suggest(name, known), strings.Join(known, ", ")))
	}
}

// nameValue parses the name of a source or a receiver.
func nameValue(v string) (string, error) {
	if !sourceName.MatchString(v) {
		return "", fmt.Errorf("must match [a-z0-9][a-z0-9_-]*, found %q", v)
	}
	return v, nil
}

// components decodes a list of component names; a single value is not a list.
func (d *decoder) components(dst *[]string) handler { return d.list(dst, "component name") }

// list decodes a list of non-empty words (what names one, for its error) into dst.
func (d *decoder) list(dst *[]string, what string) handler {
	return func(path string, n *yaml.Node) error {
		out := []string{}
		err := d.each(path, n, func(ip string, item *yaml.Node) error {
			s, _, err := d.scalar(ip, item)
			if err != nil {
				return err
			}
			if s = strings.TrimSpace(s); s == "" {
				return d.errorf(ip, line(item, 0), "empty %s", what)
			}
			d.lines[ip] = line(item, d.lines[path]) // for the checks across keys
			out = append(out, s)
			return nil
		})
		if err == nil && !isNull(resolve(n)) {
			*dst = out
		}
		return err
	}
}

// checkDependsOn refuses a depends_on that names no other configured source: a
// misspelled name would otherwise relate nothing without a word.
func (d *decoder) checkDependsOn(cfg *Config, m *meta) {
	var names []string
	for i := range cfg.Sources {
		names = append(names, cfg.Sources[i].Name)
	}
	for i := range cfg.Sources {
		s := &cfg.Sources[i]
		for j, dep := range s.DependsOn {
			p := index(m.sources[i].path+".depends_on", j)
			switch {
			case dep == s.Name:
				d.fail(d.errorf(p, d.lines[p], "a source cannot depend on itself"))
			case !slices.Contains(names, dep):
				d.fail(d.errorf(p, d.lines[p], "no source named %q%s", dep, suggest(dep, names)))
			}
		}
	}
}

// headers decodes a source's extra request headers, whose values are secrets.
func (d *decoder) headers(dst *map[string]Secret) handler {
	return func(path string, n *yaml.Node) error {
		ps, err := d.pairs(path, n, nil)
		if err != nil {
			return err
		}
		out := make(map[string]Secret, len(ps))
		canon := map[string]string{}
		for _, p := range ps {
			hp := joinKey(path, p.key)
			if !validHeaderName(p.key) {
				d.fail(d.errorf(hp, p.keyLine, "not a valid HTTP header name"))
				continue
			}
			c := http.CanonicalHeaderKey(p.key)
			if first, dup := canon[c]; dup {
				d.fail(d.errorf(hp, p.keyLine, "same header as %s", first))
				continue
			}
			canon[c] = p.key
			v, _, err := d.scalar(hp, p.val)
			if err != nil {
				d.fail(err)
				continue
			}
			if hasControl(v) {
				d.fail(d.errorf(hp, line(p.val, p.keyLine), "must not contain control characters or line breaks"))
				continue
			}
			out[p.key] = NewSecret(v)
		}
		*dst = out
		return nil
	}
}

// endpoints decodes a source's endpoint overrides.
func (d *decoder) endpoints(dst *map[string]string) handler {
	return func(path string, n *yaml.Node) error {
		ps, err := d.pairs(path, n, nil)
		if err != nil {
			return err
		}
		out := make(map[string]string, len(ps))
		for _, p := range ps {
			ep := joinKey(path, p.key)
			if p.key == "" {
				return d.errorf(ep, p.keyLine, "empty endpoint name")
			}
			d.lines[ep] = p.keyLine
			v, _, err := d.scalar(ep, p.val)
			if err != nil {
				return err
			}
			if pr := checkURL(v, true); pr != "" {
				return d.errorf(ep, line(p.val, p.keyLine), "%s", pr)
			}
			out[p.key] = v
		}
		*dst = out
		return nil
	}
}

// hookTokenChars are the characters a hook token may hold: the unreserved characters of
// a URL path, so it goes into the hook's URL as it is.
var hookTokenChars = regexp.MustCompile(`^[A-Za-z0-9._~-]+$`)

// hookToken checks a source's hook_token: long enough not to be guessed (it is the only
// credential of a route a vendor calls from outside), and fit for a URL path. The
// message never holds the value.
func hookToken(v string) string {
	switch {
	case len(v) < 16:
		return "too short: use at least 16 characters (e.g. openssl rand -hex 16)"
	case !hookTokenChars.MatchString(v):
		return "may hold only letters, digits and . _ ~ - (it goes into a URL path)"
	}
	return ""
}
