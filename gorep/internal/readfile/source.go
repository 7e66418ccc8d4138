package readfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sys/unix"
)

// ChunkSize is the read buffer: 256 KiB, past which larger reads gained nothing in the
// Go fileread benchmark (read-64k to read-4m within a few per cent, warm cache).
const ChunkSize = 256 << 10

// Reader brings files in; one per worker, its buffer reused from file to file.
type Reader struct {
	buf   []byte
	Debug func(format string, args ...any) // --debug log, or nil
}

// Chunks calls fn with successive buffers of whole lines of src (the last may end
// without '\n'), in order, until src ends or fn returns false. Mmap needs a file (a
// *File or *os.File) of size bytes; anything else is read. Binary data is the caller's
// to detect.
func (r *Reader) Chunks(src io.Reader, size int64, s Strategy, fn func(buf []byte) bool) error {
	if f, ok := src.(mappable); ok && s == Mmap {
		data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_PRIVATE)
		if err == nil {
			defer unix.Munmap(data)
			mapped(data, fn)
			return nil
		}
		if r.Debug != nil {
			r.Debug("%s: mmap failed (%v), reading it instead", f.Name(), err)
		}
	}
	return r.read(src, fn)
}

// MapWindow: a mapped file is handed on in windows of whole lines of about this size,
// so that the searcher's passes over a window (its NUL check, then the literal search)
// find it in the cache: handed on whole, a 128 MiB file was read from memory twice,
// and gorep took 1.5x ripgrep's CPU time for a word found nowhere in it.
const MapWindow = 1 << 20

// mapped calls fn with successive windows of whole lines of data until fn returns false.
func mapped(data []byte, fn func(buf []byte) bool) {
	for len(data) > 0 {
		end := len(data)
		if end > MapWindow {
			if cut := bytes.LastIndexByte(data[:MapWindow], '\n'); cut >= 0 {
				end = cut + 1
			} else if next := bytes.IndexByte(data[MapWindow:], '\n'); next >= 0 {
				end = MapWindow + next + 1 // one line longer than a window
			}
		}
		if !fn(data[:end]) {
			return
		}
		data = data[end:]
	}
}

type mappable interface {
	Fd() uintptr
	Name() string
}

func (r *Reader) read(f io.Reader, fn func(buf []byte) bool) error {
	if r.buf == nil {
		r.buf = make([]byte, ChunkSize)
	}
	have := 0 // bytes of an unfinished line carried from the last chunk
	for {
		if have == len(r.buf) { // one line longer than the buffer: grow it
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		n, err := io.ReadFull(f, r.buf[have:])
		end := have + n
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return fmt.Errorf("read: %w", err)
		}
		if eof {
			if end > 0 {
				fn(r.buf[:end])
			}
			return nil
		}
		cut := bytes.LastIndexByte(r.buf[:end], '\n') + 1
		if cut == 0 { // no line ends in the buffer: read more into it
			have = end
			continue
		}
		if !fn(r.buf[:cut]) {
			return nil
		}
		have = copy(r.buf, r.buf[cut:end])
	}
}
