package match

import (
	"fmt"
	"regexp/syntax"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Go's regexp is ASCII where ripgrep is Unicode-aware by default: \w, \d and \s are
// ASCII classes, and a byte that is not valid UTF-8 reads as U+FFFD, so [^\x00-\x7F]
// or `.` match a lone Latin-1 byte that ripgrep's classes never match. Both are fixed
// here, before and after parsing:
//
//   - unicodePerlClasses rewrites \w \W \d \D \s \S in the pattern's text into explicit
//     ranges of ripgrep's definitions (word: Alphabetic, M, Nd, Pc, Join_Control; digit:
//     Nd; space: White_Space), inside a bracket class or out;
//   - withoutReplacementChar is a copy of the tree whose classes lack U+FFFD: a line
//     that is not valid UTF-8 must match it too, with a match that is valid UTF-8 (a
//     literal U+FFFD in the pattern still reads a lone byte).
//
// \b and \B stay ASCII: RE2 has no Unicode word boundary, and one cannot be written
// with classes (it looks at both sides without consuming them). -w is built without
// them (see Compile).

// wordRanges, digitRanges, spaceRanges: sorted, merged [lo, hi] pairs.
var (
	wordRanges = mergedRanges(unicode.L, unicode.Nl, unicode.Other_Alphabetic, unicode.M,
		unicode.Nd, unicode.Pc, unicode.Join_Control)
	digitRanges = mergedRanges(unicode.Nd)
	spaceRanges = mergedRanges(unicode.White_Space)
)

func mergedRanges(tables ...*unicode.RangeTable) []rune {
	var pairs [][2]rune
	for _, t := range tables {
		for _, r := range t.R16 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				pairs = append(pairs, [2]rune{c, c})
				if r.Stride == 1 {
					pairs[len(pairs)-1][1] = rune(r.Hi)
					break
				}
			}
		}
		for _, r := range t.R32 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				pairs = append(pairs, [2]rune{c, c})
				if r.Stride == 1 {
					pairs[len(pairs)-1][1] = rune(r.Hi)
					break
				}
			}
		}
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
	var out []rune
	for _, p := range pairs {
		if n := len(out); n > 0 && p[0] <= out[n-1]+1 {
			out[n-1] = max(out[n-1], p[1])
			continue
		}
		out = append(out, p[0], p[1])
	}
	return out
}

// complement of sorted, merged pairs over all of Unicode.
func complement(ranges []rune) []rune {
	var out []rune
	next := rune(0)
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] > next {
			out = append(out, next, ranges[i]-1)
		}
		next = ranges[i+1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, next, unicode.MaxRune)
	}
	return out
}

// classText writes pairs as the inside of a bracket class.
func classText(ranges []rune) string {
	var b strings.Builder
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] == ranges[i+1] {
			fmt.Fprintf(&b, `\x{%x}`, ranges[i])
		} else {
			fmt.Fprintf(&b, `\x{%x}-\x{%x}`, ranges[i], ranges[i+1])
		}
	}
	return b.String()
}

// perlClass is the Unicode text of \w \W \d \D \s \S (letter c), for use inside a
// bracket class (inClass) or on its own.
func perlClass(c byte, inClass bool) string {
	var ranges []rune
	switch c | 0x20 {
	case 'w':
		ranges = wordRanges
	case 'd':
		ranges = digitRanges
	case 's':
		ranges = spaceRanges
	}
	negated := c >= 'A' && c <= 'Z'
	switch {
	case inClass && negated:
		return classText(complement(ranges))
	case inClass:
		return classText(ranges)
	case negated:
		return "[^" + classText(ranges) + "]"
	}
	return "[" + classText(ranges) + "]"
}

// unicodePerlClasses rewrites the Perl classes of a pattern's text into Unicode ones,
// leaving everything else (escapes, \Q...\E, \p{...}, POSIX classes) as it is.
func unicodePerlClasses(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			switch n {
			case 'w', 'W', 'd', 'D', 's', 'S':
				b.WriteString(perlClass(n, inClass))
				i += 2
				continue
			case 'Q':
				end := strings.Index(p[i+2:], `\E`)
				if end < 0 {
					b.WriteString(p[i:])
					return b.String()
				}
				end += i + 2 + 2
				b.WriteString(p[i:end])
				i = end
				continue
			case 'p', 'P', 'x':
				if i+2 < len(p) && p[i+2] == '{' {
					if end := strings.IndexByte(p[i:], '}'); end > 0 {
						b.WriteString(p[i : i+end+1])
						i += end + 1
						continue
					}
				}
			}
			_, size := utf8.DecodeRuneInString(p[i+1:])
			b.WriteString(p[i : i+1+size])
			i += 1 + size
			continue
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			i++
			if i < len(p) && p[i] == '^' {
				b.WriteByte('^')
				i++
			}
			if i < len(p) && p[i] == ']' { // a ']' first is a member
				b.WriteByte(']')
				i++
			}
			continue
		case c == '[' && inClass && strings.HasPrefix(p[i:], "[:"):
			if end := strings.Index(p[i:], ":]"); end > 0 {
				b.WriteString(p[i : i+end+2])
				i += end + 2
				continue
			}
		case c == ']' && inClass:
			inClass = false
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// withoutReplacementChar: a copy of re whose classes and `.` lack U+FFFD, which Go's
// regexp reads for every byte that is not valid UTF-8; changed reports whether any did.
func withoutReplacementChar(re *syntax.Regexp) (out *syntax.Regexp, changed bool) {
	c := *re
	switch c.Op {
	case syntax.OpAnyCharNotNL:
		c.Op = syntax.OpCharClass
		c.Rune = []rune{0, '\n' - 1, '\n' + 1, utf8.RuneError - 1, utf8.RuneError + 1, unicode.MaxRune}
		changed = true
	case syntax.OpAnyChar:
		c.Op = syntax.OpCharClass
		c.Rune = []rune{0, utf8.RuneError - 1, utf8.RuneError + 1, unicode.MaxRune}
		changed = true
	case syntax.OpLiteral: // it still matches a lone byte; Matcher.Match refuses those spans
		for _, r := range c.Rune {
			changed = changed || r == utf8.RuneError
		}
	case syntax.OpCharClass:
		if r := classWithout(c.Rune, utf8.RuneError); len(r) != len(c.Rune) || !equalRunes(r, c.Rune) {
			c.Rune, changed = r, true
			if len(r) == 0 {
				c.Op = syntax.OpNoMatch
			}
		}
	}
	if len(re.Sub) > 0 {
		c.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			var ch bool
			c.Sub[i], ch = withoutReplacementChar(s)
			changed = changed || ch
		}
	}
	return &c, changed
}

func equalRunes(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
