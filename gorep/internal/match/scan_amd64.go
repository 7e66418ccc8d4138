package match

import "golang.org/x/sys/cpu"

// useAVX2 picks the SIMD scans (scan_amd64.s); tests turn it off to check the portable
// ones against them.
var useAVX2 = cpu.X86.HasAVX2

// pairScan: the first block of 32 offsets at or after from where both of p's bytes
// agree, with a mask of those offsets (bit i: offset at+i); at = -1 when none is left.
func pairScan(buf []byte, from int, p *pairLiteral) (at int, mask uint32) {
	if useAVX2 {
		if at, mask = pairScanAVX2(buf, from, p.i1, p.i2, p.b1, p.m1, p.b2, p.m2); mask != 0 {
			return at, mask
		}
		from = at // the last few offsets, fewer than a block
	}
	return pairScanGeneric(buf, from, p)
}

// teddyScan: the first block of 32 positions at or after from where some bucket's
// fingerprint agrees, with a mask of those positions; at = -1 when none is left.
func teddyScan(buf []byte, from int, s *literalSet) (at int, mask uint32) {
	if useAVX2 {
		if at, mask = teddyScanAVX2(buf, from, &s.masks); mask != 0 {
			return at, mask
		}
		from = at
	}
	return teddyScanGeneric(buf, from, s)
}

// pairScanAVX2 scans whole blocks only; with mask 0, at is where it stopped.
//
//go:noescape
func pairScanAVX2(buf []byte, from, i1, i2 int, b1, m1, b2, m2 byte) (at int, mask uint32)

// teddyScanAVX2 scans whole blocks only (three fingerprint bytes are read at each
// position); with mask 0, at is where it stopped.
//
//go:noescape
func teddyScanAVX2(buf []byte, from int, masks *[6][32]byte) (at int, mask uint32)

func setAVX2(on bool) { useAVX2 = on }
