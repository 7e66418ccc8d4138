// Package search finds the matching lines of one file: open it, choose how to read it
// (readfile.Choose), skip it if binary, and hand every matching line to a sink with its
// line number.
package search

import (
	"bytes"
	"os"
	"strconv"

	"cpulab/gorep/internal/match"
	"cpulab/gorep/internal/readfile"
)

// Searcher searches files one at a time; one per worker (its Reader's buffer is reused).
type Searcher struct {
	Matcher *match.Matcher
	Reader  readfile.Reader
	Files   int // files this search reads, for readfile.Choose; < 0: a tree walk
	Debug   func(format string, args ...any)
}

// Outcome of one file.
type Outcome struct {
	Binary bool // skipped: a NUL byte in its first block
	Lines  int  // matching lines handed to the sink
}

// File calls sink(number, line) for each matching line of path (number from 1; line
// without its terminator, valid only during the call) until sink returns false.
func (s *Searcher) File(path string, sink func(num int, line []byte) bool) (Outcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return Outcome{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Outcome{}, err
	}
	strategy := readfile.Choose(info.Size(), s.Files)
	if s.Debug != nil {
		s.Debug("%s: %d bytes, %s (one of %s files)", path, info.Size(), strategy, count(s.Files))
	}
	s.Reader.Debug = s.Debug
	var out Outcome
	before := 0 // lines ended in earlier chunks
	stopped := false
	binary, err := s.Reader.Chunks(f, info.Size(), strategy, func(buf []byte) bool {
		counted, line := 0, before
		s.Matcher.EachLine(buf, func(start, end int) bool {
			line += bytes.Count(buf[counted:start], []byte{'\n'})
			counted = start
			out.Lines++
			if !sink(line+1, buf[start:end]) {
				stopped = true
				return false
			}
			return true
		})
		if stopped {
			return false
		}
		before = line + bytes.Count(buf[counted:], []byte{'\n'})
		return true
	})
	out.Binary = binary
	return out, err
}

func count(n int) string {
	if n < 0 {
		return "many"
	}
	return strconv.Itoa(n)
}
