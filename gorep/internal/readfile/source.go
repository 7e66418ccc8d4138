package readfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// ChunkSize is the read buffer: 256 KiB, past which larger reads gained nothing in the
// Go fileread benchmark (read-64k to read-4m within a few per cent, warm cache).
const ChunkSize = 256 << 10

// BinaryBlock is how much of a file's start is checked for a NUL byte: the first chunk,
// as ripgrep checks the first buffer it reads.
const BinaryBlock = 64 << 10

// Reader brings files in; one per worker, its buffer reused from file to file.
type Reader struct {
	buf   []byte
	Debug func(format string, args ...any) // --debug log, or nil
}

// Chunks calls fn with successive buffers of whole lines of the file at path (the last
// may end without '\n'), in order, until the file ends or fn returns false. binary is true (and fn is never called) when the file's first
// BinaryBlock bytes hold a NUL byte.
func (r *Reader) Chunks(f *os.File, size int64, s Strategy, fn func(buf []byte) bool) (binary bool, err error) {
	if s == Mmap {
		data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
		if err == nil {
			defer unix.Munmap(data)
			if bytes.IndexByte(data[:min(len(data), BinaryBlock)], 0) >= 0 {
				return true, nil
			}
			fn(data)
			return false, nil
		}
		if r.Debug != nil {
			r.Debug("%s: mmap failed (%v), reading it instead", f.Name(), err)
		}
	}
	return r.read(f, fn)
}

func (r *Reader) read(f *os.File, fn func(buf []byte) bool) (bool, error) {
	if r.buf == nil {
		r.buf = make([]byte, ChunkSize)
	}
	have, first := 0, true // bytes of an unfinished line carried from the last chunk
	for {
		if have == len(r.buf) { // one line longer than the buffer: grow it
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		n, err := io.ReadFull(f, r.buf[have:])
		end := have + n
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return false, fmt.Errorf("read: %w", err)
		}
		if first {
			first = false
			if bytes.IndexByte(r.buf[:min(end, BinaryBlock)], 0) >= 0 {
				return true, nil
			}
		}
		if eof {
			if end > 0 {
				fn(r.buf[:end])
			}
			return false, nil
		}
		cut := bytes.LastIndexByte(r.buf[:end], '\n') + 1
		if cut == 0 { // no line ends in the buffer: read more into it
			have = end
			continue
		}
		if !fn(r.buf[:cut]) {
			return false, nil
		}
		have = copy(r.buf, r.buf[cut:end])
	}
}
