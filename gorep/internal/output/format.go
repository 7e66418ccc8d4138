// Package output formats what a search found: directories, files and matching lines as
// text (optionally coloured, optionally under a heading per file) or as ripgrep's JSON
// Lines. Formatting appends to a byte slice, so that each worker formats its own file
// and the printer only writes.
package output

import (
	"strconv"
	"time"

	"cpulab/gorep/internal/match"
)

// Mode of the content part of the output.
type Mode int

const (
	Lines             Mode = iota // path:line:text
	FilesWithMatches              // -l: the path of each file with a match
	Count                         // -c: path:count
	FilesWithoutMatch             // --files-without-match: the path of each file without one
)

// ANSI colours, as ripgrep uses them by default.
const (
	reset    = "\x1b[0m"
	dirColor = "\x1b[1;34m"
	path     = "\x1b[35m"
	lineNum  = "\x1b[32m"
	hit      = "\x1b[1;31m"
)

// Format says how to write each kind of result.
type Format struct {
	Mode    Mode
	JSON    bool // ripgrep's JSON Lines (contents only: -l, -c and names have no record)
	Color   bool
	Column  bool           // --column: the 1-based byte column of the first match
	Matcher *match.Matcher // for match spans (colour, column, JSON)

	NoPath       bool // -I: no path before a line or count
	NoNumber     bool // -N: no line number
	Null         bool // -0: a NUL after each path instead of ':' or a line break
	OnlyMatching bool // -o: each match on a line of its own
	Vimgrep      bool // --vimgrep: each match as path:line:column:text
	Invert       bool // -v: the lines hold no match to colour or locate
	Heading      bool // --heading: each file's path on a line of its own above its lines

	// The file being formatted (StartFile): a Format is one worker's, copied from the
	// command line's.
	headed bool // its heading is out
	file   jsonFile
}

// StartFile begins the output of the file at path.
func (f *Format) StartFile(path string) {
	f.headed = false
	if f.JSON {
		f.file = jsonFile{path: path, start: time.Now()}
	}
}

// EndFile ends the output of the file begun by StartFile: JSON's "end" record, whose
// statistics it returns (nul: the offset of the file's first NUL, -1: none; searched:
// the bytes searched).
func (f *Format) EndFile(b []byte, nul, searched int64) ([]byte, Stats) {
	if !f.JSON {
		return b, Stats{}
	}
	return f.jsonEnd(b, nul, searched)
}

// Dir appends a directory whose name matched: its path with a trailing '/'.
func (f *Format) Dir(b []byte, p string) []byte {
	if f.Color {
		return append(append(append(append(b, dirColor...), p...), '/'), reset+"\n"...)
	}
	return append(append(b, p...), "/\n"...)
}

// File appends a file whose name matched (or, with --files, any file searched).
func (f *Format) File(b []byte, p string) []byte {
	return f.endPath(f.path(b, p))
}

// Line appends one matching line (text without its terminator, at pos).
func (f *Format) Line(b []byte, p string, num int, text []byte, pos Pos) []byte {
	if f.JSON {
		return f.jsonLine(b, num, text, pos, true)
	}
	var spans [][]int
	if !f.Invert && (f.Color || f.Column || f.OnlyMatching || f.Vimgrep) {
		spans = f.Matcher.Spans(text)
	}
	if f.OnlyMatching || f.Vimgrep { // one output line per match
		if f.Invert {
			return b
		}
		for _, s := range spans {
			if s[1] == s[0] && f.OnlyMatching {
				continue // ripgrep prints no empty match
			}
			b = f.prefix(b, p, num, s[0]+1)
			if f.OnlyMatching {
				b = f.colored(b, text, [][]int{{0, s[1] - s[0]}}, s[0])
			} else {
				b = f.colored(b, text, [][]int{s}, 0)
			}
			b = append(b, '\n')
		}
		return b
	}
	col := 1
	if len(spans) > 0 {
		col = spans[0][0] + 1
	}
	b = f.prefix(b, p, num, col)
	return append(f.colored(b, text, spans, 0), '\n')
}

// ContextLine appends a line printed around a match (-A, -B, -C): path-line-text.
func (f *Format) ContextLine(b []byte, p string, num int, text []byte, pos Pos) []byte {
	if f.JSON {
		return f.jsonLine(b, num, text, pos, false)
	}
	b = f.prefixWith(b, p, num, 0, '-')
	return append(append(b, text...), '\n')
}

// prefix appends what comes before a line's text: its path, number and column, as asked.
func (f *Format) prefix(b []byte, p string, num, col int) []byte {
	return f.prefixWith(b, p, num, col, ':')
}

// prefixWith: the prefix with sep after each part; col 0 prints no column. Under a
// heading, the path is the heading's, written before the file's first line.
func (f *Format) prefixWith(b []byte, p string, num, col int, sep byte) []byte {
	if f.Heading && !f.Vimgrep {
		if !f.headed && !f.NoPath {
			b = f.endPath(f.path(b, p))
		}
		f.headed = true
	} else if !f.NoPath {
		b = f.path(b, p)
		if f.Null {
			b = append(b, 0)
		} else {
			b = append(b, sep)
		}
	}
	if !f.NoNumber {
		b = append(f.number(b, num), sep)
	}
	if col > 0 && (f.Column || f.Vimgrep) {
		b = append(f.number(b, col), sep)
	}
	return b
}

// colored appends text[from:] with the spans (offsets relative to from) in the match
// colour when colour is on.
func (f *Format) colored(b []byte, text []byte, spans [][]int, from int) []byte {
	text = text[from:]
	if f.OnlyMatching && len(spans) == 1 {
		text = text[:spans[0][1]]
	}
	if !f.Color || len(spans) == 0 {
		return append(b, text...)
	}
	at := 0
	for _, s := range spans {
		if s[1] == s[0] {
			continue // an empty match colours nothing
		}
		b = append(b, text[at:s[0]]...)
		b = append(append(append(b, hit...), text[s[0]:s[1]]...), reset...)
		at = s[1]
	}
	return append(b, text[at:]...)
}

// Matched appends the summary of a file with n matching lines, for -l, -c and
// --files-without-match (n is 0).
func (f *Format) Matched(b []byte, p string, n int) []byte {
	if f.Mode == Count {
		if !f.NoPath {
			b = f.path(b, p)
			if f.Null {
				b = append(b, 0)
			} else {
				b = append(b, ':')
			}
		}
		return append(strconv.AppendInt(b, int64(n), 10), '\n')
	}
	return f.endPath(f.path(b, p))
}

// Binary appends ripgrep's note on a binary file: a file named on the command line whose
// lines from the first NUL on matched, or a walked one whose search stopped at it after
// a match.
func (f *Format) Binary(b []byte, p string, nul int64, named bool) []byte {
	if f.JSON {
		return b
	}
	if !f.NoPath { // -I drops it here too, as ripgrep does
		b = append(f.path(b, p), ": "...)
	}
	if !named {
		b = append(b, "WARNING: stopped searching binary file after match"...)
	} else {
		b = append(b, "binary file matches"...)
	}
	b = append(b, ` (found "\0" byte around offset `...)
	return append(strconv.AppendInt(b, nul, 10), ")\n"...)
}

// endPath ends a path printed on its own: a line break, or a NUL with -0.
func (f *Format) endPath(b []byte) []byte {
	if f.Null {
		return append(b, 0)
	}
	return append(b, '\n')
}

func (f *Format) path(b []byte, p string) []byte {
	if f.Color {
		return append(append(append(b, path...), p...), reset...)
	}
	return append(b, p...)
}

// number appends n, coloured as a line number.
func (f *Format) number(b []byte, n int) []byte {
	if f.Color {
		b = append(b, lineNum...)
	}
	b = strconv.AppendInt(b, int64(n), 10)
	if f.Color {
		b = append(b, reset...)
	}
	return b
}
