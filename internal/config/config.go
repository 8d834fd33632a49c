// Package config loads and validates watcher's YAML configuration (every key is described
// in config.example.yaml) in one pass: defaults, then the file over them, then validation
// of every cron spec, URL, duration and cross-key rule, so that a bad config fails before
// anything starts, with every error it holds.
//
// Every error is one line naming the key and its line: `sources[2].schedule (line 14): …`.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch"
	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/notify"
	"github.com/statuswatch/statuswatch/internal/notify/route"
)

// Version is the watcher version put in the default User-Agent. cmd/watcher sets it before
// loading a config (or the build sets it with -ldflags "-X …/internal/config.Version=…").
var Version = "dev"

// ProjectURL is the project's home, named in the default User-Agent.
const ProjectURL = "https://github.com/statuswatch/statuswatch"

// The defaults of the config's keys, as config.example.yaml documents them. Those of the
// outbound client and of the Slack queue are the defaults of the packages that apply them.
const (
	DefaultListen            = "127.0.0.1:8080"
	DefaultSchedule          = "@every 2m"
	DefaultTimeout           = fetch.DefaultTimeout
	DefaultFailureThreshold  = 3
	DefaultMaxBody           = fetch.DefaultMaxBody
	DefaultConcurrency       = fetch.DefaultConcurrency
	DefaultPerHost           = fetch.DefaultPerHost
	DefaultRawSnapshots      = 90 * 24 * time.Hour
	DefaultCorrelationWindow = 30 * time.Minute
	MaxRawSnapshots          = 36500 * 24 * time.Hour // 100 years; 0 (forever) is how to keep more
	DefaultMaxQueueAge       = notify.DefaultMaxQueueAge
	DefaultKind              = "auto"
	DefaultOpenInterval      = 30 * time.Second
	DefaultDatabaseName      = "watcher.db"

	// DefaultMaintenanceReminder is how long before a scheduled window starts its
	// maintenance_soon reminder is sent; MaxMaintenanceReminder the longest accepted.
	DefaultMaintenanceReminder = time.Hour
	MaxMaintenanceReminder     = 30 * 24 * time.Hour
)

// Config is the whole configuration, with every default applied and every per-source value
// inherited from Defaults, so callers never check for "unset".
type Config struct {
	// Database is the bbolt archive file. Default: $STATE_DIRECTORY/watcher.db when systemd
	// sets STATE_DIRECTORY, else watcher.db beside the config file. A relative path is
	// taken relative to the config file's directory.
	Database string
	// Listen is the host:port of the web UI and JSON API; empty disables them.
	Listen string
	// BaseURL is the public URL of the UI, for links in Slack (no trailing slash); empty: no
	// links.
	BaseURL string
	// OnFirstPoll is what a source's first poll announces: archive.FirstPollOpen (still
	// open), archive.FirstPollNone or archive.FirstPollAll, the policies the archive
	// applies.
	OnFirstPoll string
	Defaults    Defaults    // what sources inherit (already applied to Sources)
	HTTP        HTTP        // the outbound client
	Web         Web         // the UI and API
	Retention   Retention   // pruning of raw payloads
	Correlation Correlation // related incidents across sources
	Slack       Slack       // notifications
	// Sources are the vendor pages, in file order.
	Sources []Source
	// Receivers are the destinations beyond the slack: block, in file order.
	Receivers []Receiver
	// Routes send each notification to receivers by what it is about; none sends
	// everything to Slack (or the console). See Route.
	Routes route.Table
	// Warnings are problems that do not stop the config, sorted by line, in the form of
	// errors: a secret file that others can read, a config without sources. `watcher
	// check` prints them and the daemon logs them at start.
	Warnings []*Error
}

// Defaults apply to every source that does not set its own value.
type Defaults struct {
	Schedule         string        // cron spec or @every; see ParseSchedule
	Timeout          time.Duration // per poll
	FailureThreshold int           // failed polls in a row before "cannot read" is posted
	Maintenance      bool          // read scheduled maintenance
	// ComponentChanges is whether component changes are told: archive.ComponentChangesNotify
	// (default) or archive.ComponentChangesArchive (versioned, never told).
	ComponentChanges string
	// OpenInterval is how often, at least, a source with an open incident is polled, on
	// top of its schedule (follow-ups within that long); 0: the schedule only.
	OpenInterval time.Duration
	// MaintenanceReminder is how long before a scheduled maintenance starts a
	// maintenance_soon reminder is sent in its thread; 0: none.
	MaintenanceReminder time.Duration
}

// HTTP configures the outbound client.
type HTTP struct {
	UserAgent   string // default: statuswatch/<Version> (+ProjectURL)
	MaxBody     int64  // bytes; longer bodies are a fetch failure
	Concurrency int    // polls in flight at once
	PerHost     int    // polls in flight per host:port
	CAFile      string // extra PEM CA bundle; empty: the system roots only
	PostQuantum bool   // offer the hybrid post-quantum key exchanges (X25519MLKEM768, …) too
}

// Web configures the UI and API served on Listen.
type Web struct {
	// Auth holds the credentials the UI and API accept.
	Auth Auth
	// AllowRemote allows a non-loopback Listen without Auth.
	AllowRemote bool
}

// Auth protects the UI, the API and /metrics (never /healthz). When both a bearer token and
// basic credentials are set, a request carrying either one is let in: scripts use the
// token, people the password.
type Auth struct {
	BearerToken Secret    // expected as "Authorization: Bearer <token>"
	Basic       BasicAuth // HTTP basic authentication
}

// Enabled reports whether any credential is set.
func (a Auth) Enabled() bool { return a.BearerToken.IsSet() || a.Basic.User != "" }

// BasicAuth is a user and password for HTTP basic authentication; both or neither are set.
type BasicAuth struct {
	User     string // empty: basic auth off
	Password Secret // required with User
}

// Retention says how long raw payloads are kept.
type Retention struct {
	// RawSnapshots is the age past which raw payloads are pruned; versions are always kept.
	// 0 keeps raw payloads forever.
	RawSnapshots time.Duration
}

// Correlation configures related incidents and cross-vendor events (docs/design.md,
// "Related incidents and events").
type Correlation struct {
	// Window is how far apart two incidents whose active windows do not overlap may
	// start and still be related.
	Window time.Duration
}

// Slack configures notifications. With neither Token nor WebhookURL set, notifications go to
// standard output.
type Slack struct {
	Token       Secret        // bot token: threads and edits
	WebhookURL  Secret        // incoming webhook: one message per change set
	Channel     string        // bot-token default channel
	APIURL      string        // Web API base ending in "/" (slack-go's OptionAPIURL); empty: Slack's
	MaxQueueAge time.Duration // older undelivered messages become one "N skipped" digest
}

// Source is one vendor status page, with its inherited values resolved.
type Source struct {
	Name             string            // [a-z0-9][a-z0-9_-]*, unique
	Title            string            // display name; empty: the page's own name, else Name
	URL              string            // absolute http(s)
	Kind             string            // "auto" or a provider kind
	Schedule         string            // see ParseSchedule
	Timeout          time.Duration     // per poll
	Paused           bool              // polled never; archive kept
	Components       []string          // notify only for incidents touching these (or none), and only of these components
	MinImpact        model.Impact      // notify only at or above this; empty: no filter
	Maintenance      bool              // read scheduled maintenance
	Channel          string            // Slack channel (bot token); empty: Slack.Channel
	WebhookURL       Secret            // this source's own incoming webhook
	FailureThreshold int               // failed polls in a row before "cannot read"
	ComponentChanges string            // archive.ComponentChangesNotify or archive.ComponentChangesArchive
	Headers          map[string]Secret // extra request headers
	Endpoints        map[string]string // endpoint name → URL, overriding derived ones
	OpenInterval     time.Duration     // poll at least this often while an incident is open; 0: the schedule only
	// MaintenanceReminder is how long before a scheduled window its reminder is sent;
	// 0: none.
	MaintenanceReminder time.Duration
	// HookToken is the secret of the source's push hook, POST
	// /api/v1/sources/{name}/hook/{token}; empty: the source has no hook.
	HookToken Secret
	DependsOn []string // the other sources this vendor runs on (related incidents)
}

// Model returns the view a provider adapter needs to poll the source, with header values
// unwrapped.
func (s *Source) Model() model.Source {
	m := model.Source{
		Name:        s.Name,
		Title:       s.Title,
		URL:         s.URL,
		Kind:        s.Kind,
		Maintenance: s.Maintenance,
	}
	if len(s.Endpoints) > 0 {
		m.Endpoints = make(map[string]string, len(s.Endpoints))
		for k, v := range s.Endpoints {
			m.Endpoints[k] = v
		}
	}
	if len(s.Headers) > 0 {
		m.Headers = make(map[string]string, len(s.Headers))
		for k, v := range s.Headers {
			m.Headers[k] = v.Value()
		}
	}
	return m
}

// Source returns the source named name, or nil.
func (c *Config) Source(name string) *Source {
	for i := range c.Sources {
		if c.Sources[i].Name == name {
			return &c.Sources[i]
		}
	}
	return nil
}

// SlackConfigured reports whether notifications go to Slack: a bot token or a global webhook
// URL is set. When it is false they go to standard output; a source's own webhook_url
// still routes that source to Slack.
func (c *Config) SlackConfigured() bool {
	return c.Slack.Token.IsSet() || c.Slack.WebhookURL.IsSet()
}

// DefaultUserAgent is the User-Agent sent when http.user_agent is empty.
func DefaultUserAgent() string {
	return "statuswatch/" + Version + " (+" + ProjectURL + ")"
}

// DefaultPath is the config file used when -config is not given: $WATCHER_CONFIG,
// else /etc/watcher/config.yaml if it exists, else ./config.yaml.
func DefaultPath() string {
	if p := os.Getenv("WATCHER_CONFIG"); p != "" {
		return p
	}
	const system = "/etc/watcher/config.yaml"
	if _, err := os.Stat(system); err == nil {
		return system
	}
	return "config.yaml"
}

// Load reads and parses the config file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("config %s: %v (start from config.example.yaml; -config or $WATCHER_CONFIG names another file)", path, err)
		}
		return nil, fmt.Errorf("config %s: %v", path, err)
	}
	return Parse(data, path)
}

// Parse parses and validates a config. path is where it was read from: relative paths in it
// (database, ca_file, *_file) and the default database are taken relative to its
// directory, and errors without a key name it. The returned error is an Errors holding
// every problem found (up to 100), each one line of the form `<key path> (line N):
// <problem>`, sorted by line; none contains a secret. Warnings of a config that loads are
// in its Warnings.
func Parse(data []byte, path string) (*Config, error) {
	d := &decoder{
		file:   path,
		dir:    ".",
		lines:  map[string]int{},
		budget: maxNodes,
	}
	if path == "" {
		d.file = "config"
	} else {
		d.dir = filepath.Dir(path)
	}
	return d.parse(data)
}

// defaultDatabase is where the archive lives when the config does not say.
func defaultDatabase(dir string) string {
	// systemd's StateDirectory= may list several directories, colon-separated: the first
	// is the unit's own.
	if sd, _, _ := strings.Cut(os.Getenv("STATE_DIRECTORY"), ":"); sd != "" {
		return filepath.Join(sd, DefaultDatabaseName)
	}
	return filepath.Join(dir, DefaultDatabaseName)
}
