// Package goalloc holds the seed's three ways to get a zeroed struct on the heap (S7),
// for a 64-byte struct and a large one, each in its own function so that the compiler's
// output for it (go build -gcflags=-S) can be read on its own:
//
//	New       return new(T)               the seed: runtime.new only (13.9 ns/op)
//	AddrOf    return &T{}                 the seed: runtime.new + REP STOSQ re-zeroing
//	                                      (25.9 ns/op, the slowest)
//	Copied    c := T{}; return &c         the seed: runtime.new + REP MOVSQ copies from
//	                                      a zero template (17.2 ns/op)
//
// Go 1.2.2's 6g produced the extra zeroing and copying; alloc_test.go times all six,
// and the lab reads this package's assembly to see whether today's compiler still does.
package goalloc

// Small is the seed's type: `type container struct{ v [64]byte }`.
type Small struct{ v [64]byte }

// Large is past the 32 KiB limit of the small-object allocator: allocated alone, with
// its own zeroing path in the runtime.
type Large struct{ v [64 << 10]byte }

//go:noinline
func NewSmall() *Small { return new(Small) }

//go:noinline
func AddrOfSmall() *Small { return &Small{} }

//go:noinline
func CopiedSmall() *Small {
	c := Small{}
	return &c
}

//go:noinline
func NewLarge() *Large { return new(Large) }

//go:noinline
func AddrOfLarge() *Large { return &Large{} }

//go:noinline
func CopiedLarge() *Large {
	c := Large{}
	return &c
}
