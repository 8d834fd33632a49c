package diff

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/model"
)

// checkJoins fails t unless equal+delete runs join to before and equal+insert runs to
// after, and no run is empty or split inside a rune of valid input.
func checkJoins(t *testing.T, ops []model.Op, before, after string) {
	t.Helper()
	if err := joinsError(ops, before, after); err != nil {
		t.Fatal(err)
	}
}

func joinsError(ops []model.Op, before, after string) error {
	var b, a strings.Builder
	for i, o := range ops {
		if o.Text == "" {
			return fmt.Errorf("op %d (%s) is empty", i, o.Op)
		}
		if i > 0 && ops[i-1].Op == o.Op {
			return fmt.Errorf("ops %d and %d are both %s: runs not merged", i-1, i, o.Op)
		}
		if utf8.ValidString(before) && utf8.ValidString(after) && !utf8.ValidString(o.Text) {
			return fmt.Errorf("op %d text %q is not valid UTF-8: a rune was split", i, o.Text)
		}
		switch o.Op {
		case model.OpEqual:
			b.WriteString(o.Text)
			a.WriteString(o.Text)
		case model.OpDelete:
			b.WriteString(o.Text)
		case model.OpInsert:
			a.WriteString(o.Text)
		default:
			return fmt.Errorf("op %d has unknown kind %q", i, o.Op)
		}
	}
	if b.String() != before {
		return fmt.Errorf("equal+delete joined to %q, want %q", b.String(), before)
	}
	if a.String() != after {
		return fmt.Errorf("equal+insert joined to %q, want %q", a.String(), after)
	}
	return nil
}

// render shows ops compactly: [-deleted-]{+inserted+}.
func render(ops []model.Op) string {
	var b strings.Builder
	for _, o := range ops {
		switch o.Op {
		case model.OpDelete:
			b.WriteString("[-" + o.Text + "-]")
		case model.OpInsert:
			b.WriteString("{+" + o.Text + "+}")
		default:
			b.WriteString(o.Text)
		}
	}
	return b.String()
}

func TestWords(t *testing.T) {
	tests := []struct {
		name          string
		before, after string
		want          string
	}{
		{"identical", "We are investigating.", "We are investigating.", "We are investigating."},
		{"both empty", "", "", ""},
		{"from empty", "", "Fixed.", "{+Fixed.+}"},
		{"to empty", "Fixed.", "", "[-Fixed.-]"},
		{"word inserted", "The fix is deployed.", "The fix is being deployed.", "The fix is {+being +}deployed."},
		{"word replaced", "Some users see errors.", "All users see errors.", "[-Some-]{+All+} users see errors."},
		{"whole words, not letters", "investigating", "identified", "[-investigating-]{+identified+}"},
		{"punctuation", "Resolved.", "Resolved!", "Resolved[-.-]{+!+}"},
		{"number", "Error rate 5%", "Error rate 15%", "Error rate [-5-]{+15+}%"},
		{"newline kept", "line one\nline two", "line one\nline 2", "line one\nline [-two-]{+2+}"},
		{"semantic cleanup merges a lone space", "alpha beta", "gamma delta", "[-alpha beta-]{+gamma delta+}"},
		{"korean word", "서비스 장애가 발생했습니다", "서비스 장애가 해결되었습니다", "서비스 장애가 [-발생했습니다-]{+해결되었습니다+}"},
		{"japanese character", "東京リージョンで障害が発生", "大阪リージョンで障害が発生", "[-東京-]{+大阪+}リージョンで障害が発生"},
		{"japanese kana", "調査中です", "復旧しました", "[-調査中です-]{+復旧しました+}"},
		{"emoji", "Status 🔴 down", "Status 🟢 up", "Status [-🔴 down-]{+🟢 up+}"},
		{"emoji zwj sequence kept whole", "team 👨‍👩‍👧 ok", "team 👨‍👩‍👦 ok", "team [-👨‍👩‍👧-]{+👨‍👩‍👦+} ok"},
		{"skin tone kept whole", "thumbs 👍🏽 now", "thumbs 👍🏿 now", "thumbs [-👍🏽-]{+👍🏿+} now"},
		{"flag kept whole", "region 🇯🇵 only", "region 🇰🇷 only", "region [-🇯🇵-]{+🇰🇷+} only"},
		{"combining mark kept whole", "cafe\u0301 open", "cafe open", "[-cafe\u0301-]{+cafe+} open"},
		// A long rewrite keeps the words both sides share, in order, as anchors.
		{"rewrite keeps shared words",
			"We are investigating elevated authentication failures for some users. Connectors are not affected.",
			"We are investigating elevated authentication failures for users in North America. Connectors may fail to reconnect.",
			"We are investigating elevated authentication failures for [-some -]users{+ in North America+}. Connectors [-are not affected-]{+may fail to reconnect+}."},
		{"a change starting with a space moves after it",
			"until the service is restored today, we think",
			"until service restoration is complete today, we hope",
			"until [-the -]service {+restoration +}is [-restored-]{+complete+} today, we [-think-]{+hope+}"},
		// …but a lone shared word inside a rewrite three times its size is folded in.
		{"a dwarfed shared word is folded",
			"Engineers rolled back the change and traffic recovered fully",
			"We are still investigating the root cause with our provider",
			"[-Engineers rolled back the change and traffic recovered fully-]{+We are still investigating the root cause with our provider+}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops := Words(tt.before, tt.after)
			checkJoins(t, ops, tt.before, tt.after)
			if got := render(ops); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// realEdits are edits vendors really made between two versions of an update, and the
// demo's silent edit: testdata/real_edits.json says where each comes from.
func realEdits(t *testing.T) []struct{ Name, From, Before, After string } {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "real_edits.json"))
	if err != nil {
		t.Fatal(err)
	}
	var edits []struct{ Name, From, Before, After string }
	if err := json.Unmarshal(b, &edits); err != nil {
		t.Fatal(err)
	}
	return edits
}

// TestWordsRealEdits shows the word diff of real edits in a golden file, and checks that
// the words a reader sees on both sides stay unchanged where the edit left them.
func TestWordsRealEdits(t *testing.T) {
	keep := map[string][]string{
		"demo silent edit": {"users", ". Connectors "},
		"google-cloud 3BvH3LVGcupoYqV6F4Nw update 8 → 9": {" continue to recover ", " impact "},
	}
	var b strings.Builder
	for _, e := range realEdits(t) {
		ops := Words(e.Before, e.After)
		checkJoins(t, ops, e.Before, e.After)
		if again := Words(e.Before, e.After); !slices.Equal(again, ops) {
			t.Errorf("%s: two runs differ", e.Name)
		}
		for _, w := range keep[e.Name] {
			if !slices.ContainsFunc(ops, func(o model.Op) bool { return o.Op == model.OpEqual && strings.Contains(o.Text, w) }) {
				t.Errorf("%s: %q is on both sides, in order, but no equal run holds it:\n%s", e.Name, w, render(ops))
			}
		}
		fmt.Fprintf(&b, "== %s (%s)\n%s\n\n", e.Name, e.From, render(ops))
	}
	checkGolden(t, "words_real", b.String())
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"latin", "Hello, world!", []string{"Hello", ",", " ", "world", "!"}},
		{"whitespace run", "a \t\n b", []string{"a", " \t\n ", "b"}},
		{"identifier", "us_east_1 down", []string{"us_east_1", " ", "down"}},
		{"korean words", "서비스 장애", []string{"서비스", " ", "장애"}},
		{"han and kana one each", "障害が発生", []string{"障", "害", "が", "発", "生"}},
		{"katakana with long vowel", "サーバー", []string{"サ", "ー", "バ", "ー"}},
		{"thai", "ระบบ", []string{"ร", "ะ", "บ", "บ"}},
		{"emoji", "🔥🔥", []string{"🔥", "🔥"}},
		{"emoji with variation selector", "❤️ok", []string{"❤️", "ok"}},
		{"zwj family", "👨‍👩‍👧", []string{"👨‍👩‍👧"}},
		{"keycap", "1️⃣", []string{"1️⃣"}},
		{"flags pair up", "🇯🇵🇰🇷", []string{"🇯🇵", "🇰🇷"}},
		{"subdivision flag", "🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F!", []string{"🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", "!"}},
		{"invalid bytes", "a\xffb\xfe", []string{"a", "\xff", "b", "\xfe"}},
		{"lone combining mark", "\u0301a", []string{"\u0301", "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tokenize(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if j := strings.Join(got, ""); j != tt.in {
				t.Errorf("tokens joined to %q, want %q", j, tt.in)
			}
		})
	}
}

// TestWordsPaths checks which strategy bounds the work, through the unexported words.
func TestWordsPaths(t *testing.T) {
	// text is n lines of k distinct words each: 2·n·k tokens.
	text := func(prefix string, n, k int) string {
		var b strings.Builder
		for i := range n {
			for j := range k {
				if j > 0 {
					b.WriteString(" ")
				}
				fmt.Fprintf(&b, "%s%d.%d", prefix, i, j)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	big := text("w", tokenBudget/4, 4) // 2×tokenBudget tokens on tokenBudget/4 lines
	tests := []struct {
		name          string
		before, after string
		want          path
	}{
		{"identical", big, big, pathEqual},
		{"small", "the quick fox", "the slow fox", pathWord},
		{"huge text, small edit in the middle stays word level",
			big, strings.Replace(big, "w999.3\n", "w999.3 edited\n", 1), pathWord},
		{"huge texts, edits far apart take lines",
			"start\n" + big + "end\n", "begin\n" + big + "finish\n", pathLine},
		{"unrelated huge texts with few lines take lines",
			text("a", 1, tokenBudget), text("b", 1, tokenBudget), pathLine},
		{"unrelated texts with too many lines are replaced",
			text("a", tokenBudget/2+1, 1), text("b", tokenBudget/2+1, 1), pathReplace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops, got := words(tt.before, tt.after)
			if got != tt.want {
				t.Errorf("got path %v, want %v", got, tt.want)
			}
			checkJoins(t, ops, tt.before, tt.after)
			if got == pathReplace {
				n := 0
				for _, o := range ops {
					if o.Op != model.OpEqual {
						n++
					}
				}
				if n != 2 {
					t.Errorf("got %d delete and insert runs, want 2: one replacement", n)
				}
			}
		})
	}
}

// TestWordsLinePathRefines checks that on the line path the changed lines still get a
// word diff while the budget lasts, and that a huge rewrite stays a replacement.
func TestWordsLinePathRefines(t *testing.T) {
	var b strings.Builder
	for i := range tokenBudget / 4 {
		fmt.Fprintf(&b, "line %d says hello\n", i)
	}
	before := "first line says hello\n" + b.String() + "last line says hello\n"
	after := "first line says goodbye\n" + b.String() + "last line says goodbye\n"
	ops, p := words(before, after)
	if p != pathLine {
		t.Fatalf("got path %v, want %v", p, pathLine)
	}
	checkJoins(t, ops, before, after)
	var changed []string
	for _, o := range ops {
		if o.Op != model.OpEqual {
			changed = append(changed, o.Op+":"+o.Text)
		}
	}
	want := []string{"delete:hello", "insert:goodbye", "delete:hello", "insert:goodbye"}
	if !slices.Equal(changed, want) {
		t.Errorf("got changed runs %q, want %q", changed, want)
	}
}

// TestWordsLargeScatteredEdits checks the budgeted case: two ~100 KB texts differing in
// 1% of their words take the line path, yet every change still shows as the words that
// changed, not as whole lines.
func TestWordsLargeScatteredEdits(t *testing.T) {
	vocab := benchText(1, 100_000)
	before := joinText(1, vocab)
	edited := slices.Clone(vocab)
	for i := 50; i < len(edited); i += 100 {
		edited[i] = "changed"
	}
	after := joinText(1, edited)
	ops, p := words(before, after)
	if p != pathLine {
		t.Errorf("got path %v, want %v", p, pathLine)
	}
	checkJoins(t, ops, before, after)
	for _, o := range ops {
		if o.Op != model.OpEqual && (strings.Contains(o.Text, " ") || strings.Contains(o.Text, "\n")) {
			t.Fatalf("got %s run %q, want single words", o.Op, o.Text)
		}
	}
}

func TestWordsDeterministic(t *testing.T) {
	before := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 50)
	after := strings.ReplaceAll(before, "lazy", "sleepy")
	first := Words(before, after)
	for i := range 5 {
		if got := Words(before, after); !slices.Equal(got, first) {
			t.Fatalf("run %d: got %v, want %v", i, got, first)
		}
	}
}

func TestIndexRune(t *testing.T) {
	for _, i := range []int{0, 6399, 6400, 6400 + 65533, 6400 + 65534, 6400 + 2*65534 - 1} {
		r, ok := indexRune(i)
		if !ok {
			t.Fatalf("indexRune(%d): no rune", i)
		}
		if got, ok := runeIndex(r); !ok || got != i {
			t.Errorf("runeIndex(indexRune(%d) = %U): got %d, %v, want %d, true", i, r, got, ok, i)
		}
		if !utf8.ValidRune(r) {
			t.Errorf("indexRune(%d) = %U is not a valid rune", i, r)
		}
	}
	if _, ok := indexRune(6400 + 2*65534); ok {
		t.Errorf("indexRune past the private-use areas: got ok, want none")
	}
}

// TestEncoderSpill checks that a diff with more distinct units than the BMP's
// private-use area holds spills into planes 15 and 16 and maps back exactly.
func TestEncoderSpill(t *testing.T) {
	var a, b []string
	for i := range 7000 {
		a = append(a, fmt.Sprintf("a%d ", i))
		if i%100 != 0 {
			b = append(b, fmt.Sprintf("a%d ", i))
		} else {
			b = append(b, fmt.Sprintf("b%d ", i))
		}
	}
	as, bs := strings.Join(a, ""), strings.Join(b, "")
	ops, ok := diffUnits(a, b, as, bs)
	if !ok {
		t.Fatal("diffUnits: got not ok, want ok")
	}
	checkJoins(t, ops, as, bs)
}

func FuzzWords(f *testing.F) {
	seeds := [][2]string{
		{"", ""},
		{"We are investigating.", "We are still investigating."},
		{"서비스 장애가 발생했습니다", "서비스 장애가 해결되었습니다"},
		{"東京リージョンで障害が発生", "大阪リージョンで障害が発生しました"},
		{"team 👨‍👩‍👧 ok 🇯🇵", "team 👨‍👩‍👦 ok 🇰🇷"},
		{"a\xffb", "a\xfeb"},
		{"line one\nline two\n", "line one\r\nline 2\n"},
		{"x\u200d", "\u200d\u0301"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, before, after string) {
		ops, _ := words(before, after)
		if err := joinsError(ops, before, after); err != nil {
			t.Fatal(err)
		}
	})
}
