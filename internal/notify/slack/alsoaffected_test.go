package slack

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

// TestAlsoAffected: a root card, posted or edited, names the other vendors of its
// incident's event, escaped; a reply and a root outside any event do not.
func TestAlsoAffected(t *testing.T) {
	vs := versions(plainFixture.life())
	root := note(plainFixture, vs[0], model.EventNew, false)
	root.AlsoAffected = []string{"Cloudflare", "Vercel"}
	edit := note(plainFixture, vs[1], model.EventChanged, true)
	edit.AlsoAffected = root.AlsoAffected
	for name, m := range map[string]message{"root": render(root, false), "edited root": renderRoot(edit)} {
		data, _ := json.Marshal(m.Blocks)
		if !strings.Contains(string(data), "Also affected: Cloudflare, Vercel") {
			t.Errorf("%s: no \"Also affected\" line in %s", name, data)
		}
	}
	if data, _ := json.Marshal(render(edit, false).Blocks); strings.Contains(string(data), "Also affected") {
		t.Errorf("a reply says it: %s", data)
	}
	alone := note(plainFixture, vs[0], model.EventNew, false)
	if data, _ := json.Marshal(render(alone, false).Blocks); strings.Contains(string(data), "Also affected") {
		t.Errorf("a root outside any event says it: %s", data)
	}
	hostile := note(plainFixture, vs[0], model.EventNew, false)
	hostile.AlsoAffected = []string{"Evil <!channel> & co"}
	data, _ := json.Marshal(render(hostile, false))
	if s := unescapedAttack(data); s != "" {
		t.Errorf("unescaped source title in %q", s)
	}
}
