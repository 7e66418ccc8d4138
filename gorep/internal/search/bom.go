package search

import (
	"bytes"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// A byte-order mark at a file's start says its encoding, as ripgrep's default
// (--encoding auto) reads it: UTF-16 (little or big endian) is decoded to UTF-8 and
// searched, a UTF-8 mark is dropped; the offsets and line texts reported are those of
// the UTF-8 text searched. Any other file is searched as its bytes.
var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// encoding of a file whose first bytes are head.
type encoding int

const (
	raw encoding = iota
	utf8BOM
	utf16LE
	utf16BE
)

func sniff(head []byte) encoding {
	switch {
	case bytes.HasPrefix(head, bomUTF8):
		return utf8BOM
	case bytes.HasPrefix(head, bomUTF16LE):
		return utf16LE
	case bytes.HasPrefix(head, bomUTF16BE):
		return utf16BE
	}
	return raw
}

// bomLen: the bytes of the mark itself.
func (e encoding) bomLen() int64 {
	switch e {
	case utf8BOM:
		return 3
	case utf16LE, utf16BE:
		return 2
	}
	return 0
}

// decoder reads r (past its mark) as UTF-16 and returns UTF-8. A lone surrogate, and an
// odd byte at the end, become U+FFFD, as in ripgrep (encoding_rs).
type decoder struct {
	r       io.Reader
	big     bool
	in      []byte // undecoded bytes: at most one unit, or a high surrogate's pair, carried
	out     []byte // decoded, not yet returned
	scratch []byte
	eof     bool
}

func newDecoder(r io.Reader, big bool) *decoder {
	return &decoder{r: r, big: big, scratch: make([]byte, 64<<10)}
}

func (d *decoder) Read(p []byte) (int, error) {
	for len(d.out) == 0 {
		if d.eof {
			return 0, io.EOF
		}
		n, err := d.r.Read(d.scratch)
		d.in = append(d.in, d.scratch[:n]...)
		if err == io.EOF {
			d.eof = true
		} else if err != nil {
			return 0, err
		}
		d.decode()
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

// decode turns the whole units of d.in into d.out, keeping a high surrogate whose pair
// has not been read yet (and, at the end, turning what is left into U+FFFD).
func (d *decoder) decode() {
	d.out = d.out[:0]
	in := d.in
	for len(in) >= 2 {
		u := d.unit(in)
		switch {
		case utf16.IsSurrogate(rune(u)) && u < 0xDC00 && len(in) < 4 && !d.eof:
			d.in = append(d.in[:0], in...)
			return
		case utf16.IsSurrogate(rune(u)) && u < 0xDC00 && len(in) >= 4:
			if r := utf16.DecodeRune(rune(u), rune(d.unit(in[2:]))); r != utf8.RuneError {
				d.out = utf8.AppendRune(d.out, r)
				in = in[4:]
				continue
			}
			d.out = utf8.AppendRune(d.out, utf8.RuneError)
		case utf16.IsSurrogate(rune(u)):
			d.out = utf8.AppendRune(d.out, utf8.RuneError)
		default:
			d.out = utf8.AppendRune(d.out, rune(u))
		}
		in = in[2:]
	}
	if d.eof && len(in) > 0 {
		d.out = utf8.AppendRune(d.out, utf8.RuneError)
		in = nil
	}
	d.in = append(d.in[:0], in...)
}

func (d *decoder) unit(b []byte) uint16 {
	if d.big {
		return uint16(b[0])<<8 | uint16(b[1])
	}
	return uint16(b[1])<<8 | uint16(b[0])
}

func (e encoding) String() string {
	return [...]string{"no byte-order mark", "UTF-8 with a byte-order mark", "UTF-16LE, decoded", "UTF-16BE, decoded"}[e]
}
