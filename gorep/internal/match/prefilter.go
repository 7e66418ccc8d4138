package match

// Prefilter finds where a match may be: the bounds [start, end) of the next occurrence
// of a required literal that starts at or after `from`, or -1, -1. The literal searches (pair.go, one
// literal; teddy.go, several) run at memory speed with SIMD; the regexp, which only
// sees the lines that hold a literal, does not.
type Prefilter interface {
	Next(buf []byte, from int) (start, end int)
	String() string // for --debug
}
