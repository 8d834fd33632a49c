// Package fakesmtp is an in-process SMTP server on loopback, for tests of the email
// receiver and end-to-end tests of the daemon. It is emersion/go-smtp's server with a
// recording backend: EHLO, STARTTLS (with a certificate of its own, whose CA Pool
// gives), AUTH PLAIN, MAIL, RCPT and DATA, bounded in message size, recipients and
// time. It records every message accepted, and answers with programmable faults: a
// 4xx or 5xx reply to one command, or a dropped connection.
package fakesmtp

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/statuswatch/statuswatch/internal/fakefault"
)

// MaxBytes is the largest message the server takes.
const MaxBytes = 4 << 20

// Options configure a Server.
type Options struct {
	// Username and Password, when Username is set, are the only credentials AUTH PLAIN
	// accepts, and MAIL is refused (530) until a client logs in.
	Username, Password string
	// NoTLS offers no STARTTLS. Otherwise STARTTLS is offered and, unless AllowPlain,
	// required before AUTH and MAIL.
	NoTLS      bool
	AllowPlain bool
	// Now stamps each Message; nil means time.Now.
	Now func() time.Time
}

// Message is one message the server accepted.
type Message struct {
	From string
	To   []string
	// Data is the message as sent after DATA.
	Data []byte
	// TLS reports whether the session was encrypted (STARTTLS); User is who logged in.
	TLS  bool
	User string
	At   time.Time
}

// Header is the message's header, parsed; nil when it cannot be read.
func (m Message) Header() mail.Header {
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		return nil
	}
	return msg.Header
}

// Parts returns the decoded bodies of a message by content type ("text/plain",
// "text/html"): one multipart level, quoted-printable and base64 undone.
func (m Message) Parts() (map[string]string, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(mt, "multipart/") {
		b, err := decode(msg.Body, msg.Header.Get("Content-Transfer-Encoding"))
		out[mt] = b
		return out, err
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for range 16 {
		p, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err
		}
		pt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		b, err := decode(p, p.Header.Get("Content-Transfer-Encoding"))
		if err != nil {
			return out, err
		}
		out[pt] = b
	}
	return out, nil
}

func decode(r io.Reader, enc string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r)
	}
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes))
	return string(b), err
}

// Fault is a reply to inject instead of the normal one.
type Fault struct {
	// Command is the command it answers: "MAIL", "RCPT", "DATA" or "AUTH".
	Command string
	// Code and Message are the reply, e.g. 451 "try again later", 550 "no such user",
	// 552 "message too big", 535 "authentication failed". A Code of 0 drops the
	// connection instead.
	Code    int
	Message string
}

// Server is a fake SMTP server. Its methods are safe for concurrent use.
type Server struct {
	o    Options
	srv  *smtp.Server
	ln   net.Listener
	pool *x509.CertPool
	cert *x509.Certificate

	mu       sync.Mutex
	messages []Message
	faults   fakefault.Queue[Fault]
	done     chan struct{}
}

// New starts a Server on a loopback port. Close it when done.
func New(o Options) (*Server, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{o: o, done: make(chan struct{})}
	srv := smtp.NewServer(s)
	srv.Domain = "fakesmtp.test"
	srv.MaxMessageBytes = MaxBytes
	srv.MaxRecipients = 50
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.AllowInsecureAuth = o.NoTLS || o.AllowPlain
	if !o.NoTLS {
		cert, pool, err := selfSigned()
		if err != nil {
			return nil, err
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.pool, s.cert = pool, cert.Leaf
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.srv, s.ln = srv, ln
	go func() {
		defer close(s.done)
		_ = srv.Serve(ln)
	}()
	return s, nil
}

// Close stops the server and waits for it.
func (s *Server) Close() {
	_ = s.srv.Close()
	// The listener too: Close may come before Serve has taken it.
	_ = s.ln.Close()
	<-s.done
}

// Addr is the server's host:port (email.smtp).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Pool is the CA that signed the server's certificate, for the client's RootCAs; nil
// with NoTLS.
func (s *Server) Pool() *x509.CertPool { return s.pool }

// CAPEM is the server's certificate in PEM, nil with NoTLS. The built binary verifies
// the SMTP server with the system's roots: an end-to-end test writes this to a file
// and points the daemon's SSL_CERT_FILE at it.
func (s *Server) CAPEM() []byte {
	if s.cert == nil {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.cert.Raw})
}

// TLSConfig is a client configuration that trusts the server.
func (s *Server) TLSConfig() *tls.Config {
	return &tls.Config{RootCAs: s.pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

// Messages returns every message accepted so far, in order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.messages)
	for i := range out {
		out[i].To = slices.Clone(out[i].To)
		out[i].Data = slices.Clone(out[i].Data)
	}
	return out
}

// Fail makes the next n commands f.Command answer with f.
func (s *Server) Fail(n int, f Fault) {
	s.faults.Add(n, f)
}

// Reset forgets the messages and pending faults.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = nil
	s.faults.Reset()
}

// fail returns the fault for command cmd, if one is pending.
func (s *Server) fail(cmd string, c *smtp.Conn) error {
	f, ok := s.faults.Take(func(f Fault) bool { return f.Command == cmd })
	switch {
	case !ok:
		return nil
	case f.Code == 0:
		_ = c.Conn().Close()
		return errors.New("connection dropped")
	}
	return &smtp.SMTPError{Code: f.Code, EnhancedCode: smtp.EnhancedCodeNotSet, Message: f.Message}
}

// NewSession starts the session of one connection.
func (s *Server) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{s: s, c: c}, nil
}

type session struct {
	s    *Server
	c    *smtp.Conn
	user string
	from string
	to   []string
}

var _ smtp.AuthSession = (*session)(nil)

func (ss *session) tls() bool {
	_, ok := ss.c.TLSConnectionState()
	return ok
}

// ready refuses a command until the session is as secure and logged in as required.
func (ss *session) ready() error {
	o := ss.s.o
	if !o.NoTLS && !o.AllowPlain && !ss.tls() {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Must issue a STARTTLS command first"}
	}
	if o.Username != "" && ss.user == "" {
		return smtp.ErrAuthRequired
	}
	return nil
}

func (ss *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (ss *session) Auth(mech string) (sasl.Server, error) {
	if err := ss.s.fail("AUTH", ss.c); err != nil {
		return nil, err
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != ss.s.o.Username || password != ss.s.o.Password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication credentials invalid"}
		}
		ss.user = username
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if err := ss.ready(); err != nil {
		return err
	}
	if err := ss.s.fail("MAIL", ss.c); err != nil {
		return err
	}
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if err := ss.ready(); err != nil {
		return err
	}
	if err := ss.s.fail("RCPT", ss.c); err != nil {
		return err
	}
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r) // go-smtp caps it at MaxMessageBytes
	if err != nil {
		return err
	}
	if err := ss.s.fail("DATA", ss.c); err != nil {
		return err
	}
	if _, err := mail.ReadMessage(bytes.NewReader(b)); err != nil {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: fmt.Sprintf("message unreadable: %v", err)}
	}
	m := Message{From: ss.from, To: slices.Clone(ss.to), Data: b, TLS: ss.tls(), User: ss.user, At: ss.s.o.Now()}
	ss.s.mu.Lock()
	ss.s.messages = append(ss.s.messages, m)
	ss.s.mu.Unlock()
	return nil
}

func (ss *session) Reset() { ss.from, ss.to = "", nil }

func (ss *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and localhost, valid for a day, and
// the pool that trusts it.
func selfSigned() (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "fakesmtp"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool, nil
}
