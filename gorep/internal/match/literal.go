package match

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// A required literal: every match contains one of a set of strings. Found on the parsed
// pattern: a literal is required, a concatenation requires its best part, an alternation
// one of each branch's, a repetition of at least one its operand's. Anything else (a
// class, an optional part) requires nothing.

type required struct {
	lits  []string // every match contains one of these
	fold  bool     // compared under case folding
	whole bool     // and every occurrence of one is a match: the pattern is the literals
}

func (r required) ok() bool { return len(r.lits) > 0 }

// score: the shortest literal's length, the longer the fewer false candidates; a case-
// folded search and a set cost more per byte than one exact literal.
func (r required) score() int {
	if !r.ok() {
		return 0
	}
	short := len(r.lits[0])
	for _, l := range r.lits[1:] {
		short = min(short, len(l))
	}
	s := short * 4
	if r.fold {
		s -= 2
	}
	if len(r.lits) > 1 {
		s -= 1
	}
	return s
}

func requiredOf(re *syntax.Regexp) required {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			r := foldable(string(re.Rune))
			r.whole = r.ok() && r.lits[0] == string(re.Rune)
			return r
		}
		return required{lits: []string{string(re.Rune)}, whole: len(re.Rune) > 0}
	case syntax.OpCapture:
		return requiredOf(re.Sub[0])
	case syntax.OpPlus:
		r := requiredOf(re.Sub[0])
		r.whole = false
		return r
	case syntax.OpRepeat:
		if re.Min >= 1 {
			r := requiredOf(re.Sub[0])
			r.whole = r.whole && re.Min == 1 && re.Max == 1
			return r
		}
	case syntax.OpConcat:
		var best required
		for _, sub := range re.Sub {
			if r := requiredOf(sub); r.score() > best.score() {
				best = r
			}
		}
		best.whole = false
		return best
	case syntax.OpAlternate:
		all := required{whole: true}
		for i, sub := range re.Sub {
			r := requiredOf(sub)
			if !r.ok() || (i > 0 && r.fold != all.fold) {
				return required{}
			}
			all.fold, all.whole = r.fold, all.whole && r.whole
			all.lits = append(all.lits, r.lits...)
			if len(all.lits) > maxSetLiterals {
				return required{}
			}
		}
		return all
	}
	return required{}
}

// foldable: of a literal compared under case folding, the longest run that an ASCII
// case-insensitive search finds exactly: ASCII only, and without k and s, whose folds
// include non-ASCII letters (the Kelvin sign, the long s).
func foldable(lit string) required {
	best, start := "", 0
	for i := 0; i <= len(lit); {
		r, size := rune(-1), 1
		if i < len(lit) {
			r, size = utf8.DecodeRuneInString(lit[i:])
		}
		if r < 0 || r >= utf8.RuneSelf || !asciiFoldSafe(byte(r)) {
			if i-start > len(best) {
				best = lit[start:i]
			}
			start = i + size
		}
		i += size
	}
	if best == "" {
		return required{}
	}
	return required{lits: []string{best}, fold: true}
}

func asciiFoldSafe(b byte) bool {
	l := unicode.ToLower(rune(b))
	return l != 'k' && l != 's'
}

// prefilterFor is the fastest literal search that finds every line the tree can match;
// whole: every occurrence it finds is a match.
func prefilterFor(tree *syntax.Regexp) (pre Prefilter, whole bool) {
	r := requiredOf(tree)
	switch {
	case !r.ok():
		if set, ok := firstBytes(tree); ok {
			if pre := byteSetPrefilter(set); pre != nil {
				return pre, false
			}
		}
		return windowPrefilter(tree), false
	case len(r.lits) == 1:
		return newPairLiteral(r.lits[0], r.fold), r.whole
	default:
		return newLiteralSet(r.lits, r.fold), r.whole
	}
}
