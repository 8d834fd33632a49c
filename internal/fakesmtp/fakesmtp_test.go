package fakesmtp

import (
	"crypto/x509"
	"encoding/pem"
	"testing"
)

func TestCAPEM(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, _ := pem.Decode(s.CAPEM())
	if b == nil {
		t.Fatal("no PEM block")
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Verify(x509.VerifyOptions{Roots: s.Pool(), DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("the certificate does not verify for 127.0.0.1: %v", err)
	}
	plain, err := New(Options{NoTLS: true})
	if err != nil {
		t.Fatal(err)
	}
	plain.Close()
	plain.Close() // twice is fine
	if plain.CAPEM() != nil {
		t.Error("got a certificate with NoTLS")
	}
}
