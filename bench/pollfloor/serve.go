package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/internal/cputime"
)

// The pages of -reconnect are served by a child process of this same binary
// (-serve-child), so that the client's getrusage is the client's alone, as the daemon's
// figures are (the fleet's servers run in the benchmark process, not the daemon's). Its
// hosts are 127.3.x.y (Linux routes all of 127.0.0.0/8 to lo; the fleet uses 127.1.x.y),
// each its own address with its own ECDSA P-256 certificate signed by a CA made at start,
// HTTP/2 offered under TLS, as the fleet's: what differs is only the answer, a 304 to
// If-None-Match with the page's ETag (the warm polls measured) and else a small 200.

const pageETag = `"pollfloor-v1"`

// serveStats are what the child counted, summed over its hosts.
type serveStats struct {
	cpu                                time.Duration
	conns, handshakes, resumed, h1, h2 int
}

// serveChild serves hosts pages (over TLS if useTLS) whose servers close connections idle
// for idle, writes their URLs as `url:` lines into dir/hosts.yaml (and the CA into
// dir/ca.pem), says "ready" on stdout, then answers each line "stats" on stdin with its
// CPU since it started and its counts since the last one, and exits at the end of stdin.
func serveChild(hosts int, useTLS bool, idle time.Duration, dir string) error {
	var mu sync.Mutex
	var st serveStats
	count := func(f func()) { mu.Lock(); f(); mu.Unlock() }
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		count(func() {
			if r.ProtoMajor == 2 {
				st.h2++
			} else {
				st.h1++
			}
		})
		w.Header().Set("ETag", pageETag)
		if r.Header.Get("If-None-Match") == pageETag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprint(w, `{"page":{"name":"pollfloor"},"incidents":[]}`)
	})
	var ca *x509.Certificate
	var caKey *ecdsa.PrivateKey
	if useTLS {
		var err error
		if ca, caKey, err = newCA(dir); err != nil {
			return err
		}
	}
	var urls strings.Builder
	for i := range hosts {
		a := i + 1
		ip := net.IPv4(127, byte(3+a>>16), byte(a>>8), byte(a))
		ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: handler, IdleTimeout: idle, ReadHeaderTimeout: 10 * time.Second,
			ConnState: func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					count(func() { st.conns++ })
				}
			}}
		if !useTLS {
			fmt.Fprintf(&urls, "url: http://%s\n", ln.Addr())
			go srv.Serve(ln)
			continue
		}
		cert, err := leaf(ca, caKey, int64(i+2), ip)
		if err != nil {
			return err
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
			// Called once per handshake, full or resumed.
			VerifyConnection: func(cs tls.ConnectionState) error {
				count(func() {
					st.handshakes++
					if cs.DidResume {
						st.resumed++
					}
				})
				return nil
			}}
		fmt.Fprintf(&urls, "url: https://%s\n", ln.Addr())
		// ServeTLS offers HTTP/2 (ALPN h2) beside HTTP/1.1.
		go srv.ServeTLS(ln, "", "")
	}
	if err := os.WriteFile(filepath.Join(dir, "hosts.yaml"), []byte(urls.String()), 0o600); err != nil {
		return err
	}
	fmt.Println("ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		mu.Lock()
		s := st
		st = serveStats{}
		mu.Unlock()
		fmt.Printf("%d %d %d %d %d %d\n", cputime.Process(), s.conns, s.handshakes, s.resumed, s.h1, s.h2)
	}
	return sc.Err()
}

// newCA makes the hosts' certificate authority and writes its certificate to dir/ca.pem.
func newCA(dir string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "pollfloor CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	pemData := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return cert, key, os.WriteFile(filepath.Join(dir, "ca.pem"), pemData, 0o600)
}

// leaf is a host's own certificate for its address, with its own key, as a vendor has.
func leaf(ca *x509.Certificate, caKey *ecdsa.PrivateKey, serial int64, ip net.IP) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: ip.String()}, IPAddresses: []net.IP{ip},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
