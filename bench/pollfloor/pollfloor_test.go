package main

import (
	"os"
	"testing"
	"time"
)

// TestMain lets the test binary be -reconnect's server child, as the built command is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "-serve-child" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestReconnect runs every -reconnect phase once against ten hosts: where the servers
// close, every measured poll is a new connection (resumed under TLS); where they keep
// them, none is.
func TestReconnect(t *testing.T) {
	if testing.Short() {
		t.Skip("six phases of a second or so")
	}
	results, err := measureAll(10, 1, 50, 400*time.Millisecond, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for i, ph := range phases {
		r := results[i][0]
		s := r.server
		if r.polls == 0 || r.cpu <= 0 || s.h1+s.h2 != r.polls {
			t.Errorf("%s: %d polls, CPU %v, %d requests served", ph.name, r.polls, r.cpu, s.h1+s.h2)
		}
		switch {
		case ph.closes && s.conns != r.polls:
			t.Errorf("%s: %d connections for %d polls, want one each", ph.name, s.conns, r.polls)
		case ph.closes && ph.tls && s.resumed != s.conns:
			t.Errorf("%s: %d of %d handshakes resumed, want all", ph.name, s.resumed, s.conns)
		case !ph.closes && s.conns != 0:
			t.Errorf("%s: %d new connections, want the kept ones", ph.name, s.conns)
		}
		if h2 := ph.tls && !ph.h1; h2 != (s.h2 > 0) {
			t.Errorf("%s: %d HTTP/2 requests", ph.name, s.h2)
		}
	}
}
