package diff

// PLACEHOLDER: replaced by the real implementation (word ops, fallbacks, renderings).

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Changes lists the field changes from before to after; before nil is version 0.
func Changes(before, after *model.Incident) []model.Change {
	var out []model.Change
	b, a := model.Incident{}, *after
	if before != nil {
		b = *before
	}
	add := func(field, x, y string) {
		if x == y {
			return
		}
		c := model.Change{Field: field}
		if before != nil || x != "" {
			c.Before = &x
		}
		c.After = &y
		out = append(out, c)
	}
	add("title", b.Title, a.Title)
	add("status", string(b.Status), string(a.Status))
	add("impact", string(b.Impact), string(a.Impact))
	add("components", strings.Join(b.Components, ", "), strings.Join(a.Components, ", "))
	add("updates", fmt.Sprint(len(b.Updates)), fmt.Sprint(len(a.Updates)))
	return out
}

// Summary is the one-line summary of a change set.
func Summary(changes []model.Change) string {
	var parts []string
	for _, c := range changes {
		parts = append(parts, c.Field+" changed")
	}
	return strings.Join(parts, "; ") + "."
}

// Fingerprint hashes the version fields of an incident.
func Fingerprint(inc *model.Incident) [32]byte {
	c := *inc
	c.URL, c.ResolvedInferred, c.StatusRaw, c.ImpactRaw = "", false, "", ""
	b, _ := json.Marshal(c)
	return sha256.Sum256(b)
}
