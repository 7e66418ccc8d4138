package match

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// naiveNext: the first offset >= from where one of lits occurs (ASCII-folded with
// fold), the reference for both literal searches.
func naiveNext(buf []byte, from int, lits []string, fold bool) int {
	for s := from; s < len(buf); s++ {
		for _, l := range lits {
			if s+len(l) > len(buf) {
				continue
			}
			w := buf[s : s+len(l)]
			if fold && bytes.EqualFold(w, []byte(l)) && asciiOnly(w) || string(w) == l {
				return s
			}
		}
	}
	return -1
}

func asciiOnly(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// occurrences: every offset Next reports from 0 on, stepping one past each.
func occurrences(p Prefilter, buf []byte) []int {
	var out []int
	for from := 0; ; {
		at, end := p.Next(buf, from)
		if at >= 0 && (end <= at || end > len(buf)) {
			panic("an occurrence's end outside the buffer")
		}
		if at < 0 {
			return out
		}
		out = append(out, at)
		from = at + 1
	}
}

// The starts the reference finds; a set may report an overlapping later start first,
// so both are compared as sets of starts.
func naiveAll(buf []byte, lits []string, fold bool) []int {
	var out []int
	for from := 0; ; {
		at := naiveNext(buf, from, lits, fold)
		if at < 0 {
			return out
		}
		out = append(out, at)
		from = at + 1
	}
}

// randomText: bytes from a small alphabet (so that literals occur often), both cases,
// some '\n', '_', and high bytes.
func randomText(r *rand.Rand, n int) []byte {
	const alphabet = "abcxyzABCXYZ_\n \xc3\xa9\x80"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return b
}

// randomLiteral: folded literals are ASCII, as the literal extraction makes them.
func randomLiteral(r *rand.Rand, maxLen int, fold bool) string {
	alphabet := "abcxyzABCXYZ_ \xc3\xa9"
	if fold {
		alphabet = "abcxyz_ "
	}
	n := 1 + r.IntN(maxLen)
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// eachScan runs f with the SIMD scans (where the CPU has them) and with the portable ones.
func eachScan(t *testing.T, f func(t *testing.T)) {
	saved := useAVX2
	defer func() { setAVX2(saved) }()
	for _, simd := range []bool{false, true} {
		if simd && !saved {
			continue
		}
		setAVX2(simd)
		name := "portable"
		if simd {
			name = "avx2"
		}
		t.Run(name, f)
	}
}

func TestPairLiteralAgreesWithNaiveSearch(t *testing.T) {
	eachScan(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for range 3000 {
			fold := r.IntN(2) == 0
			lit := randomLiteral(r, 6, fold)
			if fold {
				lit = strings.ToLower(lit)
			}
			buf := randomText(r, r.IntN(300))
			p := newPairLiteral(lit, fold)
			got, want := occurrences(p, buf), naiveAll(buf, []string{lit}, fold)
			if !equalInts(got, want) {
				t.Fatalf("%s in %q: %v, want %v", p, buf, got, want)
			}
		}
	})
}

func TestLiteralSetAgreesWithNaiveSearch(t *testing.T) {
	eachScan(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for range 3000 {
			fold := r.IntN(2) == 0
			lits := make([]string, 2+r.IntN(12))
			for i := range lits {
				lits[i] = randomLiteral(r, 5, fold)
				if fold {
					lits[i] = strings.ToLower(lits[i])
				}
			}
			buf := randomText(r, r.IntN(300))
			s := newLiteralSet(lits, fold)
			got := map[int]bool{}
			for _, at := range occurrences(s, buf) {
				if naiveNext(buf, at, lits, fold) != at {
					t.Fatalf("%s in %q: %d is no occurrence", s, buf, at)
				}
				got[at] = true
			}
			// every start is found, or lies inside an overlapping occurrence found
			for _, at := range naiveAll(buf, lits, fold) {
				if !got[at] && !coveredBy(got, at, lits) {
					t.Fatalf("%s in %q: occurrence at %d missed (found %v)", s, buf, at, got)
				}
			}
		}
	})
}

// coveredBy: some start in got lies within the longest literal's reach before at (the
// stepping in occurrences skips an occurrence that overlaps an earlier one reported).
func coveredBy(got map[int]bool, at int, lits []string) bool {
	longest := 0
	for _, l := range lits {
		longest = max(longest, len(l))
	}
	for s := at - 2*longest; s <= at+2*longest; s++ {
		if got[s] {
			return true
		}
	}
	return false
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Long buffers: the SIMD loops' two-block steps, the last block, and the tail.
func TestScansAtBlockEdges(t *testing.T) {
	eachScan(t, func(t *testing.T) {
		for n := 60; n < 200; n++ {
			for _, at := range []int{0, 1, 31, 32, 33, 63, 64, 65, n - 8, n - 7} {
				if at < 0 || at+7 > n {
					continue
				}
				buf := bytes.Repeat([]byte{'.'}, n)
				copy(buf[at:], "_SUSPEN")
				for _, p := range []Prefilter{newPairLiteral("_SUSPEN", false), newPairLiteral("_suspen", true),
					newLiteralSet([]string{"_SUSPEN", "QQQ"}, false), newLiteralSet([]string{"_suspen", "qqq"}, true)} {
					if got, _ := p.Next(buf, 0); got != at {
						t.Fatalf("%s, n=%d: Next = %d, want %d", p, n, got, at)
					}
				}
			}
		}
	})
}

// A class window finds every offset where its classes match, in order, with the SIMD
// scan and without; random classes over random text and at every block edge.
func TestClassWindowAgreesWithNaiveSearch(t *testing.T) {
	eachScan(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for range 3000 {
			var b strings.Builder
			for range 2 + r.IntN(2) {
				lo := 'A' + rune(r.IntN(50))
				fmt.Fprintf(&b, `[%s-%s]`, regexp.QuoteMeta(string(lo)), regexp.QuoteMeta(string(lo+rune(r.IntN(8)))))
			}
			tree, err := syntax.Parse(b.String(), syntax.Perl)
			if err != nil {
				t.Fatal(err)
			}
			w, ok := windowPrefilter(tree.Simplify()).(*classWindow)
			if !ok {
				t.Fatalf("%s: no window", b.String())
			}
			buf := randomText(r, r.IntN(300))
			var want []int
			for p := 0; p+len(w.sets) <= len(buf); p++ {
				if m, _ := regexp.Match(`^`+b.String(), buf[p:]); m {
					want = append(want, p)
				}
			}
			if got := occurrences(w, buf); !equalInts(got, want) {
				t.Fatalf("%s in %q: %v, want %v", w, buf, got, want)
			}
		}
		tree, _ := syntax.Parse(`[A-Z]{2}[0-9]`, syntax.Perl)
		w := windowPrefilter(tree.Simplify())
		for n := 60; n < 200; n++ {
			for _, at := range []int{0, 1, 31, 32, 33, 63, 64, 65, n - 4, n - 3} {
				if at+3 > n {
					continue
				}
				buf := bytes.Repeat([]byte{'a'}, n)
				copy(buf[at:], "QZ7")
				if got, _ := w.Next(buf, 0); got != at {
					t.Fatalf("n=%d: Next = %d, want %d", n, got, at)
				}
			}
		}
	})
}
