package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest/fakehttp"
	"github.com/statuswatch/statuswatch/internal/model"
)

// scriptedTransport answers each URL with a redirect or a small body, without any
// network: the names in these tests must never be dialled.
type scriptedTransport struct {
	redirects map[string]string // URL -> Location
	mu        sync.Mutex
	got       []*http.Request
}

func (t *scriptedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	t.got = append(t.got, r)
	t.mu.Unlock()
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}")), Request: r}
	if loc, ok := t.redirects[r.URL.String()]; ok {
		resp.StatusCode = http.StatusFound
		resp.Header.Set("Location", loc)
	}
	return resp, nil
}

func (t *scriptedTransport) requests() []*http.Request {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*http.Request(nil), t.got...)
}

// fakeResolver answers the names of the tests; anything else does not resolve.
func fakeResolver(names map[string]string) resolver {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := names[host]; ok {
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		}
		return nil, &url.Error{Op: "lookup", URL: host, Err: io.EOF}
	}
}

func TestRedirectDowngradeDropsHeaders(t *testing.T) {
	tr := &scriptedTransport{redirects: map[string]string{
		"https://status.example.test/api": "http://status.example.test/api",
	}}
	c := mustClient(t, ClientOptions{UserAgent: "ua-test", Transport: tr})
	c.resolve = fakeResolver(map[string]string{"status.example.test": "203.0.113.7"})
	if _, err := c.Get(context.Background(), "https://status.example.test/api", model.EndpointState{}, map[string]string{"X-Api-Key": "secret"}); err != nil {
		t.Fatal(err)
	}
	reqs := tr.requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d requests, want 2", len(reqs))
	}
	if got := reqs[0].Header.Get("X-Api-Key"); got != "secret" {
		t.Errorf("https request: got X-Api-Key %q, want secret", got)
	}
	if got, ua := reqs[1].Header.Get("X-Api-Key"), reqs[1].Header.Get("User-Agent"); got != "" || ua != "ua-test" {
		t.Errorf("after the downgrade to http: got X-Api-Key %q, User-Agent %q; want none, ua-test", got, ua)
	}
}

func TestRedirectIntoInternalNetworks(t *testing.T) {
	names := map[string]string{
		"status.example.test":   "203.0.113.7",
		"other.example.test":    "198.51.100.9",
		"metadata.example.test": "169.254.169.254",
		"rebind.example.test":   "127.0.0.1",
		"corp.example.test":     "10.1.2.3",
		"corp2.example.test":    "10.9.9.9",
	}
	tests := []struct {
		name, source, target string
		refused              bool
	}{
		{"public to loopback", "http://status.example.test/api", "http://127.0.0.1:8080/api/v1/backup", true},
		{"public to localhost", "http://status.example.test/api", "http://localhost:8080/api/v1/backup", true},
		{"public to a name on loopback", "http://status.example.test/api", "http://rebind.example.test/", true},
		{"public to metadata", "http://status.example.test/api", "http://169.254.169.254/latest/meta-data/", true},
		{"public to a name on metadata", "http://status.example.test/api", "http://metadata.example.test/", true},
		{"public to IPv6 loopback", "http://status.example.test/api", "http://[::1]:8080/", true},
		{"public to IPv4-mapped loopback", "http://status.example.test/api", "http://[::ffff:127.0.0.1]:8080/", true},
		{"public to 0.0.0.0", "http://status.example.test/api", "http://0.0.0.0:8080/", true},
		{"public to private", "http://status.example.test/api", "http://10.0.0.5/", true},
		{"public to IPv6 link-local", "http://status.example.test/api", "http://[fe80::1]/", true},
		{"public to public", "http://status.example.test/api", "http://other.example.test/api", false},
		{"loopback to loopback", "http://127.0.0.1:9000/api", "http://localhost:9001/api", false},
		{"private to private", "http://corp.example.test/api", "http://corp2.example.test/api", false},
		{"private to loopback", "http://corp.example.test/api", "http://127.0.0.1/", true},
		{"private to public", "http://corp.example.test/api", "http://other.example.test/", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &scriptedTransport{redirects: map[string]string{tt.source: tt.target}}
			c := mustClient(t, ClientOptions{Transport: tr})
			c.resolve = fakeResolver(names)
			_, err := c.Get(context.Background(), tt.source, model.EndpointState{}, nil)
			n := len(tr.requests())
			if tt.refused {
				if err == nil || !strings.Contains(err.Error(), "refused") || n != 1 {
					t.Errorf("got error %v after %d requests, want the redirect refused after 1", err, n)
				}
				return
			}
			if err != nil || n != 2 {
				t.Errorf("got error %v after %d requests, want the redirect followed", err, n)
			}
		})
	}
}

// TestRedirectRebindingIsRefusedAtDial: a redirect target whose name resolved to a public
// address when the redirect was checked, and to loopback when it is dialled, is refused at
// the dial, before any request reaches it. Polls and detection read on the same request
// path, so both are guarded.
func TestRedirectRebindingIsRefusedAtDial(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func(c *Client, u string) error
	}{
		{"poll", func(c *Client, u string) error {
			_, err := c.Get(context.Background(), u, model.EndpointState{}, nil)
			return err
		}},
		{"detection", func(c *Client, u string) error {
			_, err := (&Detector{Client: c, HostRules: noRules}).Detect(context.Background(), u)
			if errors.Is(err, ErrNotDetected) {
				return nil // read, and recognised as nothing
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var canaryHits atomic.Int64
			canary := fakehttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				canaryHits.Add(1)
				w.Write([]byte("{}"))
			}))
			origin := fakehttp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://rebind.example.test/api", http.StatusFound)
			}))
			// Every name is dialled on loopback: no traffic leaves the machine. The resolver
			// the redirect check asks says the names are public.
			routes := map[string]string{
				"status.example.test:80": strings.TrimPrefix(origin.URL, "http://"),
				"rebind.example.test:80": strings.TrimPrefix(canary.URL, "http://"),
			}
			var d net.Dialer
			dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
				to, ok := routes[addr]
				if !ok {
					return nil, fmt.Errorf("test dialer: no route to %s", addr)
				}
				return d.DialContext(ctx, network, to)
			}
			c := mustClient(t, ClientOptions{dial: dial})
			c.resolve = fakeResolver(map[string]string{"status.example.test": "203.0.113.7", "rebind.example.test": "203.0.113.8"})

			err := tc.read(c, "http://status.example.test/api")
			if err == nil || !strings.Contains(err.Error(), "refused") {
				t.Errorf("got %v, want the redirect refused at the dial", err)
			}
			if n := canaryHits.Load(); n != 0 {
				t.Errorf("the loopback canary got %d requests, want 0", n)
			}

			// The source's own dial is not a redirect's: a page served from loopback is read.
			routes["status.example.test:80"] = strings.TrimPrefix(canary.URL, "http://")
			c = mustClient(t, ClientOptions{dial: dial}) // no pooled connection to the origin
			c.resolve = fakeResolver(map[string]string{"status.example.test": "203.0.113.7"})
			if err := tc.read(c, "http://status.example.test/api"); err != nil {
				t.Errorf("direct request: got %v, want it read", err)
			}
			if canaryHits.Load() == 0 {
				t.Error("direct request: the page was not read")
			}
		})
	}
}
