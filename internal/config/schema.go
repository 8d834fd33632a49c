package config

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/statuswatch/statuswatch/internal/archive"
)

// meta is what the walk remembers of the config beyond the values themselves.
type meta struct {
	slackTokenKey bool // slack.token or slack.token_file is present, even if empty
	sources       []sourceMeta
	routes        []routeMeta
}

// sourceMeta records which inheritable keys a source set itself.
type sourceMeta struct {
	schedule, timeout, failureThreshold, maintenance, componentChanges bool
	openInterval                                                       bool
	maintenanceReminder                                                bool

	path string // "sources[i]"
}

// root decodes the top-level mapping.
func (d *decoder) root(cfg *Config, m *meta, n *yaml.Node) error {
	df, h := &cfg.Defaults, &cfg.HTTP
	return d.mapping("", n, map[string]handler{
		"database": func(path string, v *yaml.Node) error {
			s, set, err := d.scalar(path, v)
			if set && s != "" {
				cfg.Database = d.path(s)
			}
			return err
		},
		"listen":        d.str(&cfg.Listen),
		"base_url":      d.str(&cfg.BaseURL),
		"on_first_poll": typed(d, &cfg.OnFirstPoll, nil, oneOf(archive.FirstPollOpen, archive.FirstPollNone, archive.FirstPollAll)),
		"defaults": d.block(map[string]handler{
			"schedule":          typed(d, &df.Schedule, nil, schedule),
			"timeout":           typed(d, &df.Timeout, nil, positiveDuration),
			"failure_threshold": typed(d, &df.FailureThreshold, nil, atLeast(1)),
			"maintenance":       typed(d, &df.Maintenance, nil, parseBool),
			"component_changes": typed(d, &df.ComponentChanges, nil, componentChanges),
			"open_interval":     typed(d, &df.OpenInterval, nil, openInterval),

			"maintenance_reminder": typed(d, &df.MaintenanceReminder, nil, maintenanceReminder),
		}),
		"http": d.block(map[string]handler{
			"user_agent": d.str(&h.UserAgent),
			"max_body": typed(d, &h.MaxBody, nil, func(s string) (int64, error) {
				n, err := ParseSize(s)
				if err == nil && n < 1 {
					err = fmt.Errorf("must be above 0, found %s", s)
				}
				return n, err
			}),
			"concurrency":  typed(d, &h.Concurrency, nil, atLeast(1)),
			"per_host":     typed(d, &h.PerHost, nil, atLeast(1)),
			"post_quantum": typed(d, &h.PostQuantum, nil, parseBool),
			"ca_file": func(path string, v *yaml.Node) error {
				s, _, err := d.scalar(path, v)
				h.CAFile = d.path(s)
				return err
			},
		}),
		"web": func(path string, v *yaml.Node) error {
			return d.web(cfg, path, v)
		},
		"retention": d.block(map[string]handler{
			"raw_snapshots": typed(d, &cfg.Retention.RawSnapshots, nil, func(s string) (time.Duration, error) {
				v, err := ParseDuration(s)
				switch {
				case err == nil && v < 0:
					err = fmt.Errorf("must not be negative, found %s (0 keeps raw snapshots forever)", s)
				case err == nil && v > MaxRawSnapshots:
					err = fmt.Errorf("must be at most 36500d (100 years), found %s (0 keeps raw snapshots forever)", s)
				}
				return v, err
			}),
		}),
		"correlation": d.block(map[string]handler{
			"window": typed(d, &cfg.Correlation.Window, nil, func(s string) (time.Duration, error) {
				v, err := ParseDuration(s)
				if err == nil && (v < 0 || v > 7*24*time.Hour) {
					err = fmt.Errorf("must be between 0 and 7d, found %s", s)
				}
				return v, err
			}),
		}),
		"slack": func(path string, v *yaml.Node) error {
			return d.slack(cfg, m, path, v)
		},
		"sources": func(path string, v *yaml.Node) error {
			return d.sources(cfg, m, path, v)
		},
		"receivers": func(path string, v *yaml.Node) error {
			return d.receivers(cfg, path, v)
		},
		"routes": func(path string, v *yaml.Node) error {
			return d.routes(cfg, m, path, v)
		},
	})
}

func (d *decoder) web(cfg *Config, path string, n *yaml.Node) error {
	w := &cfg.Web
	basic := map[string]handler{"user": d.str(&w.Auth.Basic.User)}
	password := d.secretKey(basic, path+".auth.basic", "password")
	auth := map[string]handler{"basic": d.block(basic)}
	bearer := d.secretKey(auth, path+".auth", "bearer_token")
	err := d.mapping(path, n, map[string]handler{
		"auth":         d.block(auth),
		"allow_remote": typed(d, &w.AllowRemote, nil, parseBool),
	})
	if err != nil {
		return err
	}
	w.Auth.BearerToken, w.Auth.Basic.Password = d.secret(bearer, nil), d.secret(password, nil)
	if hasControl(w.Auth.Basic.User) || strings.Contains(w.Auth.Basic.User, ":") {
		p := path + ".auth.basic.user"
		return d.errorf(p, d.lines[p], "must not contain a colon or control characters")
	}
	return nil
}

func (d *decoder) slack(cfg *Config, m *meta, path string, n *yaml.Node) error {
	s := &cfg.Slack
	h := map[string]handler{
		"channel": d.str(&s.Channel),
		"api_url": typed(d, &s.APIURL, nil, func(v string) (string, error) {
			if _, err := urlValue(v); err != nil {
				return "", err
			}
			// slack-go joins method names onto it directly: it must end in a slash.
			if !strings.HasSuffix(v, "/") {
				v += "/"
			}
			return v, nil
		}),
		"max_queue_age": typed(d, &s.MaxQueueAge, nil, positiveDuration),
	}
	token, webhook := d.secretKey(h, path, "token"), d.secretKey(h, path, "webhook_url")
	if err := d.mapping(path, n, h); err != nil {
		return err
	}
	s.Token = d.secret(token, nil)
	m.slackTokenKey = token.valPresent
	s.WebhookURL = d.secret(webhook, secretURL)
	return nil
}
