package output

import (
	"bytes"
	"testing"
)

// Without names, content is written as it comes, after Lead, never held for the walk's
// end; its buffers come back through Buffer once written.
func TestPrinterWithoutNamesStreams(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, false)
	p.Lead = []byte("stdin:1:x\n")
	p.WithoutNames()
	first := append(Buffer(), "a:1:x\n"...)
	p.Content(0, first)
	p.Content(1, nil)
	if len(p.held) != 0 {
		t.Fatalf("%d results held", len(p.held))
	}
	if b := Buffer(); cap(b) == 0 || len(b) != 0 {
		t.Fatalf("Buffer after a write: len %d cap %d, want a written buffer, emptied", len(b), cap(b))
	}
	close(p.Walked)
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "stdin:1:x\na:1:x\n"; got != want {
		t.Fatalf("wrote %q, want %q", got, want)
	}
}

// With names to come, content waits for them: names first, as gorep prints them.
func TestPrinterHoldsContentForNames(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, false)
	p.Content(0, []byte("a:1:x\n"))
	if len(p.held) != 1 {
		t.Fatalf("%d results held, want 1", len(p.held))
	}
	p.Files = []byte("name\n")
	close(p.Walked)
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "name\na:1:x\n"; got != want {
		t.Fatalf("wrote %q, want %q", got, want)
	}
}
