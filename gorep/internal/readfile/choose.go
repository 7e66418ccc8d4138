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

// The crossover, measured by the lab's own benchmark on the development VM (AMD EPYC,
// KVM, 2 shared vCPUs, Go 1.26.8, page cache warm; `cpulab run fileread --quick`, medians):
//
//   - one file, Go (gorep/bench/fileread): at 1 MiB mmap 5.20 GB/s against 4.68 for
//     read() with a 4 MiB buffer; at 16 MiB mmap 3.02 against 3.94 for read() with
//     1 MiB: no clear win for mmap up to 16 MiB on this VM;
//   - many small files (native/kernels/fileread/smallfiles.c, 400 files): open+mmap+
//     munmap+close takes 2.2-2.4x the time of open+read+close at 4 KiB, 1.8x at 16 KiB:
//     setting up and tearing down a mapping costs more than copying the bytes;
//   - a tree searched by several workers also pays for every munmap with a TLB
//     shootdown on the other CPUs, which the single-threaded benchmark does not see.
//
// So mmap is kept for what the measurement leaves to it: files larger than any size at
// which read() was as fast (MmapMinSize), named on the command line, few of them.
const (
	MmapMinSize  = 64 << 20
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
