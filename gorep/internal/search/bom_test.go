package search

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"
)

func TestDecoderSplitsNothing(t *testing.T) {
	// One byte a read: a unit, and a surrogate pair, cut across reads decode whole.
	text := "a😀é\n" + strings.Repeat("x😀", 100)
	var le []byte
	for _, u := range utf16.Encode([]rune(text)) {
		le = append(le, byte(u), byte(u>>8))
	}
	for name, in := range map[string][]byte{"whole": le, "odd byte": append(le[:len(le):len(le)], 'z')} {
		got, err := io.ReadAll(newDecoder(iotest.OneByteReader(strings.NewReader(string(in))), false))
		want := text
		if name == "odd byte" {
			want += "\uFFFD"
		}
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	// A lone surrogate, high then low, reads as U+FFFD.
	got, _ := io.ReadAll(newDecoder(strings.NewReader("\xd8\x00\x00a\xdc\x00"), true))
	if string(got) != "\uFFFDa\uFFFD" {
		t.Errorf("lone surrogates: %q", got)
	}
}
