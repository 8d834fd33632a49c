package fetch

import (
	"context"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/fetch/fetchtest/fakehttp"
	"github.com/statuswatch/statuswatch/internal/model"
)

// TestPollLookup: a look-up is counted and kept as evidence like any read, but leaves the
// state to the adapter; Read remembers the answer's validators.
func TestPollLookup(t *testing.T) {
	page := fakehttp.NewFakePage()
	page.Set("/list", fakehttp.Route{Body: []byte(`{"a":1}`), ETag: `"l1"`})
	page.Set("/one", fakehttp.Route{Body: []byte(`{"b":2}`), ETag: `"o1"`})
	srv := fakehttp.NewServer(t, page)
	pl := NewPoll(mustClient(t, ClientOptions{}), Request{Source: model.Source{URL: srv.URL}, Now: time.Now()})

	if _, err := pl.Read(context.Background(), "list", srv.URL+"/list"); err != nil {
		t.Fatal(err)
	}
	resp, err := pl.Lookup(context.Background(), "one/1", srv.URL+"/one")
	if err != nil || string(resp.Body) != `{"b":2}` {
		t.Fatalf("got %v, %v", resp, err)
	}
	if _, ok := pl.Res.State["one/1"]; ok || pl.Res.State["list"].ETag != `"l1"` {
		t.Errorf("got state %+v, want only the list's", pl.Res.State)
	}
	if pl.Res.Requests != 2 || len(pl.Res.Bodies) != 2 || pl.Res.Bodies[1].Endpoint != "one/1" || pl.Res.Bodies[1].Data == nil {
		t.Errorf("got %d requests, bodies %+v", pl.Res.Requests, pl.Res.Bodies)
	}
	if _, err := pl.Lookup(context.Background(), "one/2", srv.URL+"/none"); err == nil || pl.Res.Requests != 3 || len(pl.Res.Bodies) != 2 {
		t.Errorf("404 look-up: got %v, %d requests, %d bodies", err, pl.Res.Requests, len(pl.Res.Bodies))
	}
}
