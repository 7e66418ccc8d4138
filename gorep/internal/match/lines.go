package match

import "bytes"

// EachLine calls fn with the [start, end) bounds of every line of buf that contains a
// match, in order, until fn returns false. buf holds whole lines: it ends with '\n' or
// at the end of the input. A line's bounds exclude its '\n'.
//
// With a prefilter, only the lines holding a required literal reach the regexp (none
// does where the pattern is the literals themselves); without
// one, the multi-line regexp scans the buffer itself (a match never spans lines). The
// lazy DFA (dfa.go), where the pattern allows one, takes the regexp's place in both.
func (m *Matcher) EachLine(buf []byte, fn func(start, end int) bool) {
	var c *dfaCache
	if m.dfa != nil {
		c = m.dfa.get()
		defer m.dfa.put(c)
	}
	if m.pre == nil {
		m.scan(c, buf, 0, fn)
		return
	}
	if m.starts != nil {
		m.eachStart(c, buf, fn)
		return
	}
	_, window := m.pre.(*classWindow)
	for from, found, mark := 0, 0, 0; from < len(buf); {
		at, _ := m.pre.Next(buf, from)
		if at < 0 {
			return
		}
		start, end := lineAround(buf, at)
		if found++; window && found%windowTrial == 0 {
			if at-mark < windowTrial*minWindowGap { // as common as lines: not worth it
				m.scan(c, buf, start, fn)
				return
			}
			mark = at
		}
		if m.lineMatches(c, buf, start, end, at) && !fn(start, end) {
			return
		}
		from = end + 1
	}
}

// eachStart: where the class window is found, the anchored DFA tries a match starting
// there; on a match the line is reported and the search goes on at the next line, else
// at the next byte.
func (m *Matcher) eachStart(c *dfaCache, buf []byte, fn func(start, end int) bool) {
	w := m.pre.(*classWindow)
	a := m.starts.get()
	defer m.starts.put(a)
	for from, found, mark := 0, 0, 0; from < len(buf); {
		at, _ := w.Next(buf, from)
		if at < 0 {
			return
		}
		if found++; found%windowTrial == 0 {
			if at-mark < windowTrial*minStartGap {
				m.scan(c, buf, bytes.LastIndexByte(buf[:at], '\n')+1, fn)
				return
			}
			mark = at
		}
		if st := at - w.off; st < 0 || !a.matchFrom(buf, st) {
			from = at + 1
			continue
		}
		start, end := lineAround(buf, at)
		if m.valid(buf[start:end]) && !fn(start, end) {
			return
		}
		from = end + 1
	}
}

// A class window (window.go) is judged every windowTrial places it finds: found less
// than minStartGap bytes apart on average where the anchored DFA tries each, or than
// minWindowGap where each line is judged whole, it costs more than the scan it saves.
const (
	windowTrial  = 32
	minStartGap  = 8
	minWindowGap = 64
)

// scan finds the matching lines of buf from offset from (a line's start) without a
// prefilter: with the DFA where there is one (c), else the multi-line regexp.
func (m *Matcher) scan(c *dfaCache, buf []byte, from int, fn func(start, end int) bool) {
	if c != nil {
		m.scanDFA(c, buf, from, fn)
		return
	}
	m.scanRegexp(buf, from, fn)
}

// scanRegexp: the empty text after the buffer's last '\n' is no line (ripgrep reports
// none there), though a multi-line ^$ matches it; nor is an empty buffer.
func (m *Matcher) scanRegexp(buf []byte, from int, fn func(start, end int) bool) {
	for from < len(buf) {
		loc := m.buffer.FindIndex(buf[from:])
		if loc == nil || (from+loc[0] == len(buf) && buf[len(buf)-1] == '\n') {
			return
		}
		start, end := lineAround(buf, from+loc[0])
		if m.strict != nil && !m.Match(buf[start:end]) {
			from = end + 1
			continue
		}
		if !fn(start, end) {
			return
		}
		from = end + 1
	}
}

// scanDFA is scan with the DFA: it finds whole lines itself, never the phantom one.
func (m *Matcher) scanDFA(c *dfaCache, buf []byte, from int, fn func(start, end int) bool) {
	for from < len(buf) {
		start, end := c.nextLine(buf, from)
		if start < 0 {
			return
		}
		if m.valid(buf[start:end]) && !fn(start, end) {
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

// lineMatches: buf[start:end], holding an occurrence of the prefilter's literal at at,
// holds a match.
func (m *Matcher) lineMatches(c *dfaCache, buf []byte, start, end, at int) bool {
	switch {
	case m.whole:
		return true
	case m.word1: // one literal: Next gives its occurrences in order
		for at >= 0 && at < end {
			oEnd := at + len(m.pre.(*pairLiteral).lit)
			word, decided := wordAt(buf[start:end], at-start, oEnd-start)
			if !decided {
				break
			}
			if word {
				return true
			}
			at, _ = m.pre.Next(buf[:end], at+1)
		}
		if at < 0 || at >= end {
			return false
		}
	}
	if c != nil {
		return c.matchLine(buf[start:end]) && m.valid(buf[start:end])
	}
	return m.Match(buf[start:end])
}
