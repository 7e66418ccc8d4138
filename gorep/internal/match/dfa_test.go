package match

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

var dfaPatterns = []string{
	`[A-Z]{2}[0-9]{3}`, `\w+ing\s`, `^$`, `^`, `$`, `x*`, `.*`, `^\s*$`, `^for`, `for$`,
	`(?i)holmes|err_sys`, `(?i)kelvin`, `\p{Greek}+`, `[^\x00-\x7F]`, `x.y`, `\x{FFFD}`,
	`^(?:for|int)\b`, `a|^b|c$`, `(?:^|[^a-z])for(?:[^a-z]|$)`, `[α-ω]{2}`, `.`, `é+`,
	`(a|ab)(c|bcd)(d*)`, `^[^ ]*$`, `\d+`, `(?i)ſherlock`, `^.{3}$`,
}

// The DFA answers what the line regexp answers, line by line and over a buffer.
func TestDFAAgreesWithRegexp(t *testing.T) {
	for seed := range uint64(3) {
		text := generatedText(seed+10, 2000) + "no newline at the end"
		for _, p := range dfaPatterns {
			m, err := Compile(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(p, `\b`) {
				if m.dfa != nil {
					t.Fatalf("%q: a DFA for a word boundary", p)
				}
				continue
			}
			if m.dfa == nil {
				t.Fatalf("%q: no DFA", p)
			}
			c := m.dfa.get()
			for _, l := range strings.Split(text, "\n") {
				if got, want := c.matchLine([]byte(l)), m.line.Match([]byte(l)); got != want {
					t.Fatalf("%q on %q: DFA %v, regexp %v", p, l, got, want)
				}
			}
			var got, want []string
			buf := []byte(text)
			m.scanDFA(c, buf, 0, func(s, e int) bool { got = append(got, text[s:e]); return true })
			m.scanRegexp(buf, 0, func(s, e int) bool { want = append(want, text[s:e]); return true })
			if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
				t.Fatalf("%q: DFA scan %d lines, regexp %d", p, len(got), len(want))
			}
			m.dfa.put(c)
		}
	}
}

// A cache that outgrows maxDFAStates is emptied and keeps answering.
func TestDFAStateLimit(t *testing.T) {
	m, _ := Compile(`[a-q][^u-z]{13}x`, Options{}) // a classic exponential DFA
	text := generatedText(99, 3000)
	c := m.dfa.get()
	for _, l := range strings.Split(text, "\n") {
		if got, want := c.matchLine([]byte(l)), m.line.Match([]byte(l)); got != want {
			t.Fatalf("on %q: DFA %v, regexp %v", l, got, want)
		}
	}
}

// A class window that proves as common as lines is given up for the DFA, or for the
// regexp where a \b leaves no DFA, from the line where it was judged: the lines found
// are those the scan without a prefilter finds.
func TestClassWindowGivenUp(t *testing.T) {
	text := generatedText(11, 3000)
	// every offset inside a word holds the first two's window
	for _, p := range []string{`[a-z]{4}[a-z]?[A-Z]`, `[a-z]{4}[a-z]?[A-Z]\b`, `[A-Z][A-Z_][A-Z]`} {
		m, err := Compile(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.pre.(*classWindow); !ok {
			t.Fatalf("%q: prefilter %v, want a class window", p, m.pre)
		}
		var c *dfaCache
		if m.dfa != nil {
			c = m.dfa.get()
		}
		var want []string
		m.scan(c, []byte(text), 0, func(s, e int) bool { want = append(want, text[s:e]); return true })
		if got := lines(t, m, text); strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
			t.Errorf("%q: %d lines, without the window %d", p, len(got), len(want))
		}
	}
}

// The anchored DFA finds a match starting at an offset exactly where the regexp,
// anchored there, does: every offset of every line (the first only where the pattern
// holds ^, which a regexp on the rest of a line would take for its start).
func TestAnchoredDFAAgreesWithRegexp(t *testing.T) {
	text := generatedText(21, 1500) + "no newline at the end"
	for _, p := range dfaPatterns {
		m, err := Compile(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if m.dfa == nil {
			continue // \b: no DFA
		}
		tree, err := syntax.Parse(m.line.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		d := newLineDFA(tree.Simplify(), true)
		c := d.get()
		ref := regexp.MustCompile(`\A(?:` + m.line.String() + `)`)
		for _, l := range strings.Split(text, "\n") {
			for i := 0; i <= len(l); i++ {
				if i > 0 && strings.Contains(p, "^") {
					break
				}
				if got, want := c.matchFrom([]byte(l), i), ref.MatchString(l[i:]); got != want {
					t.Fatalf("%q on %q at %d: anchored DFA %v, regexp %v", p, l, i, got, want)
				}
			}
		}
		d.put(c)
	}
}
