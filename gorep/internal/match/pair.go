package match

import (
	"bytes"
	"fmt"
	"math/bits"
)

// pairLiteral finds one literal, exact or under ASCII case folding, as ripgrep's memchr
// does: two of its bytes, the rarest by byteRank, are compared at their offsets 32
// positions at a time (AVX2), and only the positions where both agree are compared in
// full. bytes.Index keys on the needle's first byte instead: for `_SUSPEND` in C, where
// '_' is common, it spent 94% of a search verifying false starts. Under folding a
// letter's two cases are one byte with bit 0x20 set (b|0x20), so the same comparison
// serves -i and no lowered copy of the input is made.
type pairLiteral struct {
	lit    []byte // lower case when fold
	fold   bool
	i1, i2 int  // offsets of the two rare bytes in lit (i1 < i2, or both 0)
	b1, b2 byte // their values, lower case when folded
	m1, m2 byte // 0x20 where that byte is a letter compared under folding, else 0
}

func newPairLiteral(lit string, fold bool) *pairLiteral {
	p := &pairLiteral{lit: []byte(lit), fold: fold}
	if fold {
		p.lit = bytes.ToLower(p.lit)
	}
	// the rarest position, then the rarest holding another byte value where one does
	best, second := 0, -1
	for i := range p.lit {
		if p.rank(i) < p.rank(best) {
			best = i
		}
	}
	worse := func(i, j int) bool { // position i is a worse second choice than j
		si, sj := p.lit[i] == p.lit[best], p.lit[j] == p.lit[best]
		return si && !sj || si == sj && p.rank(i) > p.rank(j)
	}
	for i := range p.lit {
		if i != best && (second < 0 || worse(second, i)) {
			second = i
		}
	}
	if second < 0 {
		second = best
	}
	p.i1, p.i2 = min(best, second), max(best, second)
	p.b1, p.m1 = p.lit[p.i1], p.mask(p.i1)
	p.b2, p.m2 = p.lit[p.i2], p.mask(p.i2)
	return p
}

// rank of the byte at offset i: under folding a letter is as common as both its cases.
func (p *pairLiteral) rank(i int) int {
	b := p.lit[i]
	if p.fold && isLowerASCII(b) {
		return int(byteRank[b]) + int(byteRank[b-('a'-'A')])
	}
	return 2 * int(byteRank[b])
}

func (p *pairLiteral) mask(i int) byte {
	if p.fold && isLowerASCII(p.lit[i]) {
		return 0x20
	}
	return 0
}

func isLowerASCII(b byte) bool { return 'a' <= b && b <= 'z' }

// Next: the bounds of the literal's next occurrence at or after from, or -1, -1.
func (p *pairLiteral) Next(buf []byte, from int) (int, int) {
	last := len(buf) - len(p.lit) // the last offset an occurrence can start at
	for from <= last {
		at, mask := pairScan(buf[:last+p.i2+1], from, p)
		for ; mask != 0; mask &= mask - 1 {
			if s := at + bits.TrailingZeros32(mask); p.at(buf, s) {
				return s, s + len(p.lit)
			}
		}
		if at < 0 {
			return -1, -1
		}
		from = at + 32
	}
	return -1, -1
}

// at: the literal occurs at offset s of buf.
func (p *pairLiteral) at(buf []byte, s int) bool {
	if p.fold {
		return equalFoldASCII(buf[s:s+len(p.lit)], p.lit)
	}
	return bytes.Equal(buf[s:s+len(p.lit)], p.lit)
}

// equalFoldASCII: s equals lower (lower case ASCII) with ASCII letters of s folded.
func equalFoldASCII(s, lower []byte) bool {
	for i, b := range s {
		if b|0x20 != lower[i] && b != lower[i] {
			return false
		}
		if b != lower[i] && !isLowerASCII(b|0x20) {
			return false
		}
	}
	return true
}

// pairScanGeneric is pairScan without SIMD: the first block of 32 offsets from `from`
// (as far as the two bytes fit in buf) where both bytes agree somewhere, and a mask of
// those offsets; at = -1 when none is left.
func pairScanGeneric(buf []byte, from int, p *pairLiteral) (at int, mask uint32) {
	end := len(buf) - p.i2 // offsets s < end have both bytes inside buf
	for ; from < end; from += 32 {
		mask = 0
		for s := from; s < min(from+32, end); s++ {
			if buf[s+p.i1]|p.m1 == p.b1 && buf[s+p.i2]|p.m2 == p.b2 {
				mask |= 1 << (s - from)
			}
		}
		if mask != 0 {
			return from, mask
		}
	}
	return -1, 0
}

func (p *pairLiteral) String() string {
	kind := "literal"
	if p.fold {
		kind = "case-insensitive literal"
	}
	return fmt.Sprintf("%s %q", kind, string(p.lit))
}
