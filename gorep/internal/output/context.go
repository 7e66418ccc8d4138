package output

// Context formats the lines around the matching lines of one file (-A, -B, -C) as
// ripgrep does: path-line-text for a line of context, path:line:text for a match, and
// "--" between groups that do not touch. The lines before a match are kept (copied)
// until one comes; the printer writes "--" between files (Printer.Separator).
type Context struct {
	Before, After int
	Format        *Format
	Path          string

	kept  []numbered // the last Before lines not printed
	after int        // lines of after-context still to print
	last  int        // number of the last line printed; 0: none yet
}

type numbered struct {
	num  int
	text []byte
	pos  Pos
}

// Match appends a matching line, after the context kept before it.
func (c *Context) Match(b []byte, num int, text []byte, pos Pos) []byte {
	for _, l := range c.kept {
		b = c.line(b, l.num, l.text, l.pos, false)
	}
	c.kept = c.kept[:0]
	c.after = c.After
	return c.line(b, num, text, pos, true)
}

// Late appends a matching line met in the after-context of the last match -m allows:
// printed as a match, as ripgrep does, but it owes no after-context of its own.
func (c *Context) Late(b []byte, num int, text []byte, pos Pos) []byte {
	if c.after == 0 {
		return b
	}
	c.after--
	return c.line(b, num, text, pos, true)
}

// Other takes a line that does not match: printed as after-context, or kept.
func (c *Context) Other(b []byte, num int, text []byte, pos Pos) []byte {
	if c.after > 0 {
		c.after--
		return c.line(b, num, text, pos, false)
	}
	if c.Before == 0 {
		return b
	}
	if len(c.kept) == c.Before {
		reuse := c.kept[0].text[:0]
		copy(c.kept, c.kept[1:])
		c.kept[len(c.kept)-1] = numbered{num, append(reuse, text...), pos}
		return b
	}
	c.kept = append(c.kept, numbered{num, append([]byte(nil), text...), pos})
	return b
}

// Done: no after-context is owed.
func (c *Context) Done() bool { return c.after == 0 }

func (c *Context) line(b []byte, num int, text []byte, pos Pos, match bool) []byte {
	if c.last > 0 && num > c.last+1 && !c.Format.JSON {
		b = append(b, "--\n"...)
	}
	c.last = num
	if match {
		return c.Format.Line(b, c.Path, num, text, pos)
	}
	return c.Format.ContextLine(b, c.Path, num, text, pos)
}
