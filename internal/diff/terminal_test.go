package diff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestTerminalGolden(t *testing.T) {
	for _, tc := range renderCases() {
		for _, st := range []struct {
			name  string
			style Style
		}{{"plain", Plain}, {"color", Color}} {
			t.Run(tc.name+"/"+st.name, func(t *testing.T) {
				checkGolden(t, "terminal_"+st.name+"_"+tc.name, Terminal(Changes(tc.before, tc.after), st.style))
			})
		}
	}
	// Real edits: the demo's silent edit and vendors' reposted updates, long and short.
	var b strings.Builder
	for _, e := range realEdits(t) {
		before, after := e.Before, e.After
		fmt.Fprintf(&b, "== %s\n%s\n", e.Name, Terminal([]model.Change{{Field: "updates[x].body", Before: &before, After: &after, Ops: Words(before, after)}}, Plain))
	}
	checkGolden(t, "terminal_real", b.String())
}

// TestTerminalValuesGolden pins the Before/After form Terminal gives every change it shows
// without a word diff: each case's changes with their word ops taken away.
func TestTerminalValuesGolden(t *testing.T) {
	for _, tc := range renderCases() {
		t.Run(tc.name, func(t *testing.T) {
			changes := Changes(tc.before, tc.after)
			for i := range changes {
				changes[i].Ops = nil
			}
			checkGolden(t, "text_"+tc.name, Terminal(changes, Plain))
		})
	}
}

// TestTerminalValues: a change without a word diff reads as its values.
func TestTerminalValues(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name   string
		change model.Change
		want   string
	}{
		{"not present", model.Change{Field: "title", After: s("Down")}, "title:\n  Before: not present\n  After: Down\n"},
		{"removed", model.Change{Field: "status", Before: s("resolved")}, "status:\n  Before: resolved\n  After: removed\n"},
		{"empty", model.Change{Field: "updates[u9]", After: s("")}, "updates[u9]:\n  Before: not present\n  After: (empty)\n"},
		{"multi-line", model.Change{Field: "postmortem.body", After: s("one  \r\ntwo\n\n")},
			"postmortem.body:\n  Before: not present\n  After: one\n    two\n"},
		{"terminal escapes", model.Change{Field: "title", After: s("a\x1b]8;;x\x07b\u009bc")},
			"title:\n  Before: not present\n  After: a\\x1b]8;;x\\x07b\\x9bc\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Terminal([]model.Change{tt.change}, Plain); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if got := Terminal(nil, Plain); got != "" {
		t.Errorf("empty change set: got %q, want %q", got, "")
	}
}

// long is a 500-character body in which one 15-character phrase changes.
const longBefore = "We are investigating reports of elevated error rates for API requests in the EU region. " +
	"Customers may see timeouts when creating or updating resources, and some webhooks may be delayed. " +
	"Our engineers have identified a database failover as the likely trigger and are working to restore " +
	"normal service. Dashboard access is not affected. We will post another update within 30 minutes " +
	"or sooner if the situation changes. Thank you for your patience while we work on this issue today."

func TestWordDiff(t *testing.T) {
	longAfter := strings.Replace(longBefore, "database failover", "network partition", 1)
	tests := []struct {
		name          string
		before, after string
		style         Style
		want          string
	}{
		{"demo edit", "We are investigating elevated authentication failures for some users. Connectors are not affected.",
			"We are investigating elevated authentication failures for users in North America. Connectors may fail to reconnect.", Plain,
			"We are investigating elevated authentication failures for [-some -]users{+ in North America+}. Connectors [-are not affected-]{+may fail to reconnect+}."},
		{"long body: the change shows with 8 words either side", longBefore, longAfter, Plain,
			"… may be delayed. Our engineers have identified a [-database failover-]{+network partition+} as the likely trigger and are working to …"},
		{"colour", "Status is degraded now", "Status is operational now", Color,
			"Status is \x1b[31;9mdegraded\x1b[0m\x1b[32moperational\x1b[0m now"},
		{"colour per line", "a\nb", "c\nd", Color,
			"\x1b[31;9ma\x1b[0m\n\x1b[31;9mb\x1b[0m\x1b[32mc\x1b[0m\n\x1b[32md\x1b[0m"},
		{"vendor marks are escaped", "use [-x-] and {+y+} here", "use [-x-] and {+z+} here", Plain,
			`use [\-x-\] and {\+[-y-]{+z+}+\} here`},
		{"backslashes doubled", `path C:\temp`, `path C:\tmp`, Plain, `path C:\\[-temp-]{+tmp+}`},
		{"escape bytes dropped", "ok \x1b[2Jnow", "ok \x1b]0;pwned\x07later", Plain, "ok [-[2Jnow-]{+]0;pwnedlater+}"},
		{"escape bytes dropped in colour", "a \x1b[31mred", "a \u009b31mgreen", Color, "a \x1b[31;9m[31mred\x1b[0m\x1b[32m31mgreen\x1b[0m"},
		{"a byte that is not UTF-8 shows as U+FFFD", "a \x9b31mred", "a green", Plain, "a [-\uFFFD31mred-]{+green+}"},
		{"unspaced script: a character is half a word", strings.Repeat("あ", 40) + "東京" + strings.Repeat("い", 40),
			strings.Repeat("あ", 40) + "大阪" + strings.Repeat("い", 40), Plain,
			"… " + strings.Repeat("あ", 16) + "[-東京-]{+大阪+}" + strings.Repeat("い", 16) + " …"},
		{"a short stretch is kept whole", "one two three four five six seven eight nine ten eleven twelve", "one two three four five six seven eight nine ten eleven 12", Plain,
			"one two three four five six seven eight nine ten eleven [-twelve-]{+12+}"},
		{"crlf reads as a newline", "one\r\ntwo", "one\r\nthree", Plain, "one\n[-two-]{+three+}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WordDiff(Words(tt.before, tt.after), tt.style); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// unmark reads Plain output back into its marked runs, in order, as "-text" and "+text";
// unchanged text is left out. It is the reader the escaping is for.
func unmark(s string) ([]string, error) {
	var runs []string
	var cur strings.Builder
	in := byte(0) // '-' or '+' inside a mark
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			i++
		case c == '\\':
			return nil, fmt.Errorf("dangling backslash at %d", i)
		case in == 0 && i+1 < len(s) && (s[i:i+2] == "[-" || s[i:i+2] == "{+"):
			cur.Reset()
			in = s[i+1]
			i++
		case in == '-' && i+1 < len(s) && s[i:i+2] == "-]", in == '+' && i+1 < len(s) && s[i:i+2] == "+}":
			runs = append(runs, string(in)+cur.String())
			cur.Reset()
			in = 0
			i++
		case in != 0:
			cur.WriteByte(c)
		}
	}
	if in != 0 {
		return nil, fmt.Errorf("unclosed mark")
	}
	return runs, nil
}

// TestWordDiffMarksCannotBeForged checks that whatever the vendor writes, Plain output
// reads back as exactly the runs the diff removed and added.
func TestWordDiffMarksCannotBeForged(t *testing.T) {
	for _, c := range [][2]string{
		{"a [-b-] c", "a {+b+} c"},
		{`x\`, `y\`},
		{"-] +} [- {+", "{+ [- +} -]"},
		{"end-", "end+"},
		{"]start", "}start"},
		{"a\\-]b", "a\\+}b"},
	} {
		checkUnmark(t, c[0], c[1])
	}
}

func checkUnmark(t *testing.T, before, after string) {
	t.Helper()
	ops := Words(before, after)
	var want []string
	for _, o := range ops {
		if text := cleanTerminal(o.Text); o.Op != model.OpEqual && text != "" {
			want = append(want, map[string]string{model.OpDelete: "-", model.OpInsert: "+"}[o.Op]+text)
		}
	}
	out := WordDiff(ops, Plain)
	got, err := unmark(out)
	if err != nil {
		t.Fatalf("%q → %q: %v", before, after, err)
	}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("%q → %q: output %q reads back as %q, want %q", before, after, out, got, want)
	}
}

func FuzzWordDiff(f *testing.F) {
	f.Add("a [-b-] c", "a {+b+} c")
	f.Add("x\x1b[31m y", "x\x9b y\\")
	f.Add(longBefore, strings.Replace(longBefore, "EU", "US", 1))
	f.Fuzz(func(t *testing.T, before, after string) {
		checkUnmark(t, before, after)
		out := WordDiff(Words(before, after), Color)
		for _, m := range []string{ansiDel, ansiIns, ansiReset} {
			out = strings.ReplaceAll(out, m, "")
		}
		if strings.ContainsFunc(out, isUnsafeControl) {
			t.Errorf("colour output keeps a control character: %q", out)
		}
	})
}
