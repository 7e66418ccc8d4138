package match

import (
	"encoding/binary"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// When no literal is required (\p{Greek}+, [α-ω]{3}), the bytes a match can start with
// may still be rare: every non-ASCII pattern starts with a UTF-8 lead byte (>= 0xC0),
// which source text seldom holds. Scanning for such bytes runs at several GB/s, eight
// bytes at a time; Go's regexp scanning the buffer itself ran at ~25 MB/s on \p{Greek}+
// over the Go tree (7x slower than ripgrep). Only the lines found go to the regexp.

// byteSet is a set of byte values.
type byteSet [256]bool

// firstBytes: the bytes a match of re can start with; ok is false when re can match the
// empty string at the start (then every line is a candidate) or starts with anything.
func firstBytes(re *syntax.Regexp) (set byteSet, ok bool) {
	nullable := first(re, &set)
	return set, !nullable
}

// first adds the bytes a match of re can start with to set and reports whether re can
// match the empty string (then what follows it can start a match too).
func first(re *syntax.Regexp, set *byteSet) (nullable bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true
		}
		addRune(set, re.Rune[0], re.Flags&syntax.FoldCase != 0)
		return false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			addRange(set, re.Rune[i], re.Rune[i+1])
		}
		return false
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		addRange(set, 0, unicode.MaxRune)
		set['\n'] = re.Op == syntax.OpAnyChar
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return first(re.Sub[0], set)
	case syntax.OpStar, syntax.OpQuest:
		first(re.Sub[0], set)
		return true
	case syntax.OpRepeat:
		n := first(re.Sub[0], set)
		return n || re.Min == 0
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !first(sub, set) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		nullable := false
		for _, sub := range re.Sub {
			nullable = first(sub, set) || nullable
		}
		return nullable
	case syntax.OpNoMatch:
		return false
	}
	return true // empty-width assertions, the empty match
}

func addRune(set *byteSet, r rune, fold bool) {
	addRange(set, r, r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			addRange(set, f, f)
		}
	}
}

// addRange adds the first bytes of the UTF-8 encodings of lo..hi; lead bytes grow with
// the rune, so they are the bytes from lo's to hi's.
func addRange(set *byteSet, lo, hi rune) {
	var a, b [utf8.UTFMax]byte
	utf8.EncodeRune(a[:], lo)
	utf8.EncodeRune(b[:], min(hi, unicode.MaxRune))
	for x := int(a[0]); x <= int(b[0]); x++ {
		set[x] = true
	}
}

// byteSetPrefilter for the sets that are rare in text: only non-ASCII bytes (scanned a
// word at a time), or at most three bytes that are not letters, digits or spaces (one
// IndexByte each). Nil otherwise: a set with common bytes finds nearly every line.
func byteSetPrefilter(set byteSet) Prefilter {
	var members []byte
	ascii := false
	for b := range 256 {
		if set[b] {
			members = append(members, byte(b))
			ascii = ascii || b < utf8.RuneSelf
		}
	}
	if len(members) == 0 {
		return nil
	}
	if !ascii {
		return nonASCII{}
	}
	if len(members) > 3 {
		return nil
	}
	for _, b := range members {
		if b == ' ' || b == '\t' || unicode.IsLetter(rune(b)) || unicode.IsDigit(rune(b)) {
			return nil
		}
	}
	lits := make([]string, len(members))
	for i, b := range members {
		lits[i] = string([]byte{b})
	}
	if len(lits) == 1 {
		return newPairLiteral(lits[0], false)
	}
	return newLiteralSet(lits, false)
}

// nonASCII finds the next byte >= 0x80.
type nonASCII struct{}

const highBits = 0x8080808080808080

func (nonASCII) Next(buf []byte, from int) (int, int) {
	i := from
	for ; i+32 <= len(buf); i += 32 {
		w := binary.LittleEndian.Uint64(buf[i:]) | binary.LittleEndian.Uint64(buf[i+8:]) |
			binary.LittleEndian.Uint64(buf[i+16:]) | binary.LittleEndian.Uint64(buf[i+24:])
		if w&highBits != 0 {
			break
		}
	}
	for ; i < len(buf); i++ {
		if buf[i] >= utf8.RuneSelf {
			return i, i + 1
		}
	}
	return -1, -1
}

func (nonASCII) String() string { return "any non-ASCII byte (every match starts with one)" }
