package match

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// lineDFA answers one question, whether a line holds a match, with a DFA built lazily
// from the regexp's program, one state per set of program positions, as RE2 and
// ripgrep do. Go's regexp has no DFA: its backtracker and NFA ran at ~30-60 MB/s on
// `\w+ing\s` (Unicode classes) and on `[A-Z]{2}[0-9]{3}`, 6-10x ripgrep's time. Here an
// ASCII byte costs one table look-up once its state is built; other runes go through a
// small map per state. Programs with \b or \B are left to the regexp (a boundary needs
// the next rune), and so is a search whose states outgrow maxDFAStates.
//
// The DFA is unanchored (a match may start anywhere), or anchored (a match starts where
// it is begun: where a class window was found, window.go), and stops at the first
// match; a line's end is where ^-anchored and $-anchored assertions are decided: ^ holds
// only in the state for a line's start, $ is kept pending in a state and tried at the end.
type lineDFA struct {
	prog     *syntax.Prog
	anchored bool
	pool     sync.Pool // *dfaCache: states are built per worker, without locks
}

const maxDFAStates = 4096 // then the cache is emptied and built again

type dfaCache struct {
	d      *lineDFA
	states map[string]*dstate
	start  *dstate // at a line's start
	mid    *dstate // inside a line (anchored only)
	stale  bool    // the states were dropped: start and mid are rebuilt at the next line
	stack  []uint32
	seen   []bool
}

type dstate struct {
	pcs      []uint32 // rune-consuming and pending-$ instructions, sorted
	match    bool     // a match has been seen
	endMatch bool     // at the line's end, a pending $ completes a match
	dead     bool     // anchored, no match can follow
	ascii    [128]*dstate
	other    map[rune]*dstate
}

// newLineDFA: nil where the program needs what the DFA does not handle.
func newLineDFA(re *syntax.Regexp, anchored bool) *lineDFA {
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil
	}
	for _, inst := range prog.Inst {
		if inst.Op == syntax.InstEmptyWidth &&
			syntax.EmptyOp(inst.Arg)&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
			return nil
		}
	}
	d := &lineDFA{prog: prog, anchored: anchored}
	d.pool.New = func() any { return d.newCache() }
	return d
}

func (d *lineDFA) newCache() *dfaCache {
	c := &dfaCache{d: d, states: map[string]*dstate{}, seen: make([]bool, len(d.prog.Inst))}
	c.starts()
	return c
}

// starts builds the states a search begins in: the program's start, which the closure
// adds itself when unanchored.
func (c *dfaCache) starts() {
	var pcs []uint32
	if c.d.anchored {
		pcs = []uint32{uint32(c.d.prog.Start)}
		c.mid = c.closure(pcs, false)
	}
	c.start = c.closure(pcs, true)
}

func (d *lineDFA) get() *dfaCache  { return d.pool.Get().(*dfaCache) }
func (d *lineDFA) put(c *dfaCache) { d.pool.Put(c) }

// closure: the state of the positions reachable from pcs without consuming a rune,
// plus the program's start where the search is unanchored; bol: at the line's start.
func (c *dfaCache) closure(pcs []uint32, bol bool) *dstate {
	var set []uint32
	match := false
	clear(c.seen)
	c.stack = c.stack[:0]
	if !c.d.anchored {
		c.stack = append(c.stack, uint32(c.d.prog.Start))
	}
	c.stack = append(c.stack, pcs...)
	for len(c.stack) > 0 {
		pc := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		if c.seen[pc] {
			continue
		}
		c.seen[pc] = true
		inst := &c.d.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			c.stack = append(c.stack, inst.Arg, inst.Out)
		case syntax.InstCapture, syntax.InstNop:
			c.stack = append(c.stack, inst.Out)
		case syntax.InstEmptyWidth:
			op := syntax.EmptyOp(inst.Arg)
			if op&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0 && !bol {
				continue
			}
			if op&(syntax.EmptyEndLine|syntax.EmptyEndText) != 0 {
				set = append(set, pc) // pending: decided at the line's end
				continue
			}
			c.stack = append(c.stack, inst.Out)
		case syntax.InstMatch:
			match = true
		case syntax.InstFail:
		default: // the rune instructions
			set = append(set, pc)
		}
	}
	slices.Sort(set)
	return c.intern(set, match, bol)
}

func (c *dfaCache) intern(set []uint32, match, bol bool) *dstate {
	var key strings.Builder
	if bol {
		key.WriteByte('^')
	}
	if match {
		key.WriteByte('!')
	}
	for _, pc := range set {
		key.WriteString(strconv.FormatUint(uint64(pc), 36))
		key.WriteByte(',')
	}
	if s, ok := c.states[key.String()]; ok {
		return s
	}
	if len(c.states) >= maxDFAStates {
		clear(c.states) // the states in use stay valid; the next line starts afresh
		c.stale = true
	}
	s := &dstate{pcs: set, match: match, dead: c.d.anchored && len(set) == 0 && !match}
	s.endMatch = match || c.matchesAtEnd(set, bol)
	c.states[key.String()] = s
	return s
}

// matchesAtEnd: from the pending $ of set, at the line's end, a match is reached.
func (c *dfaCache) matchesAtEnd(set []uint32, bol bool) bool {
	seen := map[uint32]bool{}
	var stack []uint32
	for _, pc := range set {
		if c.d.prog.Inst[pc].Op == syntax.InstEmptyWidth {
			stack = append(stack, pc)
		}
	}
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		inst := &c.d.prog.Inst[pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, inst.Arg, inst.Out)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&(syntax.EmptyBeginLine|syntax.EmptyBeginText) != 0 && !bol {
				continue
			}
			stack = append(stack, inst.Out)
		case syntax.InstMatch:
			return true
		}
	}
	return false
}

// step: the state after s consumes r.
func (c *dfaCache) step(s *dstate, r rune) *dstate {
	var next []uint32
	for _, pc := range s.pcs {
		inst := &c.d.prog.Inst[pc]
		if matchRune(inst, r) {
			next = append(next, inst.Out)
		}
	}
	t := c.closure(next, false)
	if r < utf8.RuneSelf {
		s.ascii[r] = t
	} else {
		if s.other == nil {
			s.other = map[rune]*dstate{}
		}
		s.other[r] = t
	}
	return t
}

// begin: the state at a line's start.
func (c *dfaCache) begin() *dstate {
	if c.stale {
		c.stale = false
		c.starts()
	}
	return c.start
}

// matchFrom: with the anchored DFA, a match starts at buf[at] (and ends on its line).
func (c *dfaCache) matchFrom(buf []byte, at int) bool {
	s := c.begin()
	if at > 0 && buf[at-1] != '\n' {
		s = c.mid
	}
	for i := at; i < len(buf); {
		if s.match || s.dead {
			return s.match
		}
		b := buf[i]
		if b == '\n' {
			return s.endMatch
		}
		if b < utf8.RuneSelf && s.ascii[b] != nil {
			s, i = s.ascii[b], i+1
			continue
		}
		s, i = c.advance(s, buf, i)
	}
	return s.endMatch
}

// advance: the state after the rune at buf[i], and where the next rune starts; the
// loops below take an ASCII byte whose transition is built themselves, the rest here.
func (c *dfaCache) advance(s *dstate, buf []byte, i int) (*dstate, int) {
	if b := buf[i]; b < utf8.RuneSelf {
		return c.step(s, rune(b)), i + 1
	}
	r, size := utf8.DecodeRune(buf[i:])
	if t, ok := s.other[r]; ok {
		return t, i + size
	}
	return c.step(s, r), i + size
}

// matchLine: line (without its terminator) holds a match.
func (c *dfaCache) matchLine(line []byte) bool {
	s := c.begin()
	for i := 0; i < len(line); {
		if s.match {
			return true
		}
		if b := line[i]; b < utf8.RuneSelf && s.ascii[b] != nil {
			s, i = s.ascii[b], i+1
			continue
		}
		s, i = c.advance(s, line, i)
	}
	return s.endMatch
}

// nextLine: the bounds of the first line of buf at or after from (a line's start)
// that holds a match, or -1, -1. '\n' ends a line and starts the next from c.start.
func (c *dfaCache) nextLine(buf []byte, from int) (int, int) {
	s, lineStart := c.begin(), from
	for i := from; i < len(buf); {
		b := buf[i]
		if b == '\n' {
			if s.endMatch {
				return lineStart, i
			}
			s, lineStart = c.begin(), i+1
			i++
			continue
		}
		if s.match {
			return lineStart, lineEnd(buf, i)
		}
		if b < utf8.RuneSelf && s.ascii[b] != nil {
			s, i = s.ascii[b], i+1
			continue
		}
		s, i = c.advance(s, buf, i)
	}
	if lineStart < len(buf) && s.endMatch { // the last line, without a '\n'
		return lineStart, len(buf)
	}
	return -1, -1
}

func matchRune(inst *syntax.Inst, r rune) bool {
	switch inst.Op {
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	case syntax.InstRune, syntax.InstRune1:
		return inst.MatchRune(r)
	}
	return false // a pending $
}

func lineEnd(buf []byte, at int) int {
	if i := bytes.IndexByte(buf[at:], '\n'); i >= 0 {
		return at + i
	}
	return len(buf)
}
