package match

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// generatedText: lines of words, some upper case, next to non-ASCII letters, digits,
// punctuation, lone bytes that are not UTF-8, the Kelvin sign and the long s (which
// fold to k and s), so that every literal search path meets its edge cases.
func generatedText(seed uint64, lines int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	words := []string{"for", "For", "FOR", "format", "before", "holmes", "Holmes", "HOLMES",
		"err_sys", "ERR_SYS", "A_SUSPEND", "_SUSPEND", "x_SUSPEND", "éfor", "forü", "naïve",
		"\u212aelvin", "kelvin", "\u017fherlock", "sherlock", "Sherlock", "\xff", "for\xe9",
		"(void", "int", "١٢٣", "λόγος", "running", "sing", "_", "-", "for_", "4for", " "}
	seps := []string{" ", " ", " ", "\t", ",", "(", ")", "", ".", "\u00a0"}
	var b strings.Builder
	for range lines {
		for n := r.IntN(8); n > 0; n-- {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Each search path (one literal, exact and folded; a set, exact and folded; -w of one
// literal; a literal suffix after a class), with the SIMD scans and without, prints
// ripgrep's lines on generated text.
func TestSearchPathsEqualRipgrep(t *testing.T) {
	cases := []struct {
		pattern string
		opts    Options
		flags   []string
	}{
		{"for", Options{}, nil},
		{"for", Options{IgnoreCase: true}, []string{"-i"}},
		{"sherlock", Options{IgnoreCase: true}, []string{"-i"}},
		{"kelvin", Options{IgnoreCase: true}, []string{"-i"}},
		{"holmes|err_sys|naïve|int", Options{}, nil},
		{"holmes|err_sys|naïve|int|for", Options{IgnoreCase: true}, []string{"-i"}},
		{"for", Options{Word: true}, []string{"-w"}},
		{"FOR", Options{Word: true, IgnoreCase: true}, []string{"-w", "-i"}},
		{"(void", Options{Word: true, Fixed: true}, []string{"-w", "-F"}},
		{"for|int", Options{Word: true}, []string{"-w"}},
		{"[A-Z]+_SUSPEND", Options{}, nil},
		{`\w+ing\s`, Options{}, nil},
		{`\p{Greek}+`, Options{}, nil},
		{`[A-Z][A-Z_][A-Z]`, Options{}, nil}, // a class window
		{`[a-z]{2}[a-z ]`, Options{}, nil},   // a window as common as lines: given up for the DFA
	}
	for seed := range uint64(4) {
		text := generatedText(seed, 3000)
		for _, c := range cases {
			m, err := Compile(c.pattern, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			want := ripgrepLines(t, c.pattern, text, c.flags...)
			eachScan(t, func(t *testing.T) {
				got := lines(t, m, text)
				if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
					t.Errorf("%q %v (prefilter %s): %d lines, ripgrep %d", c.pattern, c.flags, m.pre, len(got), len(want))
				}
			})
		}
	}
}
