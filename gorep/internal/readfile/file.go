package readfile

import (
	"io"
	"io/fs"

	"golang.org/x/sys/unix"
)

// File is an open file read by plain system calls. os.Open also registers every file
// with the runtime's poller: for a regular file that is four fcntl calls and a failing
// epoll_ctl, five of the ten system calls gorep made per file of Go's tree (strace -c),
// where ripgrep makes three or four.
type File struct {
	fd   int
	name string
}

// Open opens name for reading.
func Open(name string) (*File, error) {
	for {
		fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &File{fd: fd, name: name}, nil
	}
}

// Read is io.Reader's.
func (f *File) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(f.fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		if n == 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

// Seek is io.Seeker's.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	n, err := unix.Seek(f.fd, offset, whence)
	if err != nil {
		return 0, &fs.PathError{Op: "seek", Path: f.name, Err: err}
	}
	return n, nil
}

// Stat: the file's mode and size.
func (f *File) Stat() (mode fs.FileMode, size int64, err error) {
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return 0, 0, &fs.PathError{Op: "stat", Path: f.name, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		mode = 0
	case unix.S_IFDIR:
		mode = fs.ModeDir
	default:
		mode = fs.ModeIrregular
	}
	return mode, st.Size, nil
}

// Fd is the file descriptor, for mmap.
func (f *File) Fd() uintptr { return uintptr(f.fd) }

// Name is the path it was opened by.
func (f *File) Name() string { return f.name }

// Close closes it.
func (f *File) Close() error { return unix.Close(f.fd) }

var _ interface {
	io.ReadSeekCloser
	Fd() uintptr
} = (*File)(nil)
