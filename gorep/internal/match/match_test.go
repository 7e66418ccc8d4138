package match

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// lines is what EachLine finds, as text.
func lines(t *testing.T, m *Matcher, text string) []string {
	t.Helper()
	var got []string
	m.EachLine([]byte(text), func(s, e int) bool {
		got = append(got, text[s:e])
		return true
	})
	return got
}

// reference: line by line with the line regexp alone, no prefilter.
func reference(pattern string, opts Options, text string) []string {
	src := pattern
	if opts.Fixed {
		src = regexp.QuoteMeta(src)
	}
	if opts.Word {
		src = `\b(?:` + src + `)\b`
	}
	if opts.IgnoreCase {
		src = "(?i)" + src
	}
	re := regexp.MustCompile(src)
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if re.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

const corpus = "package main\n\nimport \"errors\"\n\nvar ErrShort = errors.New(\"short\")\n" +
	"func main() {\n\tvar mu sync.RWMutex\n\tKELVIN := \"\u212a\"\n\t// Ünïcödé ΑΒΓ αβγ\n}\n" +
	"ERROR error Error\nno newline at the end"

func TestEachLineAgreesWithLineByLine(t *testing.T) {
	cases := []struct {
		pattern string
		opts    Options
	}{
		{"errors", Options{}},
		{"error", Options{IgnoreCase: true}},
		{"kelvin", Options{IgnoreCase: true}},
		{"k", Options{IgnoreCase: true}},
		{"Mutex|RWMutex|New", Options{}},
		{"^func", Options{}},
		{"end$", Options{}},
		{`\Apackage`, Options{}},
		{`[A-Z][a-z]+Short`, Options{}},
		{`\p{Greek}+`, Options{}},
		{`[α-ω]+`, Options{IgnoreCase: true}},
		{`[#@]x?`, Options{}},
		{`x?\p{Greek}`, Options{}},
		{"ünïcödé", Options{IgnoreCase: true}},
		{"err", Options{Word: true}},
		{"error", Options{Word: true, IgnoreCase: true}},
		{"errors.New(", Options{Fixed: true}},
		{"a.b", Options{Fixed: true}},
		{`[^a]x`, Options{}},
		{`\s+var`, Options{}},
		{`x*`, Options{}},
		{"^$", Options{}},
	}
	for _, c := range cases {
		m, err := Compile(c.pattern, c.opts)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		got, want := lines(t, m, corpus), reference(c.pattern, c.opts, corpus)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%q %+v (prefilter %v):\n got %q\nwant %q", c.pattern, c.opts, m.pre, got, want)
		}
	}
}

func TestPrefilterChoice(t *testing.T) {
	cases := map[string]string{
		"errors":                `literal "errors"`,
		"foo[0-9]+barbaz":       `literal "barbaz"`,
		"(?i)error":             `case-insensitive literal "error"`,
		"(?i)mask":              `case-insensitive literal "ma"`,
		"Mutex|WaitGroup":       `any of the literals "Mutex", "WaitGroup"`,
		"(?i)Mutex|WaitGroup":   `any of the case-insensitive literals "mutex", "waitgroup"`,
		"[a-z]+":                "<nil>",
		`\p{Greek}+`:            "any non-ASCII byte (every match starts with one)",
		`[α-ω]{2}x?`:            "any non-ASCII byte (every match starts with one)",
		`[#@][a-z]+`:            `any of the literals "#", "@"`,
		`(?:é|[A-Z])[a-z]`:      "<nil>",
		"(?i)ünï":               `case-insensitive literal "n"`,
		"x?y?":                  "<nil>",
		"(abc)+d":               `literal "abc"`,
		"(?:ab|cd)|[0-9]":       "<nil>",
		"a|b|c|d|e|f|g|h|i|j|k": "<nil>", // one class
		"[A-Z]{2}[0-9]{3}":      "a window of classes [A-Z] [A-Z] [0-9] (where a match can start)",
		`^[0-9]{2}\.?`:          "a window of classes [0-9] [0-9] (where a match can start)",
		"(?i)[a-c][x-z]+":       "a window of classes [A-Ca-c] [X-Zx-z] (where a match can start)",
		"(?i)k[0-9]":            "<nil>", // k folds to the Kelvin sign
		"[a-z][α-ω]":            "<nil>",
	}
	for pattern, want := range cases {
		m, err := Compile(pattern, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := "<nil>"
		if m.pre != nil {
			got = m.pre.String()
		}
		if got != want {
			t.Errorf("%q: prefilter %s, want %s", pattern, got, want)
		}
	}
}

func TestLineBreakRefused(t *testing.T) {
	if _, err := Compile(`a\nb`, Options{}); err == nil || !strings.Contains(err.Error(), "line break") {
		t.Fatalf("a pattern with \\n: err = %v", err)
	}
	if _, err := Compile("(", Options{}); err == nil || !strings.Contains(err.Error(), `"("`) {
		t.Fatalf("a bad pattern: err = %v, want the pattern named", err)
	}
}

func TestClassesNeverMatchTheTerminator(t *testing.T) {
	m, _ := Compile(`a[^x]b`, Options{})
	if got := lines(t, m, "a\nb\n"); len(got) != 0 {
		t.Fatalf("[^x] matched across a line break: %q", got)
	}
}

func TestFoldLiteralAcrossBlocks(t *testing.T) {
	m, _ := Compile("NeEdLe", Options{IgnoreCase: true})
	text := strings.Repeat("x", 29) + "needle\n" + strings.Repeat("y", 3*64) + "NEEDLE"
	if got := lines(t, m, text); len(got) != 2 {
		t.Fatalf("found %d lines, want 2 (one straddles a 32-byte block)", len(got))
	}
}

func TestMatchNameAndSpans(t *testing.T) {
	m, _ := Compile("go", Options{})
	if !m.MatchName("gofmt.go") || m.MatchName("README") {
		t.Fatal("MatchName")
	}
	if got := m.Spans([]byte("go go")); len(got) != 2 || got[1][0] != 3 {
		t.Fatalf("Spans = %v", got)
	}
}

// ripgrepLines: the lines rg prints for pattern in text (no line numbers), or skip.
func ripgrepLines(t *testing.T, pattern, text string, flags ...string) []string {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed")
	}
	f := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rg, append(append([]string{"--no-line-number", "--no-filename", "--color", "never", "-a"}, flags...), "--", pattern, f)...)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("rg %q: %v", pattern, err)
	}
	if len(out) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

func TestPhantomEmptyLines(t *testing.T) {
	texts := []string{"a\n", "", "\n", "a\n\nb\n", "a", "a\n\n", strings.Repeat("x\n", 3)}
	for _, pattern := range []string{"^$", ".*", "x*", `\s*$`} {
		m, err := Compile(pattern, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			got, want := lines(t, m, text), ripgrepLines(t, pattern, text)
			if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
				t.Errorf("%q on %q: got %q, ripgrep %q", pattern, text, got, want)
			}
		}
	}
}

// The alternation search once rescanned the rest of the buffer for every literal at
// every candidate; the set search is one pass. Its answers are pinned here.
func TestQuadraticAlternation(t *testing.T) {
	buf := []byte(strings.Repeat("a mutex here\n", 1000))
	set := newLiteralSet([]string{"zzabsent", "mutex"}, false)
	found := 0
	for from := 0; ; found++ {
		at, _ := set.Next(buf, from)
		if at < 0 {
			break
		}
		if string(buf[at:at+5]) != "mutex" {
			t.Fatalf("Next = %d, not an occurrence", at)
		}
		from = at + 1
	}
	if found != 1000 {
		t.Fatalf("found %d occurrences, want 1000", found)
	}
	m, _ := Compile("zzabsent|mutex", Options{})
	if got := lines(t, m, "x\nmutex\nzzabsent y\n"); strings.Join(got, ",") != "mutex,zzabsent y" {
		t.Fatalf("lines %q", got)
	}
}

// Under -i an alternation searched for its first literal alone: `-i 'err_sys|holmes'`
// missed every line holding only Holmes.
func TestFoldedAlternationFindsEveryLiteral(t *testing.T) {
	text := "Mr Holmes\nERR_SYSTEM\nnone\nhOLMEs and err_sys\n"
	m, _ := Compile("ERR_SYS|Holmes", Options{IgnoreCase: true})
	got, want := lines(t, m, text), ripgrepLines(t, "ERR_SYS|Holmes", text, "-i")
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != 3 {
		t.Fatalf("got %q, ripgrep %q", got, want)
	}
}

// unicodeText: words next to non-ASCII letters, digits of other scripts, lone Latin-1
// bytes (not UTF-8) and a real U+FFFD.
const unicodeText = "argóint x\nint y\nf((void) z\n(void)\na_int\nnaïve\n\xe9t\xe9\n\xef\xbf\xbd\n" +
	"١٢٣ digits\nspace\u00a0here\nfoo foo\nfoo-foo\nx\xffy\n"

func TestSemanticsEqualRipgrep(t *testing.T) {
	cases := []struct {
		pattern string
		opts    Options
		flags   []string
	}{
		{"int", Options{Word: true}, []string{"-w"}},    // not inside argóint
		{`\(void`, Options{Word: true}, []string{"-w"}}, // ( after a non-word character
		{"void", Options{Word: true}, []string{"-w"}},   // between parentheses
		{"foo", Options{Word: true}, []string{"-w"}},    // twice on a line
		{"na", Options{Word: true}, []string{"-w"}},     // ï is a letter
		{`\w+`, Options{}, nil},                         // Unicode letters and digits
		{`^\w+$`, Options{}, nil},                       // naïve is one word
		{`\d+`, Options{}, nil},                         // Arabic-Indic digits
		{`e\sh`, Options{}, nil},                        // a no-break space
		{`[\w]+ [\d]`, Options{}, nil},                  // inside a class
		{`^[^\W\d]+$`, Options{}, nil},                  // a negated class inside one
		{`[^\x00-\x7F]`, Options{}, nil},                // not a lone Latin-1 byte
		{`x.y`, Options{}, nil},                         // nor `.`
		{`x[^a]y`, Options{}, nil},                      // nor a negated class
		{`\x{FFFD}`, Options{}, nil},                    // the real U+FFFD
		{`\p{Arabic}+`, Options{}, nil},                 // named classes stay
		{"INT", Options{Word: true, IgnoreCase: true}, []string{"-w", "-i"}},
	}
	for _, c := range cases {
		m, err := Compile(c.pattern, c.opts)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		got, want := lines(t, m, unicodeText), ripgrepLines(t, c.pattern, unicodeText, c.flags...)
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
			t.Errorf("%q %v: got %q, ripgrep %q", c.pattern, c.flags, got, want)
		}
		var spans []string
		for _, l := range strings.Split(strings.TrimSuffix(unicodeText, "\n"), "\n") {
			for _, s := range m.Spans([]byte(l)) {
				spans = append(spans, l[s[0]:s[1]])
			}
		}
		wantSpans := ripgrepLines(t, c.pattern, unicodeText, append([]string{"-o"}, c.flags...)...)
		if strings.Join(spans, "\n") != strings.Join(wantSpans, "\n") {
			t.Errorf("%q %v: spans %q, ripgrep -o %q", c.pattern, c.flags, spans, wantSpans)
		}
	}
}

func TestPerlClassRewriteLeavesQuotedText(t *testing.T) {
	for in, want := range map[string]string{`\Q\w\E`: `\Q\w\E`, `\\w`: `\\w`, `\p{L}`: `\p{L}`, `[[:word:]]`: `[[:word:]]`} {
		if got := unicodePerlClasses(in); got != want {
			t.Errorf("%q: %q", in, got)
		}
	}
}
