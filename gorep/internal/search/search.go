// Package search finds the matching lines of one file: open it, choose how to read it
// (readfile.Choose), watch for binary data (a NUL byte), and hand every matching line
// (or, inverted, every other line) to a sink with its line number.
package search

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"strconv"

	"cpulab/gorep/internal/match"
	"cpulab/gorep/internal/readfile"
)

// Binary is what a NUL byte does to a search, as ripgrep decides it: a file met in a
// walk is binary and its search stops there; a file named on the command line is
// searched to its end, the lines from the NUL's on only counted; -a reads all as text.
type Binary int

const (
	Quit    Binary = iota // walked: stop at the first NUL
	Convert               // named: stop printing at the first NUL, count the rest
	Text                  // -a: no NUL is special
)

// FirstBlock: a walked file with a NUL in its first 64 KiB prints nothing at all, as in
// ripgrep, whose first buffer (64 KiB) holds them: its lines are dropped unseen. A later
// NUL stops the search after the lines before it.
const FirstBlock = 64 << 10

// Searcher searches files one at a time; one per worker (its Reader's buffer is reused).
type Searcher struct {
	Matcher  *match.Matcher
	Reader   readfile.Reader
	Files    int // files this search reads, for readfile.Choose; < 0: a tree walk
	Invert   bool
	MaxCount int // -m: stop after this many lines handed to the sink; 0: no limit
	// NoNumbers: no line number is shown, so the lines between matches are not
	// counted (numbers handed to the sink are then meaningless); -A/-B/-C count anyway.
	NoNumbers bool
	Debug     func(format string, args ...any)

	// Context, set by the caller for each file or nil, is handed the lines that are not
	// handed to the sink (before the first NUL), for -A, -B and -C; false stops the search.
	Context func(num int, line []byte) bool

	base     int64 // offset of the buffer being searched in the text
	lineAt   int64 // offset of the line last handed to the sink or Context
	lineEnd  int64 // and of the end of it, its '\n' included
	lineTerm bool  // a '\n' ends it
}

// Outcome of one file.
type Outcome struct {
	Lines    int   // lines handed to the sink: before the first NUL's line
	NUL      int64 // offset of the first NUL byte; -1: none (or Text)
	AfterNUL int   // Convert: matching lines from the NUL's line on, not handed to the sink
	Bytes    int64 // bytes of text searched: all of it, or up to the line the search stopped at
}

// Line says where the line being handed to the sink or Context lies in the text
// searched (after any byte-order mark, in UTF-8): its offset, and whether a '\n' ends
// it (the last line of a text may lack one). Valid only during the call.
func (s *Searcher) Line() (offset int64, terminated bool) {
	return s.lineAt, s.lineTerm
}

// at records the line buf[start:end] as the one being handed on.
func (s *Searcher) at(buf []byte, start, end int) {
	s.lineAt, s.lineEnd, s.lineTerm = s.base+int64(start), s.base+int64(end), end < len(buf)
	if s.lineTerm {
		s.lineEnd++
	}
}

// File calls sink(number, line) for each matching line of path (number from 1; line
// without its terminator, valid only during the call) until sink returns false.
//
// walked: the walk found a regular file (its directory entry says so), which is then
// read without an fstat: ripgrep makes none either, and a walk always reads.
func (s *Searcher) File(path string, walked bool, binary Binary, sink func(num int, line []byte) bool) (Outcome, error) {
	f, err := readfile.Open(path)
	if err != nil {
		return Outcome{NUL: -1}, err
	}
	defer f.Close()
	size := int64(-1)
	if !walked {
		var mode fs.FileMode
		if mode, size, err = f.Stat(); err != nil {
			return Outcome{NUL: -1}, err
		}
		if !mode.IsRegular() {
			return s.Stream(f, binary, sink)
		}
	}
	strategy := readfile.Choose(size, s.Files)
	if s.Debug != nil {
		s.Debug("%s: %s bytes, %s (one of %s files)", path, sizeText(size), strategy, count(s.Files))
	}
	// The mark is looked for in the first chunk, not by a read of its own: one system
	// call less per file. A file with one is searched again from the start, decoded.
	out, enc, err := s.search(f, size, strategy, binary, sink, true)
	if enc == raw || err != nil {
		return out, err
	}
	if s.Debug != nil {
		s.Debug("%s: %s, read again", path, enc)
	}
	if _, err := f.Seek(enc.bomLen(), io.SeekStart); err != nil {
		return Outcome{NUL: -1}, err
	}
	out, _, err = s.search(decode(f, enc), 0, readfile.Read, binary, sink, false)
	return out, err
}

// Stream searches r (standard input) as a named file, read a chunk at a time.
func (s *Searcher) Stream(r io.Reader, binary Binary, sink func(num int, line []byte) bool) (Outcome, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(3)
	enc := sniff(head)
	br.Discard(int(enc.bomLen()))
	out, _, err := s.search(decode(br, enc), 0, readfile.Read, binary, sink, false)
	return out, err
}

// decode: the UTF-8 text of r, read past its byte-order mark, in encoding enc.
func decode(r io.Reader, enc encoding) io.Reader {
	switch enc {
	case utf16LE, utf16BE:
		return newDecoder(r, enc == utf16BE)
	}
	return r
}

// search searches what r holds, brought in with strategy. With sniff, a first chunk
// that starts with a byte-order mark stops it before any line is handed on, and its
// encoding is returned (else raw).
func (s *Searcher) search(r io.Reader, size int64, strategy readfile.Strategy, binary Binary,
	sink func(num int, line []byte) bool, sniffing bool) (Outcome, encoding, error) {
	s.Reader.Debug = s.Debug
	out := Outcome{NUL: -1}
	enc := raw
	s.base, s.lineAt, s.lineEnd = 0, 0, 0
	stopped := false
	before := 0 // lines ended in earlier chunks
	err := s.Reader.Chunks(r, size, strategy, func(buf []byte) bool {
		if sniffing && s.base == 0 {
			if enc = sniff(buf); enc != raw {
				return false
			}
		}
		base := s.base
		defer func() { s.base += int64(len(buf)) }()
		if out.NUL >= 0 { // Convert, past the NUL: only count
			out.AfterNUL += s.count(buf)
			return true
		}
		text := buf
		if binary != Text {
			if i := bytes.IndexByte(buf, 0); i >= 0 {
				out.NUL = base + int64(i)
				text = buf[:bytes.LastIndexByte(buf[:i], '\n')+1]
			}
		}
		lines, stop := s.lines(text, before, func(num int, line []byte) bool {
			out.Lines++
			return sink(num, line) && (s.MaxCount == 0 || out.Lines < s.MaxCount)
		})
		before += lines
		if stop {
			stopped = true
			return false
		}
		if out.NUL >= 0 {
			if binary == Quit {
				stopped = true
				return false
			}
			out.AfterNUL += s.count(buf[len(text):])
		}
		return true
	})
	out.Bytes = s.base
	if stopped {
		out.Bytes = s.lineEnd
	}
	return out, enc, err
}

// count: the lines of buf that lines would hand on.
func (s *Searcher) count(buf []byte) int {
	n := 0
	s.lines(buf, 0, func(int, []byte) bool { n++; return true })
	return n
}

// lines calls fn(number, line) for each matching line of buf (each other line with
// Invert), numbered from first+1, until fn returns false, and s.Context (if any) for
// the rest; it returns how many lines buf holds (its '\n's) and whether fn stopped it.
func (s *Searcher) lines(buf []byte, first int, fn func(num int, line []byte) bool) (int, bool) {
	line, counted := first, 0 // line: the number of lines before offset counted
	stopped := false
	matching, others := fn, func(int, []byte) bool { return true }
	if s.Context != nil {
		others = s.Context
	}
	if s.Invert {
		matching, others = others, fn
	}
	if !s.Invert && s.Context == nil { // the fast path: the other lines are only counted
		s.Matcher.EachLine(buf, func(start, end int) bool {
			if !s.NoNumbers {
				line += bytes.Count(buf[counted:start], []byte{'\n'})
				counted = start
			}
			s.at(buf, start, end)
			stopped = !fn(line+1, buf[start:end])
			return !stopped
		})
		if stopped {
			return 0, true
		}
		if s.NoNumbers {
			return 0, false
		}
		return line - first + bytes.Count(buf[counted:], []byte{'\n'}), false
	}
	gap := func(to int) bool { // the lines of buf[counted:to], none matching
		for counted < to {
			end := bytes.IndexByte(buf[counted:to], '\n')
			if end < 0 {
				end = to - counted
			}
			line++
			s.at(buf, counted, counted+end)
			if !others(line, buf[counted:counted+end]) {
				return false
			}
			counted += end + 1
		}
		return true
	}
	s.Matcher.EachLine(buf, func(start, end int) bool {
		if stopped = !gap(start); stopped {
			return false
		}
		line++
		s.at(buf, start, end)
		stopped = !matching(line, buf[start:end])
		counted = end + 1
		return !stopped
	})
	if stopped || !gap(len(buf)) {
		return 0, true
	}
	return line - first, false
}

func sizeText(size int64) string {
	if size < 0 {
		return "unknown (walked)"
	}
	return strconv.FormatInt(size, 10)
}

func count(n int) string {
	if n < 0 {
		return "many"
	}
	return strconv.Itoa(n)
}
