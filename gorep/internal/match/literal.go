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

const maxAlternatives = 8 // more literals than this: one pass each costs more than the regexp

type required struct {
	lits []string // every match contains one of these
	fold bool     // compared under case folding
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
			return foldable(string(re.Rune))
		}
		return required{lits: []string{string(re.Rune)}}
	case syntax.OpCapture:
		return requiredOf(re.Sub[0])
	case syntax.OpPlus:
		return requiredOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredOf(re.Sub[0])
		}
	case syntax.OpConcat:
		var best required
		for _, sub := range re.Sub {
			if r := requiredOf(sub); r.score() > best.score() {
				best = r
			}
		}
		return best
	case syntax.OpAlternate:
		var all required
		for i, sub := range re.Sub {
			r := requiredOf(sub)
			if !r.ok() || (i > 0 && r.fold != all.fold) {
				return required{}
			}
			all.fold = r.fold
			all.lits = append(all.lits, r.lits...)
			if len(all.lits) > maxAlternatives {
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

// prefilterFor is the fastest literal search that finds every line the tree can match.
func prefilterFor(tree *syntax.Regexp) Prefilter {
	r := requiredOf(tree)
	switch {
	case !r.ok():
		if set, ok := firstBytes(tree); ok {
			return byteSetPrefilter(set)
		}
		return nil
	case r.fold:
		return newFoldLiteral(r.lits[0])
	case len(r.lits) == 1:
		return exactLiteral(r.lits[0])
	default:
		return newLiteralSet(r.lits)
	}
}
