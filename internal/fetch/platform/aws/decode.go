package aws

// The two AWS documents decoded: the RSS feed of rss/all.rss and the UTF-16 JSON of
// public/currentevents.

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/unicode"

	"github.com/statuswatch/statuswatch/internal/fetch/payload"
)

// ---- Decoding ----

// awsPost is one post, from an RSS item or a currentevents log entry.
type awsPost struct {
	service  string
	at       int64  // unix seconds: the guid's timestamp, else pubDate
	summary  string // the title after the level, without "[RESOLVED]"
	raw      string // the level as the vendor wrote it: title prefix, or the number
	level    int    // 0 normal … 3 disruption; -1 unknown
	resolved bool
	body     string // HTML
	rss      bool   // from the RSS feed
}

// awsFeed is the decoded RSS feed.
type awsFeed struct {
	title string
	posts []awsPost
}

// decodeAWSRSS parses all.rss with gofeed. An item without a guid (or whose guid is not
// "…#<service>_<unix>" and that has no readable pubDate) is malformed: without it, a post
// cannot be placed in an incident.
func decodeAWSRSS(body []byte) (*awsFeed, error) {
	f, err := payload.ParseStatusFeed(body)
	if err != nil {
		return nil, err
	}
	out := &awsFeed{title: strings.TrimSpace(f.Title), posts: make([]awsPost, 0, len(f.Items))}
	for i, it := range payload.FeedItems(f) {
		guid := strings.TrimSpace(it.GUID)
		if guid == "" {
			return nil, fmt.Errorf("%w: item [%d] has no guid", payload.ErrMalformed, i)
		}
		service, at := awsSplitGUID(guid)
		if at == 0 && it.PublishedParsed != nil {
			at = it.PublishedParsed.Unix()
		}
		if service == "" || at <= 0 {
			return nil, fmt.Errorf("%w: item [%d] guid %q: want …#<service>_<unix time>", payload.ErrMalformed, i, guid)
		}
		p := awsPost{service: service, at: at, body: it.Description, rss: true}
		p.raw, p.summary = awsSplitTitle(it.Title)
		p.level, p.resolved = awsTitleLevel(p.raw, p.summary)
		p.summary = awsStripResolved(p.summary)
		out.posts = append(out.posts, p)
	}
	return out, nil
}

// awsSplitGUID splits "https://status.aws.amazon.com/#ec2-us-east-1_1787025679" into
// "ec2-us-east-1" and 1787025679. A guid without a "_<unix>" suffix is all service, at 0.
func awsSplitGUID(guid string) (string, int64) {
	if i := strings.LastIndexByte(guid, '#'); i >= 0 {
		guid = guid[i+1:]
	}
	if i := strings.LastIndexByte(guid, '_'); i > 0 {
		if n, err := strconv.ParseInt(guid[i+1:], 10, 64); err == nil && n > 0 {
			return guid[:i], n
		}
	}
	return guid, 0
}

// awsSplitTitle splits "Service disruption: Increased Error Rates" at its first ": ".
func awsSplitTitle(title string) (level, summary string) {
	title = strings.TrimSpace(title)
	if l, s, ok := strings.Cut(title, ": "); ok {
		return strings.TrimSpace(l), strings.TrimSpace(s)
	}
	return "", title
}

// awsTitleLevel reads the level of an RSS title prefix; see the table on AWS.
func awsTitleLevel(prefix, summary string) (level int, resolved bool) {
	resolved = hasPrefixFold(summary, "[resolved]")
	switch strings.ToLower(prefix) {
	case "service is operating normally":
		return 0, true
	case "informational message", "service impact":
		return 1, resolved
	case "performance issues", "service degradation", "degraded performance":
		return 2, resolved
	case "service disruption", "service outage":
		return 3, resolved
	}
	return -1, resolved
}

func awsStripResolved(s string) string {
	if hasPrefixFold(s, "[resolved]") {
		return strings.TrimSpace(s[len("[resolved]"):])
	}
	return s
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// awsEvent is one open event of currentevents; only the fields we use.
type awsEvent struct {
	Date             awsNumber              `json:"date"`
	Service          string                 `json:"service"`
	Summary          string                 `json:"summary"`
	Status           awsNumber              `json:"status"`
	EventLog         []awsLogEntry          `json:"event_log"`
	ImpactedServices map[string]jsonIgnored `json:"impacted_services"`
}

type awsLogEntry struct {
	Summary   string    `json:"summary"`
	Message   string    `json:"message"`
	Status    awsNumber `json:"status"`
	Timestamp awsNumber `json:"timestamp"`
}

// jsonIgnored decodes any JSON value into nothing: of the impacted services we keep only
// their keys.
type jsonIgnored struct{}

// UnmarshalJSON implements json.Unmarshaler.
func (jsonIgnored) UnmarshalJSON([]byte) error { return nil }

// awsNumber reads a number sent as a JSON number or a string ("date": "1772369485",
// "timestamp": 1772369485); anything else, or unreadable, is -1.
type awsNumber int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *awsNumber) UnmarshalJSON(b []byte) error {
	*n = -1
	s := string(bytes.Trim(b, `"`))
	if v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
		*n = awsNumber(v)
	} else if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && f >= 0 && f < 1e15 {
		*n = awsNumber(f)
	}
	return nil
}

// awsUTF8 returns the body as UTF-8: UTF-16 (big or little endian) with a byte-order
// mark, as currentevents is served, is converted; so is UTF-16 without a mark, told by
// its NUL bytes; UTF-8 passes (its mark dropped).
func awsUTF8(body []byte) ([]byte, error) {
	enc := unicode.UTF8BOM
	switch {
	case bytes.HasPrefix(body, []byte{0xfe, 0xff}), bytes.HasPrefix(body, []byte{0xff, 0xfe}):
		enc = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	case len(body) >= 2 && body[0] == 0 && body[1] != 0:
		enc = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	case len(body) >= 2 && body[0] != 0 && body[1] == 0:
		enc = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", payload.ErrMalformed, err)
	}
	return out, nil
}

// decodeAWSCurrentEvents decodes currentevents: a JSON array of open events, each with a
// service. An empty array is a healthy dashboard.
func decodeAWSCurrentEvents(contentType string, body []byte) ([]awsEvent, error) {
	u, err := awsUTF8(body)
	if err != nil {
		return nil, err
	}
	var events []awsEvent
	if err := payload.DecodeJSONArray(contentType, u, &events); err != nil {
		return nil, err
	}
	return events, payload.Require(events, "event [%d] has no service", func(ev *awsEvent) bool { return strings.TrimSpace(ev.Service) != "" })
}

// posts returns the event's log as posts, and its start: the date, else its oldest post.
func (ev *awsEvent) posts() ([]awsPost, int64) {
	service := strings.TrimSpace(ev.Service)
	out := make([]awsPost, 0, len(ev.EventLog))
	start := int64(ev.Date)
	for _, e := range ev.EventLog {
		if e.Timestamp <= 0 {
			continue
		}
		at := int64(e.Timestamp)
		if at > 1e11 { // milliseconds
			at /= 1000
		}
		level := int(e.Status)
		if level < 0 || level > 3 {
			level = -1
		}
		summary := strings.TrimSpace(e.Summary)
		if summary == "" {
			summary = strings.TrimSpace(ev.Summary)
		}
		p := awsPost{service: service, at: at, level: level, resolved: level == 0, body: e.Message}
		if e.Status >= 0 {
			p.raw = strconv.FormatInt(int64(e.Status), 10)
		}
		p.summary = awsStripResolved(summary)
		out = append(out, p)
		if start <= 0 || at < start {
			start = at
		}
	}
	return out, start
}
