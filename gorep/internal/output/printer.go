package output

import (
	"bufio"
	"io"
)

// Printer writes the output grouped by kind: the directory names, then the file names,
// then the content results. Names come from the walk, content results from the workers
// through the fan-in, so content that arrives before the walk has ended is held back;
// with Sorted, content is also put back into walk order (each result carries its file's
// index in the walk), so that a parallel search prints deterministically.
//
// Dirs and Files are written by the walk's goroutine and read only after Walked is
// closed; Content and Finish run in the receiving goroutine.
type Printer struct {
	Dirs, Files []byte
	Lead        []byte        // content before any file's: standard input's, set before the walk
	Walked      chan struct{} // closed by the walk when it has ended
	Sorted      bool
	Separator   []byte // written between two files' content ("--\n" with context), or nil
	Tail        []byte // written last, after all content (--json's summary), set before Finish

	w        *bufio.Writer
	namesOut bool
	wrote    bool           // some content is out: the next file's needs a Separator
	held     [][]byte       // unsorted content received before the names were written
	pending  map[int][]byte // sorted: results waiting for an earlier index
	next     int            // sorted: the index to write next
	WriteErr error
}

// NewPrinter writes to w.
func NewPrinter(w io.Writer, sorted bool) *Printer {
	return &Printer{Walked: make(chan struct{}), Sorted: sorted, w: bufio.NewWriterSize(w, 64<<10),
		pending: map[int][]byte{}}
}

// Content takes the formatted result of the file with walk index i (possibly empty).
func (p *Printer) Content(i int, out []byte) {
	if !p.namesOut {
		select {
		case <-p.Walked:
			p.names()
		default:
		}
	}
	if p.Sorted {
		p.pending[i] = out
		if p.namesOut {
			p.flushSorted()
		}
		return
	}
	if len(out) == 0 {
		return
	}
	if p.namesOut {
		p.content(out)
	} else {
		p.held = append(p.held, out)
	}
}

// Finish writes whatever is left, once every result has been received and the walk has
// ended; it returns the first write error.
func (p *Printer) Finish() error {
	<-p.Walked
	if !p.namesOut {
		p.names()
	}
	p.flushSorted()
	p.write(p.Tail)
	if err := p.w.Flush(); err != nil && p.WriteErr == nil {
		p.WriteErr = err
	}
	return p.WriteErr
}

func (p *Printer) names() {
	p.namesOut = true
	p.write(p.Dirs)
	p.write(p.Files)
	p.content(p.Lead)
	for _, out := range p.held {
		p.content(out)
	}
	p.held = nil
}

func (p *Printer) flushSorted() {
	for {
		out, ok := p.pending[p.next]
		if !ok {
			return
		}
		delete(p.pending, p.next)
		p.next++
		p.content(out)
	}
}

// content writes one file's content, after a Separator if another's came before.
func (p *Printer) content(out []byte) {
	if len(out) == 0 {
		return
	}
	if p.wrote {
		p.write(p.Separator)
	}
	p.wrote = true
	p.write(out)
}

func (p *Printer) write(b []byte) {
	if p.WriteErr != nil || len(b) == 0 {
		return
	}
	if _, err := p.w.Write(b); err != nil {
		p.WriteErr = err
	}
}
