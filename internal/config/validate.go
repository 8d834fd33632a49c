package config

import (
	"crypto/x509"
	"net"
	"strconv"
	"strings"
)

// finish applies defaults and inheritance and checks the rules that span keys. It records
// each broken rule and goes on with the next.
func (d *decoder) finish(cfg *Config, m *meta) error {
	if cfg.Database == "" {
		cfg.Database = defaultDatabase(d.dir)
	}
	if cfg.HTTP.UserAgent == "" {
		cfg.HTTP.UserAgent = DefaultUserAgent()
	} else if hasControl(cfg.HTTP.UserAgent) {
		d.fail(d.errorf("http.user_agent", d.lines["http.user_agent"], "must not contain control characters"))
	}
	for i := range cfg.Sources {
		s, sm, df := &cfg.Sources[i], m.sources[i], &cfg.Defaults
		inherit(&s.Schedule, sm.schedule, df.Schedule)
		inherit(&s.Timeout, sm.timeout, df.Timeout)
		inherit(&s.FailureThreshold, sm.failureThreshold, df.FailureThreshold)
		inherit(&s.Maintenance, sm.maintenance, df.Maintenance)
		inherit(&s.ComponentChanges, sm.componentChanges, df.ComponentChanges)
		inherit(&s.OpenInterval, sm.openInterval, df.OpenInterval)
		inherit(&s.MaintenanceReminder, sm.maintenanceReminder, df.MaintenanceReminder)
	}

	if cfg.BaseURL != "" {
		if p := checkURL(cfg.BaseURL, true); p != "" {
			d.fail(d.errorf("base_url", d.lines["base_url"], "%s", p))
		}
		cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}

	d.fail(d.checkListen(cfg))
	if b := cfg.Web.Auth.Basic; b.User != "" && !b.Password.IsSet() {
		if p := "web.auth.basic.user"; !d.failedAt("web.auth.basic.password") {
			d.fail(d.errorf(p, d.lines[p], "needs web.auth.basic.password (or password_file)"))
		}
	} else if b.User == "" && b.Password.IsSet() {
		p := "web.auth.basic.password"
		if _, ok := d.lines[p]; !ok {
			p = "web.auth.basic.password_file"
		}
		d.fail(d.errorf(p, d.lines[p], "needs web.auth.basic.user"))
	}

	if f := cfg.HTTP.CAFile; f != "" {
		data, err := readFile(f, maxCAFile)
		if err != nil {
			d.fail(d.errorf("http.ca_file", d.lines["http.ca_file"], "%s", fileError(err)))
		} else if !x509.NewCertPool().AppendCertsFromPEM(data) {
			d.fail(d.errorf("http.ca_file", d.lines["http.ca_file"], "%s holds no PEM certificate", f))
		}
	}

	if len(cfg.Sources) == 0 {
		at, ok := d.lines["sources"]
		where := "sources"
		if !ok {
			where = d.file
		}
		d.warn(where, at, "no sources: nothing will be polled (add vendor pages under sources:, see config.example.yaml)")
	}

	d.fail(d.checkSlack(cfg, m))
	d.checkRoutes(cfg, m)
	d.checkDependsOn(cfg, m)
	return nil
}

// inherit gives a source's key the value of defaults: unless the source set it.
func inherit[T any](dst *T, set bool, def T) {
	if !set {
		*dst = def
	}
}

// checkListen checks listen, and refuses to serve beyond loopback without web.auth unless
// web.allow_remote says so: without credentials the UI, the API and the backup are for this
// machine only.
func (d *decoder) checkListen(cfg *Config) error {
	if cfg.Listen == "" {
		return nil
	}
	at := d.lines["listen"]
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return d.errorf("listen", at, "must be host:port, found %q", cfg.Listen)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return d.errorf("listen", at, "port must be a number from 0 to 65535, found %q", port)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || ip != nil && ip.IsLoopback()
	if !loopback && !cfg.Web.Auth.Enabled() && !cfg.Web.AllowRemote {
		return d.errorf("listen", at, "%s is reachable beyond this machine: set web.auth, or web.allow_remote: true", cfg.Listen)
	}
	return nil
}

func (d *decoder) checkSlack(cfg *Config, m *meta) error {
	s := &cfg.Slack
	if s.Token.IsSet() && s.WebhookURL.IsSet() {
		p := "slack.webhook_url"
		if _, ok := d.lines[p]; !ok {
			p = "slack.webhook_url_file"
		}
		return d.errorf(p, d.lines[p], "set either slack.token or slack.webhook_url, not both")
	}
	needDefault := false
	for i := range cfg.Sources {
		src := &cfg.Sources[i]
		sp := m.sources[i].path
		if src.Channel != "" && src.WebhookURL.IsSet() {
			d.fail(d.errorf(sp+".channel", d.lines[sp+".channel"], "set either channel or webhook_url, not both"))
		} else if src.Channel != "" && !m.slackTokenKey {
			// Without a token key the channel could never be used. A token key that is
			// present but empty (an unset ${SLACK_BOT_TOKEN}) is fine: that is console mode.
			d.fail(d.errorf(sp+".channel", d.lines[sp+".channel"], "needs slack.token (a bot token); a webhook posts to its own channel"))
		}
		if src.Channel == "" && !src.WebhookURL.IsSet() && !d.failedAt(sp+".webhook_url") && !d.failedAt(sp+".channel") {
			// A webhook or channel with an error of its own is no sign of wanting the
			// default channel.
			needDefault = true
		}
	}
	if s.Token.IsSet() && s.Channel == "" && needDefault {
		return d.errorf("slack.channel", d.lines["slack"], "required with slack.token, unless every source sets its own channel")
	}
	return nil
}
