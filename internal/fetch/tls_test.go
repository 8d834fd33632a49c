package fetch

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Without PostQuantum the one key share sent is X25519's, and a server that prefers the
// hybrid (Go's, by default) takes it without asking again; with it, the hybrid is used.
func TestKeyExchange(t *testing.T) {
	var mu sync.Mutex
	var curve tls.CurveID
	var retried bool
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		curve, retried = r.TLS.CurveID, r.TLS.HelloRetryRequest
		mu.Unlock()
		w.Write([]byte("{}"))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	for _, tc := range []struct {
		postQuantum bool
		want        tls.CurveID
	}{{false, tls.X25519}, {true, tls.X25519MLKEM768}} {
		c := mustClient(t, ClientOptions{Concurrency: 1, PerHost: 1, CAFile: caFile(t, srv), PostQuantum: tc.postQuantum})
		if _, err := c.Get(context.Background(), srv.URL, model.EndpointState{}, nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if curve != tc.want || retried {
			t.Errorf("PostQuantum %v: key exchange %v, HelloRetryRequest %v; want %v without a retry", tc.postQuantum, curve, retried, tc.want)
		}
		mu.Unlock()
	}
}

// Through an HTTPS proxy (CONNECT) the transport runs TLS itself over the tunnel, not
// through the pool's own TLS dial: the page is still read, and through the proxy.
func TestHTTPSThroughProxy(t *testing.T) {
	srv, cc := etagServer(t, true, false)
	var mu sync.Mutex
	var tunnels []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		mu.Lock()
		tunnels = append(tunnels, r.Host)
		mu.Unlock()
		up, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		down, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			up.Close()
			return
		}
		go func() { io.Copy(up, down); up.Close() }()
		io.Copy(down, up)
		down.Close()
	}))
	defer proxy.Close()
	c := mustClient(t, ClientOptions{Concurrency: 1, PerHost: 1, CAFile: caFile(t, srv)})
	proxyURL, _ := url.Parse(proxy.URL)
	c.hc.Transport.(*http.Transport).Proxy = http.ProxyURL(proxyURL)
	warmPolls(t, c, srv.URL, 2)
	mu.Lock()
	defer mu.Unlock()
	if _, _, requests, _ := cc.snapshot(); len(tunnels) != 1 || tunnels[0] != srv.Listener.Addr().String() || requests != 2 {
		t.Errorf("tunnels %v, %d requests at the page; want one tunnel to %s carrying both", tunnels, requests, srv.Listener.Addr())
	}
}
