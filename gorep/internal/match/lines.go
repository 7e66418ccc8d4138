package match

import "bytes"

// EachLine calls fn with the [start, end) bounds of every line of buf that contains a
// match, in order, until fn returns false. buf holds whole lines: it ends with '\n' or
// at the end of the input. A line's bounds exclude its '\n'.
//
// With a prefilter, only the lines holding a required literal reach the regexp; without
// one, the multi-line regexp scans the buffer itself (a match never spans lines).
func (m *Matcher) EachLine(buf []byte, fn func(start, end int) bool) {
	if m.pre == nil {
		m.scan(buf, fn)
		return
	}
	for from := 0; from < len(buf); {
		at := m.pre.Next(buf, from)
		if at < 0 {
			return
		}
		start, end := lineAround(buf, at)
		if m.line.Match(buf[start:end]) && !fn(start, end) {
			return
		}
		from = end + 1
	}
}

func (m *Matcher) scan(buf []byte, fn func(start, end int) bool) {
	for from := 0; from <= len(buf); {
		loc := m.buffer.FindIndex(buf[from:])
		if loc == nil {
			return
		}
		start, end := lineAround(buf, from+loc[0])
		if !fn(start, end) {
			return
		}
		from = end + 1
	}
}

// lineAround: the bounds of the line holding offset at.
func lineAround(buf []byte, at int) (int, int) {
	start := bytes.LastIndexByte(buf[:at], '\n') + 1
	end := bytes.IndexByte(buf[at:], '\n')
	if end < 0 {
		return start, len(buf)
	}
	return start, at + end
}
