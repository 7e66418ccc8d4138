package goalloc

import "testing"

// Sinks keep every allocation reachable, so that none is optimised away.
var (
	small *Small
	large *Large
)

func BenchmarkNewSmall(b *testing.B) {
	for b.Loop() {
		small = NewSmall()
	}
}

func BenchmarkAddrOfSmall(b *testing.B) {
	for b.Loop() {
		small = AddrOfSmall()
	}
}

func BenchmarkCopiedSmall(b *testing.B) {
	for b.Loop() {
		small = CopiedSmall()
	}
}

func BenchmarkNewLarge(b *testing.B) {
	for b.Loop() {
		large = NewLarge()
	}
}

func BenchmarkAddrOfLarge(b *testing.B) {
	for b.Loop() {
		large = AddrOfLarge()
	}
}

func BenchmarkCopiedLarge(b *testing.B) {
	for b.Loop() {
		large = CopiedLarge()
	}
}

// Every way returns a zeroed object (the allocator reuses freed memory, so a missing
// zeroing would show after a few rounds of garbage).
func TestZeroed(t *testing.T) {
	for range 1000 {
		for _, s := range []*Small{NewSmall(), AddrOfSmall(), CopiedSmall()} {
			if s.v != [64]byte{} {
				t.Fatal("a small object is not zeroed")
			}
			s.v[0], s.v[63] = 1, 1
		}
	}
	for range 10 {
		for _, l := range []*Large{NewLarge(), AddrOfLarge(), CopiedLarge()} {
			for _, x := range l.v {
				if x != 0 {
					t.Fatal("a large object is not zeroed")
				}
			}
			l.v[0] = 1
		}
	}
}
