// Package output formats what a search found: directories, files and matching lines as
// text (optionally coloured) or as JSON, one object per match. Formatting appends to a
// byte slice, so that each worker formats its own file and the printer only writes.
package output

import (
	"encoding/json"
	"strconv"

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
	JSON    bool
	Color   bool
	Column  bool           // --column: the 1-based byte column of the first match
	Matcher *match.Matcher // for match spans (colour, column, JSON)

	NoPath       bool // -I: no path before a line or count
	NoNumber     bool // -N: no line number
	Null         bool // -0: a NUL after each path instead of ':' or a line break
	OnlyMatching bool // -o: each match on a line of its own
	Vimgrep      bool // --vimgrep: each match as path:line:column:text
	Invert       bool // -v: the lines hold no match to colour or locate
}

type object map[string]any

func appendJSON(b []byte, o object) []byte {
	data, err := json.Marshal(o)
	if err != nil { // only unsupported types fail, and there are none
		panic(err)
	}
	return append(append(b, data...), '\n')
}

// Dir appends a directory whose name matched: its path with a trailing '/'.
func (f *Format) Dir(b []byte, p string) []byte {
	if f.JSON {
		return appendJSON(b, object{"type": "dir", "path": p})
	}
	if f.Color {
		return append(append(append(append(b, dirColor...), p...), '/'), reset+"\n"...)
	}
	return append(append(b, p...), "/\n"...)
}

// File appends a file whose name matched (or, with --files, any file searched).
func (f *Format) File(b []byte, p string) []byte {
	if f.JSON {
		return appendJSON(b, object{"type": "file", "path": p})
	}
	return f.endPath(f.path(b, p))
}

// Line appends one matching line (text without its terminator).
func (f *Format) Line(b []byte, p string, num int, text []byte) []byte {
	var spans [][]int
	if !f.Invert && (f.Color || f.Column || f.JSON || f.OnlyMatching || f.Vimgrep) {
		spans = f.Matcher.Spans(text)
	}
	if f.JSON {
		subs := make([]object, len(spans))
		for i, s := range spans {
			subs[i] = object{"match": string(text[s[0]:s[1]]), "start": s[0], "end": s[1]}
		}
		o := object{"type": "match", "path": p, "line": num, "text": string(text), "submatches": subs}
		if len(spans) > 0 {
			o["column"] = spans[0][0] + 1
		}
		return appendJSON(b, o)
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
func (f *Format) ContextLine(b []byte, p string, num int, text []byte) []byte {
	if f.JSON {
		return appendJSON(b, object{"type": "context", "path": p, "line": num, "text": string(text)})
	}
	b = f.prefixWith(b, p, num, 0, '-')
	return append(append(b, text...), '\n')
}

// prefix appends what comes before a line's text: its path, number and column, as asked.
func (f *Format) prefix(b []byte, p string, num, col int) []byte {
	return f.prefixWith(b, p, num, col, ':')
}

// prefixWith: the prefix with sep after each part; col 0 prints no column.
func (f *Format) prefixWith(b []byte, p string, num, col int, sep byte) []byte {
	if !f.NoPath {
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
		if f.JSON {
			return appendJSON(b, object{"type": "count", "path": p, "count": n})
		}
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
	if f.JSON {
		kind := "file-with-matches"
		if f.Mode == FilesWithoutMatch {
			kind = "file-without-match"
		}
		return appendJSON(b, object{"type": kind, "path": p})
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
	b = append(f.path(b, p), ": "...)
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
