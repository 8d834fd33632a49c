package notify_test

import (
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

// TestAlsoAffected: the Deliverer asks AlsoAffected when it renders an incident message,
// for the root it posts and for the root it edits after a reply.
func TestAlsoAffected(t *testing.T) {
	e := newEnv(t, map[string]string{"acme": "#status"})
	d := e.deliverer()
	var asked []string
	others := []string{}
	d.AlsoAffected = func(source, id string) []string {
		asked = append(asked, source+"/"+id)
		return others
	}
	e.poll("acme", inc("i1", model.StatusInvestigating, "Errors."))
	if _, _, err := e.drain(d); err != nil {
		t.Fatal(err)
	}
	root := e.fs.Calls()[0]
	if strings.Contains(string(root.Blocks), "Also affected") {
		t.Errorf("a root outside any event: %s", root.Blocks)
	}
	wantCalls(t, "root", e.calls(), "chat.postMessage #status → m1")

	others = []string{"Cloudflare", "Vercel"}
	e.poll("acme", inc("i1", model.StatusIdentified, "Errors.", "The cause is found."))
	if _, _, err := e.drain(d); err != nil {
		t.Fatal(err)
	}
	calls := e.fs.Calls()
	wantCalls(t, "reply", e.calls(), "chat.postMessage C0001 thread=m1 → m2", "chat.update C0001 ts=m1")
	if len(calls) != 2 || !strings.Contains(string(calls[1].Blocks), "Also affected: Cloudflare, Vercel") {
		t.Errorf("the edited root does not name the others: %s", calls[len(calls)-1].Blocks)
	}
	if strings.Contains(string(calls[0].Blocks), "Also affected") {
		t.Errorf("the reply names them: %s", calls[0].Blocks)
	}
	if len(asked) < 2 || asked[0] != "acme/i1" {
		t.Errorf("asked %q", asked)
	}
}
