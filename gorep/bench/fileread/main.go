// Command fileread is the Go side of the lab's fileread experiment (seed row S8): whole
// passes over one file, every byte summed as 64-bit little-endian words (the checksum of
// native/kernels/fileread, and its files), by each way Go offers:
//
//	go-read-4k .. go-read-4m  os.File.Read into one 4 KiB .. 4 MiB buffer, filled whole
//	go-bufio                  a bufio.Reader of 64 KiB read 4 KiB at a time: buffered
//	                          reading with its extra copy (the seed's "fread" in Go)
//	go-readall                io.ReadAll: the whole file into a growing slice
//	go-mmap                   syscall.Mmap(PROT_READ, MAP_PRIVATE), summed in place
//	go-memory                 the sum over a copy already in memory: the ceiling
//
// --param path=FILE sum=N cache=warm|cold, as the C kernel: warm, mincore must find the
// file resident before every call (or it is read back, untimed, and counted in a
// "rewarm" line); cold, posix_fadvise(POSIX_FADV_DONTNEED) evicts it before every call
// and mincore must confirm that at most 1% stayed ("eviction" line), one pass per call.
package main

import (
	"bufio"
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"cpulab/gorep/internal/harness"
)

const (
	kib            = 1 << 10
	mib            = 1 << 20
	evictTolerance = 100 // resident pages per 10,000 after an eviction: 1%
)

type way int

const (
	wayRead way = iota
	wayBufio
	wayReadAll
	wayMmap
	wayMemory
)

type strategy struct {
	name  string
	way   way
	chunk int
}

var strategies = []strategy{
	{"go-read-4k", wayRead, 4 * kib},
	{"go-read-64k", wayRead, 64 * kib},
	{"go-read-1m", wayRead, 1 * mib},
	{"go-read-4m", wayRead, 4 * mib},
	{"go-bufio", wayBufio, 4 * kib},
	{"go-readall", wayReadAll, 0},
	{"go-mmap", wayMmap, 0},
	{"go-memory", wayMemory, 0},
}

// sumWords is the checksum: the sum of len(b)/8 little-endian words, modulo 2^64. b's
// length is a multiple of 8 and its start 8-byte aligned (a page, or a Go allocation).
//
//go:noinline
func sumWords(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	w := unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
	var sum uint64
	for _, x := range w {
		sum += x
	}
	return sum
}

type bench struct {
	h        *harness.Harness
	path     string
	size     int
	want     uint64
	fd       int // held open for eviction and residency checks
	buf      []byte
	memory   []byte
	resident []byte
	pages    int

	mostResident, rewarmed, mostMissing int
}

func (b *bench) check(s *strategy, sum uint64) uint64 {
	if sum != b.want {
		b.h.Fail("%s: checksum %d of %s, expected %d", s.name, sum, b.path, b.want)
	}
	return sum
}

func (b *bench) open(s *strategy) *os.File {
	f, err := os.Open(b.path)
	if err != nil {
		b.h.Fail("%s: %v", s.name, err)
	}
	return f
}

func (b *bench) readPass(s *strategy) uint64 {
	f := b.open(s)
	defer f.Close()
	var sum uint64
	total := 0
	chunk := b.buf[:s.chunk]
	for {
		n, err := io.ReadFull(f, chunk) // fill the chunk whole, as the C kernel does
		sum += sumWords(chunk[:n])
		total += n
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			b.h.Fail("%s: read %s: %v", s.name, b.path, err)
		}
	}
	if total != b.size {
		b.h.Fail("%s: read %d bytes of %s, expected %d", s.name, total, b.path, b.size)
	}
	return sum
}

func (b *bench) bufioPass(s *strategy) uint64 {
	f := b.open(s)
	defer f.Close()
	r := bufio.NewReaderSize(f, 64*kib)
	var sum uint64
	chunk := b.buf[:s.chunk]
	for {
		n, err := io.ReadFull(r, chunk)
		sum += sumWords(chunk[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return sum
		}
		if err != nil {
			b.h.Fail("%s: read %s: %v", s.name, b.path, err)
		}
	}
}

func (b *bench) readAllPass(s *strategy) uint64 {
	f := b.open(s)
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		b.h.Fail("%s: %v", s.name, err)
	}
	return sumWords(data)
}

func (b *bench) mmapPass(s *strategy) uint64 {
	f := b.open(s)
	defer f.Close()
	data, err := syscall.Mmap(int(f.Fd()), 0, b.size, syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		b.h.Fail("%s: mmap %s: %v", s.name, b.path, err)
	}
	sum := sumWords(data)
	syscall.Munmap(data)
	return sum
}

func (b *bench) pass(s *strategy) uint64 {
	switch s.way {
	case wayRead:
		return b.check(s, b.readPass(s))
	case wayBufio:
		return b.check(s, b.bufioPass(s))
	case wayReadAll:
		return b.check(s, b.readAllPass(s))
	case wayMmap:
		return b.check(s, b.mmapPass(s))
	}
	return b.check(s, sumWords(b.memory))
}

// residentPages: mincore of a fresh, untouched mapping of the file.
func (b *bench) residentPages() int {
	data, err := unix.Mmap(b.fd, 0, b.size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		b.h.Fail("mmap(%s) for mincore: %v", b.path, err)
	}
	defer unix.Munmap(data)
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])),
		uintptr(len(data)), uintptr(unsafe.Pointer(&b.resident[0])))
	if errno != 0 {
		b.h.Fail("mincore(%s): %v", b.path, errno)
	}
	n := 0
	for _, r := range b.resident {
		n += int(r & 1)
	}
	return n
}

func (b *bench) evict() {
	if err := unix.Fadvise(b.fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		b.h.Fail("eviction refused: posix_fadvise(POSIX_FADV_DONTNEED): %v", err)
	}
	left := b.residentPages()
	b.mostResident = max(b.mostResident, left)
	if left*10000 > b.pages*evictTolerance {
		b.h.Fail("eviction without effect: posix_fadvise(POSIX_FADV_DONTNEED) left %d of %d pages of %s resident (mincore)",
			left, b.pages, b.path)
	}
}

// checkWarm: every pass starts with the whole file cached; pages the kernel dropped
// between passes are read back, untimed, and counted.
func (b *bench) checkWarm() {
	n := b.residentPages()
	if n == b.pages {
		return
	}
	b.rewarmed++
	b.mostMissing = max(b.mostMissing, b.pages-n)
	for off := 0; off < b.size; off += 4 * mib {
		if _, err := unix.Pread(b.fd, b.buf[:4*mib], int64(off)); err != nil {
			b.h.Fail("pread(%s): %v", b.path, err)
		}
	}
	if n = b.residentPages(); n < b.pages {
		b.h.Fail("warm cache lost: only %d of %d pages of %s stay resident (mincore) after reading it again",
			n, b.pages, b.path)
	}
}

func main() {
	h := harness.Init(os.Args)
	b := &bench{h: h}
	b.path = h.ParamString("path", "")
	b.want = h.ParamUint("sum", 0)
	cache := h.ParamString("cache", "warm")
	if cache != "warm" && cache != "cold" {
		h.UsageError("--param cache=%s: want warm or cold", cache)
	}
	if b.path == "" {
		h.UsageError("--param path=FILE is required: the file to read")
	}
	info, err := os.Stat(b.path)
	if err != nil {
		h.UsageError("--param path=%s: %v", b.path, err)
	}
	if !info.Mode().IsRegular() || info.Size() <= 0 || info.Size()%8 != 0 || info.Size() > 16<<30 {
		h.UsageError("--param path=%s: want a regular file of a multiple of 8 bytes, 8 B to 16 GiB", b.path)
	}
	b.size = int(info.Size())
	f, err := os.Open(b.path)
	if err != nil {
		h.UsageError("--param path=%s: %v", b.path, err)
	}
	b.fd = int(f.Fd())
	page := os.Getpagesize()
	b.pages = (b.size + page - 1) / page
	b.resident = make([]byte, b.pages)
	b.buf = make([]byte, 4*mib)
	b.memory = make([]byte, b.size)
	if _, err := io.ReadFull(f, b.memory); err != nil { // also leaves the file cached
		h.Fail("read %s: %v", b.path, err)
	}
	if got := sumWords(b.memory); got != b.want {
		h.Fail("%s sums to %d, expected %d (--param sum)", b.path, got, b.want)
	}
	cold := cache == "cold"
	cases := make([]harness.Case, len(strategies))
	for i := range strategies {
		s := &strategies[i]
		c := harness.Case{Name: s.name, UnitsPerIter: float64(b.size), Unit: "byte",
			Fn: func(iters uint64) uint64 {
				var last uint64
				for range iters {
					last = b.pass(s)
				}
				return last
			}}
		if s.way != wayMemory {
			if cold {
				c.Setup, c.Iters = b.evict, 1
			} else {
				c.Setup = b.checkWarm
			}
		}
		cases[i] = c
	}
	if cold {
		b.evict() // fail before any timing if this kernel will not drop the file
	} else {
		b.checkWarm()
	}
	rc := h.Run(cases)
	if cold {
		h.Extra(map[string]any{"type": "eviction", "pages": b.pages, "resident": b.mostResident})
	} else {
		h.Extra(map[string]any{"type": "rewarm", "pages": b.pages, "calls": b.rewarmed,
			"most_missing": b.mostMissing})
	}
	f.Close()
	os.Exit(rc)
}
