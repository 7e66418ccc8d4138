// Package match compiles gorep's one pattern into what each part of a search needs: a
// name matcher (directory and file names), and a content matcher that finds the lines
// of a buffer that match, with a literal prefilter in front of the regular expression.
//
// Lines never contain their terminator, so the pattern is rewritten before compiling:
// classes lose '\n' and `.` never matches it (as ripgrep does), and a pattern that needs
// a literal line break is refused. Then a match can never span lines, and a whole buffer
// can be searched at once instead of line by line.
package match

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Options are the flags that change what the pattern means.
type Options struct {
	IgnoreCase bool // -i: Unicode simple case folding
	Word       bool // -w: the match is preceded and followed by a non-word character or the line's edge (Unicode)
	Fixed      bool // -F: the pattern is a literal string, not a regular expression
	LineRegexp bool // -x: the match is the whole line (before Word, which it makes moot)
	SmartCase  bool // -S: IgnoreCase unless the pattern holds an upper-case letter
}

// Matcher is one compiled pattern; safe for concurrent use.
type Matcher struct {
	pattern string
	line    *regexp.Regexp // on one line (no terminator): ^ and $ are its ends
	strict  *regexp.Regexp // line without U+FFFD in its classes, for invalid UTF-8; nil: the same
	buffer  *regexp.Regexp // on a buffer of lines: ^ and $ at every line
	pre     Prefilter      // nil: no literal is required, the regexp scans the buffer
	whole   bool           // each line pre finds matches: the pattern is its literals
	word    bool           // -w: the match is the regexps' group 1
	word1   bool           // -w of one literal: pre's occurrences are judged by wordAt
	dfa     *lineDFA       // the line regexp as a lazy DFA; nil: the regexp itself
	starts  *lineDFA       // anchored, tried where a class window is found; or nil
}

// Error is a pattern that cannot be compiled; it names the pattern and the reason.
type Error struct {
	Pattern string
	Reason  string
}

func (e *Error) Error() string { return fmt.Sprintf("pattern %q: %s", e.Pattern, e.Reason) }

// Compile compiles pattern under opts.
func Compile(pattern string, opts Options) (*Matcher, error) {
	if !utf8.ValidString(pattern) {
		return nil, &Error{pattern, "not valid UTF-8"}
	}
	src := pattern
	if opts.SmartCase && !hasUpper(pattern, opts.Fixed) {
		opts.IgnoreCase = true
	}
	if opts.Fixed {
		src = regexp.QuoteMeta(src)
	}
	src = unicodePerlClasses(src)
	inner := src
	if opts.LineRegexp {
		src = `^(?:` + src + `)$`
	} else if opts.Word { // ripgrep's -w; \b would be ASCII and would let `\(void` follow a letter
		nonWord := perlClass('W', false)
		src = `(?:^|` + nonWord + `)(` + src + `)(?:` + nonWord + `|$)`
	}
	flags := syntax.Perl
	if opts.IgnoreCase {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(src, flags)
	if err != nil {
		return nil, &Error{pattern, err.Error()}
	}
	if err := withoutLineBreaks(tree); err != nil {
		return nil, &Error{pattern, err.Error()}
	}
	tree = tree.Simplify()
	line, err := regexp.Compile(tree.String())
	if err != nil {
		return nil, &Error{pattern, err.Error()}
	}
	buffer, err := regexp.Compile("(?m:" + lineAnchored(tree).String() + ")")
	if err != nil {
		return nil, &Error{pattern, err.Error()}
	}
	m := &Matcher{pattern: pattern, line: line, buffer: buffer, word: opts.Word}
	m.pre, m.whole = prefilterFor(tree)
	m.dfa = newLineDFA(tree, false)
	if _, window := m.pre.(*classWindow); window && m.dfa != nil {
		m.starts = newLineDFA(tree, true)
	}
	if strictTree, changed := withoutReplacementChar(tree); changed {
		if m.strict, err = regexp.Compile(strictTree.String()); err != nil {
			return nil, &Error{pattern, err.Error()}
		}
		m.whole = false
	}
	if opts.Word && !opts.LineRegexp {
		m.wordLiteral(inner, flags)
	}
	return m, nil
}

// wordLiteral: under -w, where the pattern itself is one literal, each occurrence the
// prefilter finds is judged by the characters on either side of it, without the
// regexp (which spent 70% of `-w for` on a text file backtracking over each line).
func (m *Matcher) wordLiteral(inner string, flags syntax.Flags) {
	tree, err := syntax.Parse(inner, flags)
	if err != nil || withoutLineBreaks(tree) != nil {
		return
	}
	r := requiredOf(tree.Simplify())
	if r.whole && len(r.lits) == 1 {
		m.pre, m.word1 = newPairLiteral(r.lits[0], r.fold), true
	}
}

// wordAt decides whether the occurrence line[start:end] of the -w literal is a word:
// a non-word character or the line's edge on both sides; undecided when a neighbour is
// not valid UTF-8 or is U+FFFD (the regexp knows what those mean).
func wordAt(line []byte, start, end int) (word, decided bool) {
	if start > 0 {
		r, size := utf8.DecodeLastRune(line[:start])
		if r == utf8.RuneError || size == 0 {
			return false, false
		}
		if isWordRune(r) {
			return false, true
		}
	}
	if end < len(line) {
		r, size := utf8.DecodeRune(line[end:])
		if r == utf8.RuneError || size == 0 {
			return false, false
		}
		if isWordRune(r) {
			return false, true
		}
	}
	return true, true
}

// CompileAny compiles several patterns (-e, repeated) into one that matches where any
// of them does.
func CompileAny(patterns []string, opts Options) (*Matcher, error) {
	if len(patterns) == 1 {
		return Compile(patterns[0], opts)
	}
	parts := make([]string, len(patterns))
	upper := false
	for i, p := range patterns {
		if opts.Fixed {
			p = regexp.QuoteMeta(p)
		}
		upper = upper || hasUpper(patterns[i], opts.Fixed)
		parts[i] = "(?:" + p + ")"
	}
	if opts.SmartCase && !upper {
		opts.IgnoreCase = true
	}
	opts.Fixed, opts.SmartCase = false, false
	return Compile(strings.Join(parts, "|"), opts)
}

// hasUpper: the pattern's text holds an upper-case letter, escapes (\S, \p{Lu})
// aside: ripgrep's rule for smart case.
func hasUpper(pattern string, fixed bool) bool {
	for i := 0; i < len(pattern); {
		r, size := utf8.DecodeRuneInString(pattern[i:])
		if r == '\\' && !fixed && i+size < len(pattern) {
			i += size
			n := pattern[i]
			i++
			if (n == 'p' || n == 'P' || n == 'x') && i < len(pattern) && pattern[i] == '{' {
				if end := strings.IndexByte(pattern[i:], '}'); end >= 0 {
					i += end + 1
				}
			} else if n == 'p' || n == 'P' {
				i++ // \pL
			}
			continue
		}
		if unicode.IsUpper(r) {
			return true
		}
		i += size
	}
	return false
}

// String is the pattern as the user gave it.
func (m *Matcher) String() string { return m.pattern }

// Prefilter is the literal search in front of the regexp, or nil; for --debug.
func (m *Matcher) Prefilter() Prefilter { return m.pre }

// Engine names what decides the lines the prefilter finds (or scans without one), for
// --debug.
func (m *Matcher) Engine() string {
	switch {
	case m.whole:
		return "nothing (the literals are the pattern)"
	case m.word1:
		return "the characters around each occurrence (-w)"
	case m.dfa != nil:
		return "a lazy DFA"
	}
	return "Go's regexp"
}

// MatchName reports whether a directory or file name contains a match.
func (m *Matcher) MatchName(name string) bool { return m.Match([]byte(name)) }

// Match reports whether one line (without its terminator) holds a match.
func (m *Matcher) Match(line []byte) bool {
	return m.line.Match(line) && m.valid(line)
}

// valid: a line the line regexp matches holds a match that is valid UTF-8 (where the
// pattern's classes would take U+FFFD for a byte that is not).
func (m *Matcher) valid(line []byte) bool {
	return m.strict == nil || utf8.Valid(line) || len(m.Spans(line)) > 0
}

// lineRegexp is the line regexp fit for line: the strict one where it is not UTF-8.
func (m *Matcher) lineRegexp(line []byte) *regexp.Regexp {
	if m.strict != nil && !utf8.Valid(line) {
		return m.strict
	}
	return m.line
}

// Spans returns the [start, end) byte offsets of every match in one line.
func (m *Matcher) Spans(line []byte) [][]int {
	re := m.lineRegexp(line)
	if !m.word {
		return m.validSpans(re, line, re.FindAllIndex(line, -1))
	}
	// -w: the match is group 1. Searching line[at:] lets ^ stand for "after a non-word
	// character" at `at`, which is wrong after a word character: such a match is
	// refused and the search goes on one character further.
	var spans [][]int
	for at := 0; at <= len(line); {
		loc := re.FindSubmatchIndex(line[at:])
		if loc == nil {
			break
		}
		start, end := at+loc[2], at+loc[3]
		if start == at && at > 0 && isWordBefore(line, at) {
			_, size := utf8.DecodeRune(line[at:])
			at += max(size, 1)
			continue
		}
		spans = append(spans, []int{start, end})
		at = max(end, start+1)
	}
	return m.validSpans(re, line, spans)
}

// validSpans drops the strict regexp's matches that hold a byte that is not UTF-8.
func (m *Matcher) validSpans(re *regexp.Regexp, line []byte, spans [][]int) [][]int {
	if re != m.strict {
		return spans
	}
	kept := spans[:0]
	for _, s := range spans {
		if utf8.Valid(line[s[0]:s[1]]) {
			kept = append(kept, s)
		}
	}
	return kept
}

// isWordBefore: the character before offset at is a word character (\w).
func isWordBefore(line []byte, at int) bool {
	r, _ := utf8.DecodeLastRune(line[:at])
	return isWordRune(r)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r|0x20 && r|0x20 <= 'z' || '0' <= r && r <= '9' || r == '_'
	}
	i := sort.Search(len(wordRanges)/2, func(i int) bool { return wordRanges[2*i+1] >= r })
	return i < len(wordRanges)/2 && wordRanges[2*i] <= r
}

// withoutLineBreaks removes '\n' from every class of the tree, makes `.` stop at it, and
// refuses a literal line break, which can never occur inside a line.
func withoutLineBreaks(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return fmt.Errorf("a line break (\\n) never occurs inside a line; search line by line")
			}
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		re.Rune = classWithout(re.Rune, '\n')
		if len(re.Rune) == 0 {
			re.Op = syntax.OpNoMatch
		}
	}
	for _, sub := range re.Sub {
		if err := withoutLineBreaks(sub); err != nil {
			return err
		}
	}
	return nil
}

// classWithout removes rune x from a class given as sorted [lo, hi] pairs.
func classWithout(ranges []rune, x rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if x < lo || x > hi {
			out = append(out, lo, hi)
			continue
		}
		if lo < x {
			out = append(out, lo, x-1)
		}
		if x < hi {
			out = append(out, x+1, hi)
		}
	}
	return out
}

// lineAnchored is a copy of the tree where the ends of the text (\A, \z, and ^ $ outside
// multi-line mode) are the ends of a line: what they mean on a line is what they must
// mean on a buffer of lines.
func lineAnchored(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	switch c.Op {
	case syntax.OpBeginText:
		c.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		c.Op = syntax.OpEndLine
		c.Flags &^= syntax.WasDollar
	}
	if len(re.Sub) > 0 {
		c.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			c.Sub[i] = lineAnchored(s)
		}
	}
	return &c
}
