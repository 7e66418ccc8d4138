package match

import (
	"bytes"
	"fmt"
	"strings"
)

// Prefilter finds where a match may start: the next offset at or after `from` where a
// required literal occurs, or -1. Go's bytes.Index runs at memory speed (SSE/AVX2 on
// amd64); the regexp, which only sees the lines that hold a literal, does not.
type Prefilter interface {
	Next(buf []byte, from int) int
	String() string // for --debug
}

// exactLiteral: one literal, compared byte for byte.
type exactLiteral string

func (l exactLiteral) Next(buf []byte, from int) int {
	if i := bytes.Index(buf[from:], []byte(l)); i >= 0 {
		return from + i
	}
	return -1
}

func (l exactLiteral) String() string { return fmt.Sprintf("literal %q", string(l)) }

// perBuffer is a prefilter that keeps state while one buffer is searched: EachLine asks
// it for a fresh copy per buffer (the Matcher itself is shared by the workers).
type perBuffer interface {
	forBuffer(buf []byte) Prefilter
}

// literalSet: any of a few literals (an alternation). Searching for each literal from
// every candidate was quadratic: on 100 MB, 'zzabsent|mutex' rescanned the rest of the
// buffer for the absent literal after each "mutex" (5.5 s, against 0.08 s the other
// way round). A cursor keeps each literal's next occurrence, so the buffer is scanned
// once per literal however many candidates there are.
type literalSet struct{ lits [][]byte }

func newLiteralSet(lits []string) *literalSet {
	s := &literalSet{}
	for _, l := range lits {
		s.lits = append(s.lits, []byte(l))
	}
	return s
}

// Next without a cursor: one scan per literal.
func (s *literalSet) Next(buf []byte, from int) int {
	return s.forBuffer(buf).Next(buf, from)
}

func (s *literalSet) forBuffer(buf []byte) Prefilter {
	c := &literalCursor{set: s, next: make([]int, len(s.lits))}
	for i := range c.next {
		c.next[i] = unknown
	}
	return c
}

const unknown = -2 // a literal's next occurrence not searched for yet

// literalCursor: each literal's next occurrence in one buffer (-1: none after it).
type literalCursor struct {
	set      *literalSet
	next     []int
	searches int // bytes.Index calls, for the test that pins the single scan
}

func (c *literalCursor) Next(buf []byte, from int) int {
	best := -1
	for i, l := range c.set.lits {
		at := c.next[i]
		if at == unknown || (at >= 0 && at < from) {
			at = -1
			c.searches++
			if j := bytes.Index(buf[from:], l); j >= 0 {
				at = from + j
			}
			c.next[i] = at
		}
		if at >= 0 && (best < 0 || at < best) {
			best = at
		}
	}
	return best
}

func (c *literalCursor) String() string { return c.set.String() }

func (s *literalSet) String() string {
	parts := make([]string, len(s.lits))
	for i, l := range s.lits {
		parts[i] = fmt.Sprintf("%q", l)
	}
	return "any of the literals " + strings.Join(parts, ", ")
}

// foldLiteral: an ASCII literal under case folding. The buffer is lowered a window at a
// time into scratch space and searched with bytes.Index: two passes at memory speed,
// where a case-insensitive regexp takes one slow one.
type foldLiteral struct{ lower []byte }

const foldWindow = 64 << 10

func newFoldLiteral(lit string) *foldLiteral {
	return &foldLiteral{lower: []byte(strings.ToLower(lit))}
}

func (f *foldLiteral) Next(buf []byte, from int) int {
	var scratch [foldWindow]byte
	n := len(f.lower)
	for start := from; start < len(buf); start += foldWindow - n + 1 {
		end := min(len(buf), start+foldWindow)
		w := scratch[:end-start]
		lowerASCII(w, buf[start:end])
		if i := bytes.Index(w, f.lower); i >= 0 {
			return start + i
		}
		if end == len(buf) {
			break
		}
	}
	return -1
}

func lowerASCII(dst, src []byte) {
	for i, b := range src {
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		dst[i] = b
	}
}

func (f *foldLiteral) String() string {
	return fmt.Sprintf("case-insensitive literal %q", string(f.lower))
}
