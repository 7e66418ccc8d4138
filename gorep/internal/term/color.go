// Package term decides whether gorep colours its output: the one place that asks
// whether standard output is a terminal (S10: isatty(fileno(stdout)) in C,
// term.IsTerminal(fd) in Go), so that a pipe or a file never receives escape sequences.
package term

import (
	"fmt"
	"os"

	"golang.org/x/term"
)

// Mode is the --color setting.
type Mode string

const (
	Auto   Mode = "auto"   // colour when standard output is a terminal and NO_COLOR is unset
	Always Mode = "always" // colour, whatever the output is (an explicit request beats NO_COLOR)
	Never  Mode = "never"
)

// ParseMode reads a --color value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Auto, Always, Never:
		return m, nil
	}
	return "", fmt.Errorf("--color=%s: want auto, always or never", s)
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// UseColor decides for output f: NO_COLOR (https://no-color.org), when set to anything
// but the empty string, turns auto off.
func UseColor(m Mode, f *os.File, getenv func(string) string) bool {
	switch m {
	case Always:
		return true
	case Never:
		return false
	}
	return getenv("NO_COLOR") == "" && IsTerminal(f)
}
