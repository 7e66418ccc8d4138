package output

// --json writes ripgrep's JSON Lines, record for record: per file with a line to show,
// "begin", a "match" or "context" per line, "end" with the file's statistics; then one
// "summary". The records are written byte for byte as ripgrep's serde_json writes them
// (its key order, its string escapes, not Go's, which escape <, > and U+2028), because
// "bytes_printed" counts those bytes: the same records must count the same.

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// Pos is where a line lies in the text searched: its offset (JSON's absolute_offset),
// and whether a '\n' ends it (JSON's lines.text holds the terminator).
type Pos struct {
	Offset     int64
	Terminated bool
}

// Stats are the counts of ripgrep's "end" and "summary" records.
type Stats struct {
	Elapsed           time.Duration
	Searches          int
	SearchesWithMatch int
	BytesSearched     int64
	BytesPrinted      int64
	MatchedLines      int
	Matches           int
}

// Add adds o's counts to s.
func (s *Stats) Add(o Stats) {
	s.Elapsed += o.Elapsed
	s.Searches += o.Searches
	s.SearchesWithMatch += o.SearchesWithMatch
	s.BytesSearched += o.BytesSearched
	s.BytesPrinted += o.BytesPrinted
	s.MatchedLines += o.MatchedLines
	s.Matches += o.Matches
}

// jsonFile is the state of one file's records: "begin" is written before its first line
// only, so that a file with nothing to show writes no record at all, as in ripgrep.
type jsonFile struct {
	path  string
	start time.Time
	begun bool
	first int // offset in the output of the file's first record
	stats Stats
}

// jsonLine appends a "match" (match true) or "context" record. ripgrep lists the
// matches of a match record, and with -v those of a context record (the lines that
// match are then the context).
func (f *Format) jsonLine(b []byte, num int, text []byte, pos Pos, match bool) []byte {
	b = f.jsonBegin(b)
	var spans [][]int
	if match != f.Invert {
		spans = f.Matcher.Spans(text)
		// ripgrep reports no empty match at the end of the line's bytes (its '\n' included).
		if n := len(spans); n > 0 && !pos.Terminated && spans[n-1][0] == spans[n-1][1] && spans[n-1][0] >= len(text) {
			spans = spans[:n-1]
		}
	}
	kind := `{"type":"context","data":{"path":`
	if match {
		kind = `{"type":"match","data":{"path":`
		f.file.stats.MatchedLines++
		f.file.stats.Matches += len(spans)
	}
	line := text
	if pos.Terminated {
		line = text[:len(text):len(text)]
		line = append(line, '\n')
	}
	b = appendData(append(b, kind...), []byte(f.file.path))
	b = appendData(append(b, `,"lines":`...), line)
	b = strconv.AppendInt(append(b, `,"line_number":`...), int64(num), 10)
	b = strconv.AppendInt(append(b, `,"absolute_offset":`...), pos.Offset, 10)
	b = append(b, `,"submatches":[`...)
	for i, s := range spans {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendData(append(b, `{"match":`...), text[s[0]:s[1]])
		b = strconv.AppendInt(append(b, `,"start":`...), int64(s[0]), 10)
		b = strconv.AppendInt(append(b, `,"end":`...), int64(s[1]), 10)
		b = append(b, '}')
	}
	b = append(b, "]}}\n"...)
	f.file.stats.BytesPrinted = int64(len(b) - f.file.first)
	return b
}

func (f *Format) jsonBegin(b []byte) []byte {
	if f.file.begun {
		return b
	}
	f.file.begun, f.file.first = true, len(b)
	b = appendData(append(b, `{"type":"begin","data":{"path":`...), []byte(f.file.path))
	return append(b, "}}\n"...)
}

// jsonEnd appends the file's "end" record (none when it wrote no "begin") and returns
// its statistics: nul is the offset of its first NUL byte (-1: none), searched the
// bytes searched.
func (f *Format) jsonEnd(b []byte, nul, searched int64) ([]byte, Stats) {
	if !f.file.begun {
		return b, Stats{}
	}
	s := &f.file.stats
	s.Elapsed = time.Since(f.file.start)
	s.Searches, s.BytesSearched = 1, searched
	if s.MatchedLines > 0 {
		s.SearchesWithMatch = 1
	}
	b = appendData(append(b, `{"type":"end","data":{"path":`...), []byte(f.file.path))
	b = append(b, `,"binary_offset":`...)
	if nul >= 0 {
		b = strconv.AppendInt(b, nul, 10)
	} else {
		b = append(b, "null"...)
	}
	b = appendElapsed(append(b, `,"stats":{"elapsed":`...), s.Elapsed, false)
	b = fmt.Appendf(b, `,"searches":%d,"searches_with_match":%d,"bytes_searched":%d,"bytes_printed":%d,"matched_lines":%d,"matches":%d}}}`+"\n",
		s.Searches, s.SearchesWithMatch, s.BytesSearched, s.BytesPrinted, s.MatchedLines, s.Matches)
	return b, *s
}

// Summary appends ripgrep's last record: the statistics of every file, and the time
// the whole search took. ripgrep writes it from a map, so its keys are sorted.
func Summary(b []byte, s Stats, total time.Duration) []byte {
	b = appendElapsed(append(b, `{"data":{"elapsed_total":`...), total, true)
	b = fmt.Appendf(b, `,"stats":{"bytes_printed":%d,"bytes_searched":%d,"elapsed":`, s.BytesPrinted, s.BytesSearched)
	b = appendElapsed(b, s.Elapsed, true)
	return fmt.Appendf(b, `,"matched_lines":%d,"matches":%d,"searches":%d,"searches_with_match":%d}},"type":"summary"}`+"\n",
		s.MatchedLines, s.Matches, s.Searches, s.SearchesWithMatch)
}

// appendElapsed: ripgrep's duration object, its keys sorted where it came from a map.
func appendElapsed(b []byte, d time.Duration, sorted bool) []byte {
	secs, nanos := int64(d/time.Second), int64(d%time.Second)
	human := strconv.FormatFloat(d.Seconds(), 'f', 6, 64) + "s"
	if sorted {
		return fmt.Appendf(b, `{"human":"%s","nanos":%d,"secs":%d}`, human, nanos, secs)
	}
	return fmt.Appendf(b, `{"secs":%d,"nanos":%d,"human":"%s"}`, secs, nanos, human)
}

// appendData appends ripgrep's arbitrary data object: {"text":...} for valid UTF-8,
// else {"bytes":...} in standard base64.
func appendData(b []byte, data []byte) []byte {
	if !utf8.Valid(data) {
		b = append(b, `{"bytes":"`...)
		b = base64.StdEncoding.AppendEncode(b, data)
		return append(b, `"}`...)
	}
	return append(appendString(append(b, `{"text":`...), data), '}')
}

// appendString appends s (valid UTF-8) as a JSON string escaped as serde_json does:
// the short escapes, \u00xx for the other control characters, and nothing else.
func appendString(b []byte, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, c := range s {
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}
