package match

import (
	"bytes"
	"fmt"
	"math/bits"
	"strings"
)

// literalSet finds any of several literals (an alternation, or the bytes a match can
// start with) in one pass, with Hyperscan's Teddy, as ripgrep does: each literal is
// put in one of 8 buckets, and a window of up to 3 of its bytes (its rarest, by
// byteRank) is its fingerprint. For each fingerprint position, two 16-entry tables map
// a byte's low and high nibble to the buckets whose fingerprint has such a byte there;
// PSHUFB looks up 32 bytes at once, and a position where a bucket survives all three
// lookups is checked against that bucket's literals. One pass over the buffer however
// many literals: the former search ran bytes.Index once per literal, and scanned a
// 696 MB file 5 times for a 5-word alternation. Under ASCII folding both cases of a
// letter go into the tables, so -i needs no lowered copy of the input either.
type literalSet struct {
	lits    [][]byte // lower case when fold
	fold    bool
	width   int   // fingerprint bytes, 1 to 3: the shortest literal's length at most
	off     []int // offset of each literal's fingerprint in it
	buckets [8][]int
	// masks[2k] and masks[2k+1]: the low- and high-nibble tables of fingerprint byte k,
	// each 16 entries repeated for both 128-bit lanes; all ones past width.
	masks [6][32]byte
}

const maxSetLiterals = 64 // more than this: too many false candidates per bucket

func newLiteralSet(lits []string, fold bool) *literalSet {
	s := &literalSet{fold: fold, width: 3}
	for _, l := range lits {
		b := []byte(l)
		if fold {
			b = bytes.ToLower(b)
		}
		s.lits = append(s.lits, b)
		s.width = min(s.width, len(b))
	}
	s.openPositions()
	for j, lit := range s.lits {
		bestAt, bestRank := 0, -1
		for w := 0; w+s.width <= len(lit); w++ {
			r := 0
			for k := range s.width {
				r += s.rank(lit[w+k])
			}
			if bestRank < 0 || r < bestRank {
				bestAt, bestRank = w, r
			}
		}
		s.off = append(s.off, bestAt)
		bucket := j % len(s.buckets)
		s.buckets[bucket] = append(s.buckets[bucket], j)
		for k := range s.width {
			c := lit[bestAt+k]
			s.addByte(k, bucket, c)
			if fold && isLowerASCII(c) {
				s.addByte(k, bucket, c-('a'-'A'))
			}
		}
	}
	return s
}

func (s *literalSet) rank(b byte) int {
	if s.fold && isLowerASCII(b) {
		return int(byteRank[b]) + int(byteRank[b-('a'-'A')])
	}
	return 2 * int(byteRank[b])
}

// openPositions lets any byte through at the fingerprint positions past width.
func (s *literalSet) openPositions() {
	for k := range s.masks {
		if k/2 >= s.width {
			for i := range s.masks[k] {
				s.masks[k][i] = 0xff
			}
		}
	}
}

func (s *literalSet) addByte(k, bucket int, c byte) {
	bit := byte(1) << bucket
	s.masks[2*k][c&15] |= bit
	s.masks[2*k][16+c&15] |= bit
	s.masks[2*k+1][c>>4] |= bit
	s.masks[2*k+1][16+c>>4] |= bit
}

// bucketsAt: the buckets whose fingerprint the bytes at pos agree with.
func (s *literalSet) bucketsAt(buf []byte, pos int) byte {
	b := byte(0xff)
	for k := range s.width {
		c := buf[pos+k]
		b &= s.masks[2*k][c&15] & s.masks[2*k+1][c>>4]
	}
	return b
}

// Next: the bounds of the next occurrence of any literal that starts at or after from,
// or -1, -1. Candidates come in the order of their fingerprints, so an occurrence
// found later may start earlier, but then it overlaps the one returned: both lie on
// one line, as literals hold no line break.
func (s *literalSet) Next(buf []byte, from int) (int, int) {
	for pos := from; pos+s.width <= len(buf); {
		at, mask := teddyScan(buf, pos, s)
		for ; mask != 0; mask &= mask - 1 {
			p := at + bits.TrailingZeros32(mask)
			for b := s.bucketsAt(buf, p); b != 0; b &= b - 1 {
				for _, j := range s.buckets[bits.TrailingZeros8(b)] {
					if st := p - s.off[j]; st >= from && s.at(buf, st, j) {
						return st, st + len(s.lits[j])
					}
				}
			}
		}
		if at < 0 {
			return -1, -1
		}
		pos = at + 32
	}
	return -1, -1
}

// at: literal j occurs at offset st of buf.
func (s *literalSet) at(buf []byte, st, j int) bool {
	lit := s.lits[j]
	if st+len(lit) > len(buf) {
		return false
	}
	if s.fold {
		return equalFoldASCII(buf[st:st+len(lit)], lit)
	}
	return bytes.Equal(buf[st:st+len(lit)], lit)
}

// teddyScanGeneric is teddyScan without SIMD: the first block of 32 positions from
// `from` where some bucket's fingerprint agrees, and a mask of those positions; at = -1
// when none is left.
func teddyScanGeneric(buf []byte, from int, s *literalSet) (at int, mask uint32) {
	end := len(buf) - s.width + 1
	for ; from < end; from += 32 {
		mask = 0
		for p := from; p < min(from+32, end); p++ {
			if s.bucketsAt(buf, p) != 0 {
				mask |= 1 << (p - from)
			}
		}
		if mask != 0 {
			return from, mask
		}
	}
	return -1, 0
}

func (s *literalSet) String() string {
	parts := make([]string, len(s.lits))
	for i, l := range s.lits {
		parts[i] = fmt.Sprintf("%q", l)
	}
	kind := "any of the literals "
	if s.fold {
		kind = "any of the case-insensitive literals "
	}
	return kind + strings.Join(parts, ", ")
}
