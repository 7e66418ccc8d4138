package match

import (
	"math"
	"math/bits"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// classWindow finds where a match can start when the pattern requires no literal but
// begins with a few ASCII classes: `[A-Z]{2}[0-9]{3}` starts with [A-Z], [A-Z], [0-9],
// a window that English text holds once in ~16 KB though each class alone is common.
// Teddy's nibble tables (teddy.go) test the three classes at 32 positions at once, as
// a superset (a class becomes the bytes whose low and high nibbles occur in it), and
// each position found is checked against the classes exactly, then tried as a match's
// start by an anchored DFA, which gives up within a few bytes where none starts (not
// the line from its start: Linux's C holds such a window every 320 bytes). On that
// pattern the lazy DFA alone, one table look-up per byte, was slower than GNU grep's DFA
// (0.33 s against 0.23 s on 256 MiB of text). A window that proves common in the buffer
// at hand is given up for the DFA (EachLine).
type classWindow struct {
	sets []byteSet // the classes of 2 or 3 consecutive bytes of every match
	off  int       // where they lie in a match: every match starts off bytes before
	scan literalSet
}

const (
	maxWindow = 3 // Teddy's fingerprint width
	maxFixed  = 8 // the leading classes looked at for the rarest window
)

// windowPrefilter: a classWindow for tree, or nil where a match's first two bytes are
// not both ASCII classes. Of the first maxFixed classes, the window is the rarest
// three in a row by byteRank: `[A-Z][a-z]{2}[0-9]` is searched for [a-z][a-z][0-9],
// not for a capitalised word.
func windowPrefilter(tree *syntax.Regexp) Prefilter {
	fixed, _ := windowOf(tree, nil)
	if len(fixed) < 2 {
		return nil
	}
	best, width := 0, min(len(fixed), maxWindow)
	for at := range len(fixed) - width + 1 {
		if commonness(fixed[at:at+width]) < commonness(fixed[best:best+width]) {
			best = at
		}
	}
	sets := fixed[best : best+width]
	w := &classWindow{sets: sets, off: best, scan: literalSet{width: width}}
	w.scan.openPositions()
	w.buckets()
	return w
}

// rect is the bytes whose high nibble is in hi and low nibble in lo (bit n: nibble n):
// what one bucket of Teddy's tables holds at one position.
type rect struct{ hi, lo uint16 }

// buckets fills the tables so that some bucket holds exactly a window's bytes: each
// class is split into rectangles (its high nibbles grouped by the low nibbles they come
// with: [A-Z] is 0x41-0x4F and 0x50-0x5A), and each combination of one rectangle per
// position is one of the 8 buckets; where there are more combinations, the class with
// the most rectangles is merged into one until they fit (a superset, which w.at sorts out).
func (w *classWindow) buckets() {
	rects := make([][]rect, len(w.sets))
	for k, set := range w.sets {
		rects[k] = rectsOf(set)
	}
	for {
		n, most := 1, 0
		for k := range rects {
			n *= len(rects[k])
			if len(rects[k]) > len(rects[most]) {
				most = k
			}
		}
		if n <= len(w.scan.buckets) {
			break
		}
		var all rect
		for _, r := range rects[most] {
			all.hi, all.lo = all.hi|r.hi, all.lo|r.lo
		}
		rects[most] = []rect{all}
	}
	combo := make([]int, len(rects)) // one rectangle per position, counted like digits
	for bucket := 0; ; bucket++ {
		for k, i := range combo {
			for x := range 16 {
				if rects[k][i].lo&(1<<x) != 0 {
					w.scan.masks[2*k][x] |= 1 << bucket
					w.scan.masks[2*k][16+x] |= 1 << bucket
				}
				if rects[k][i].hi&(1<<x) != 0 {
					w.scan.masks[2*k+1][x] |= 1 << bucket
					w.scan.masks[2*k+1][16+x] |= 1 << bucket
				}
			}
		}
		k := 0
		for ; k < len(combo); k++ {
			if combo[k]++; combo[k] < len(rects[k]) {
				break
			}
			combo[k] = 0
		}
		if k == len(combo) {
			return
		}
	}
}

// rectsOf: set (ASCII) as rectangles, one per distinct set of low nibbles.
func rectsOf(set byteSet) []rect {
	var out []rect
	for hi := range 8 {
		var lo uint16
		for x := range 16 {
			if set[hi<<4|x] {
				lo |= 1 << x
			}
		}
		if lo == 0 {
			continue
		}
		i := 0
		for i < len(out) && out[i].lo != lo {
			i++
		}
		if i == len(out) {
			out = append(out, rect{lo: lo})
		}
		out[i].hi |= 1 << hi
	}
	return out
}

// commonness of a window: log2 of the share of offsets where it would match. byteRank
// grows with the logarithm of a byte's frequency (~16 steps per doubling is assumed),
// and a class is as common as its members together; a class repeating the one before
// it is taken to follow it half the time, as digits and capitals come in runs (in man
// pages [0-9]{3} occurs every 2 KB and [A-Z]{2}[0-9] every 16 KB, though digits are
// ten times rarer than capitals alone).
func commonness(sets []byteSet) float64 {
	total := 0.0
	for k, set := range sets {
		if k > 0 && set == sets[k-1] {
			total--
			continue
		}
		total += math.Log2(byteWeight(set) / byteWeight(anyByte))
	}
	return total
}

var anyByte = func() (all byteSet) {
	for b := range all {
		all[b] = true
	}
	return all
}()

func byteWeight(set byteSet) float64 {
	w := 0.0
	for b, in := range set {
		if in {
			w += math.Exp2(float64(byteRank[b]) / 16)
		}
	}
	return w
}

// windowOf appends to w the classes of the next bytes of every match of re, up to
// maxFixed; more: re fixes every byte it matches, so what follows re comes next.
// Assertions match no byte and are passed over: the window is a filter, and a
// superset of the matches' starts is all it must find.
func windowOf(re *syntax.Regexp, w []byteSet) (out []byteSet, more bool) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			set, ok := asciiRune(r, re.Flags&syntax.FoldCase != 0)
			if !ok || len(w) == maxFixed {
				return w, false
			}
			w = append(w, set)
		}
		return w, true
	case syntax.OpCharClass:
		var set byteSet
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1] >= utf8.RuneSelf {
				return w, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set[r] = true
			}
		}
		if len(w) == maxFixed {
			return w, false
		}
		return append(w, set), true
	case syntax.OpCapture:
		return windowOf(re.Sub[0], w)
	case syntax.OpPlus:
		w, _ = windowOf(re.Sub[0], w)
		return w, false
	case syntax.OpRepeat:
		for range re.Min {
			if w, more = windowOf(re.Sub[0], w); !more {
				return w, false
			}
		}
		return w, re.Min > 0 && re.Max == re.Min
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if w, more = windowOf(sub, w); !more {
				return w, false
			}
		}
		return w, true
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		return w, true
	}
	return w, false
}

// asciiRune: the bytes that match rune r, where all are ASCII (under folding, r's
// orbit: k and s also fold to the Kelvin sign and the long s, which are not).
func asciiRune(r rune, fold bool) (set byteSet, ok bool) {
	if r >= utf8.RuneSelf {
		return set, false
	}
	set[r] = true
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				return set, false
			}
			set[f] = true
		}
	}
	return set, true
}

// Next: the next offset at or after from where the window's classes all match, and the
// window's end; -1, -1 when none is left.
func (w *classWindow) Next(buf []byte, from int) (int, int) {
	width := len(w.sets)
	for pos := from; pos+width <= len(buf); {
		at, mask := teddyScan(buf, pos, &w.scan)
		for ; mask != 0; mask &= mask - 1 {
			if p := at + bits.TrailingZeros32(mask); w.at(buf, p) {
				return p, p + width
			}
		}
		if at < 0 {
			return -1, -1
		}
		pos = at + 32
	}
	return -1, -1
}

func (w *classWindow) at(buf []byte, p int) bool {
	for k, set := range w.sets {
		if !set[buf[p+k]] {
			return false
		}
	}
	return true
}

func (w *classWindow) String() string {
	parts := make([]string, len(w.sets))
	for k, set := range w.sets {
		var ranges []rune
		for b := 0; b < utf8.RuneSelf; b++ {
			if !set[b] {
				continue
			}
			if n := len(ranges); n > 0 && ranges[n-1] == rune(b)-1 {
				ranges[n-1] = rune(b)
			} else {
				ranges = append(ranges, rune(b), rune(b))
			}
		}
		parts[k] = (&syntax.Regexp{Op: syntax.OpCharClass, Rune: ranges}).String()
	}
	return "a window of classes " + strings.Join(parts, " ") + " (where a match can start)"
}
