package match

import (
	"os"
	"testing"
)

// Throughput of the literal scans on real text (GOREP_BENCH_TEXT, a file), no match.
func BenchmarkPairScan(b *testing.B) {
	data, err := os.ReadFile(os.Getenv("GOREP_BENCH_TEXT"))
	if err != nil {
		b.Skip("GOREP_BENCH_TEXT names no readable file")
	}
	for _, c := range []struct {
		name string
		p    Prefilter
	}{
		{"exact", newPairLiteral("zyqxote", false)},
		{"fold", newPairLiteral("zyqxote", true)},
		{"teddy", newLiteralSet([]string{"zyqxote", "qqqzz", "xxjjk"}, false)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				if at, _ := c.p.Next(data, 0); at >= 0 {
					b.Fatal("found")
				}
			}
		})
	}
}
