//go:build !amd64

package match

const useAVX2 = false

func pairScan(buf []byte, from int, p *pairLiteral) (int, uint32) {
	return pairScanGeneric(buf, from, p)
}

func teddyScan(buf []byte, from int, s *literalSet) (int, uint32) {
	return teddyScanGeneric(buf, from, s)
}

func setAVX2(bool) {}
