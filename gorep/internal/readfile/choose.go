// Package readfile brings a file's bytes into memory for searching, by read() into a
// reused buffer or by mmap, chosen in one function (Choose); a failed mmap falls back to
// reads. Like ripgrep's MmapChoice, the mechanism lives here and the command line owns
// the decision's inputs.
package readfile

// Strategy is how a file's bytes are brought in.
type Strategy int

const (
	Read Strategy = iota // read() into a reused buffer, a chunk at a time
	Mmap                 // mmap the whole file, search it in place
)

func (s Strategy) String() string {
	if s == Mmap {
		return "mmap"
	}
	return "read"
}

// Crossover figures: XXX-MEASURE
//
// So mmap only pays for large files searched one by one: at least MmapMinSize, and only
// when the search reads at most MmapMaxFiles files named on the command line.
const (
	MmapMinSize  = 4 << 20
	MmapMaxFiles = 10
)

// Choose picks the strategy for a file of size bytes in a search that reads count files
// (count < 0: unknown, a directory tree is being walked).
func Choose(size int64, count int) Strategy {
	if count < 0 || count > MmapMaxFiles || size < MmapMinSize {
		return Read
	}
	return Mmap
}
