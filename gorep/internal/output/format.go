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
	Lines            Mode = iota // path:line:text
	FilesWithMatches             // -l: the path of each file with a match
	Count                        // -c: path:count
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

// File appends a file whose name matched.
func (f *Format) File(b []byte, p string) []byte {
	if f.JSON {
		return appendJSON(b, object{"type": "file", "path": p})
	}
	return append(f.path(b, p), '\n')
}

// Line appends one matching line (text without its terminator).
func (f *Format) Line(b []byte, p string, num int, text []byte) []byte {
	var spans [][]int
	if f.Color || f.Column || f.JSON {
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
	b = append(f.path(b, p), ':')
	b = f.number(b, num)
	if f.Column {
		col := 1
		if len(spans) > 0 {
			col = spans[0][0] + 1
		}
		b = f.number(b, col)
	}
	if !f.Color || len(spans) == 0 {
		return append(append(b, text...), '\n')
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
	return append(append(b, text[at:]...), '\n')
}

// Matched appends the summary of a file with n matching lines, for -l and -c.
func (f *Format) Matched(b []byte, p string, n int) []byte {
	if f.Mode == Count {
		if f.JSON {
			return appendJSON(b, object{"type": "count", "path": p, "count": n})
		}
		b = append(f.path(b, p), ':')
		return append(strconv.AppendInt(b, int64(n), 10), '\n')
	}
	if f.JSON {
		return appendJSON(b, object{"type": "file-with-matches", "path": p})
	}
	return append(f.path(b, p), '\n')
}

func (f *Format) path(b []byte, p string) []byte {
	if f.Color {
		return append(append(append(b, path...), p...), reset...)
	}
	return append(b, p...)
}

// number appends n and a ':'.
func (f *Format) number(b []byte, n int) []byte {
	if f.Color {
		b = append(b, lineNum...)
	}
	b = strconv.AppendInt(b, int64(n), 10)
	if f.Color {
		b = append(b, reset...)
	}
	return append(b, ':')
}
