package term

import (
	"os"
	"testing"
)

func TestUseColorThroughAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	none := func(string) string { return "" }
	noColor := func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}
	if UseColor(Auto, w, none) {
		t.Error("auto coloured a pipe")
	}
	if !UseColor(Always, w, noColor) {
		t.Error("always must colour even with NO_COLOR set")
	}
	if UseColor(Never, w, none) {
		t.Error("never coloured")
	}
	if IsTerminal(w) {
		t.Error("a pipe is not a terminal")
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"auto", "always", "never"} {
		if _, err := ParseMode(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Error("--color=sometimes accepted")
	}
}
