package readfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, content string) *os.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// collect returns the chunks' concatenation, checking each holds whole lines.
func collect(t *testing.T, f *os.File, s Strategy) string {
	t.Helper()
	info, _ := f.Stat()
	var r Reader
	var all bytes.Buffer
	err := r.Chunks(f, info.Size(), s, func(buf []byte) bool {
		if all.Len()+len(buf) < int(info.Size()) && buf[len(buf)-1] != '\n' {
			t.Fatalf("%s: a chunk that is not the last ends inside a line", s)
		}
		all.Write(buf)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.String()
}

func TestStrategiesSeeTheSameBytes(t *testing.T) {
	long := strings.Repeat("x", 3*ChunkSize+17) // a line longer than the buffer
	var b strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	for name, content := range map[string]string{
		"many lines":      b.String(),
		"no final break":  "a\nb\nc",
		"one long line":   "start\n" + long + "\nend\n",
		"long, no break":  long,
		"empty":           "",
		"exactly a chunk": strings.Repeat("abcdefg\n", ChunkSize/8),
	} {
		for _, s := range []Strategy{Read, Mmap} {
			got := collect(t, write(t, content), s)
			if got != content {
				t.Errorf("%s, %s: %d bytes back of %d", name, s, len(got), len(content))
			}
		}
	}
}

func TestFailedMmapFallsBackToReads(t *testing.T) {
	dir, _ := os.Open(t.TempDir()) // a folder cannot be mapped, nor read
	defer dir.Close()
	var logged string
	r := Reader{Debug: func(format string, args ...any) { logged = fmt.Sprintf(format, args...) }}
	err := r.Chunks(dir, 4096, Mmap, func([]byte) bool { return true })
	if !strings.Contains(logged, "mmap failed") || !strings.Contains(logged, "reading it instead") {
		t.Fatalf("no fallback logged: %q", logged)
	}
	if err == nil || !strings.Contains(err.Error(), "read") {
		t.Fatalf("the read after the failed mmap: err = %v", err)
	}
}

func TestChoose(t *testing.T) {
	cases := []struct {
		size  int64
		count int
		want  Strategy
	}{
		{MmapMinSize, 1, Mmap},
		{MmapMinSize - 1, 1, Read},
		{1 << 30, MmapMaxFiles, Mmap},
		{1 << 30, MmapMaxFiles + 1, Read},
		{1 << 30, -1, Read},
	}
	for _, c := range cases {
		if got := Choose(c.size, c.count); got != c.want {
			t.Errorf("Choose(%d, %d) = %s, want %s", c.size, c.count, got, c.want)
		}
	}
}

// A map is handed on as windows of whole lines that cover it exactly, a line longer
// than a window included.
func TestMappedWindowsAreWholeLines(t *testing.T) {
	long := strings.Repeat("x", 3*MapWindow/2)
	data := []byte(strings.Repeat("a line\n", MapWindow/5) + long + "\n" + "tail without newline")
	var got []byte
	mapped(data, func(buf []byte) bool {
		if len(got)+len(buf) < len(data) && buf[len(buf)-1] != '\n' {
			t.Fatalf("a window ends inside a line at %d", len(got)+len(buf))
		}
		got = append(got, buf...)
		return true
	})
	if string(got) != string(data) {
		t.Fatalf("the windows cover %d of %d bytes", len(got), len(data))
	}
	calls := 0
	mapped(data, func([]byte) bool { calls++; return false })
	if calls != 1 {
		t.Fatalf("%d calls after fn returned false", calls)
	}
}
