package cli

// Options and behaviours that ripgrep shares, each checked against ripgrep's own output
// on the same tree: gorep -g --no-names ARGS against rg -n -H --no-heading ARGS. The
// tests skip where rg is not installed.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ripgrep runs rg in dir with standard input from the file stdin (os.DevNull: none).
func ripgrep(t *testing.T, dir, stdin string, args ...string) (string, int) {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed")
	}
	in, err := os.Open(stdin)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command(rg, append([]string{"--color", "never", "--no-config"}, args...)...)
	cmd.Dir, cmd.Stdin = dir, in
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	status := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		status = ee.ExitCode()
	}
	return stdout.String(), status
}

// sameAsRipgrep: gorep -g --no-names --sort path ARGS prints what rg -n -H --no-heading
// --sort path ARGS prints, with the same exit status.
func sameAsRipgrep(t *testing.T, dir, stdin string, gorepArgs, rgArgs []string) {
	t.Helper()
	want, wantStatus := ripgrep(t, dir, stdin, append([]string{"-n", "-H", "--no-heading", "--sort", "path"}, rgArgs...)...)
	got, stderr, status := gorepInput(t, dir, stdin, append([]string{"-g", "--no-names", "--sort", "path"}, gorepArgs...)...)
	if got != want || status != wantStatus {
		t.Errorf("gorep %q: status %d, stderr %q\n%q\nripgrep %q: status %d\n%q", gorepArgs, status, stderr, got,
			rgArgs, wantStatus, want)
	}
}

func TestBinaryFileNamedOnTheCommandLine(t *testing.T) {
	dir := tree(t, map[string]string{
		"early.bin": "go\x00go\n",
		"late.bin":  "go line\ngo line\n" + strings.Repeat("x", 200000) + "\ngo\x00zero\ngo after\n",
		"none.bin":  "go line\n" + strings.Repeat("x", 200000) + "\n\x00zero\n",
	})
	for _, args := range [][]string{
		{"go", "early.bin", "late.bin", "none.bin"}, // lines up to the NUL, then a note
		{"zero", "late.bin"},                        // a match only after the NUL
		{"-c", "go", "late.bin", "none.bin"},        // every line counted
		{"-l", "zero", "early.bin", "late.bin"},
		{"-a", "zero", "late.bin"}, // all text
	} {
		sameAsRipgrep(t, dir, os.DevNull, args, args)
	}
}

func TestBinaryFileWithALateNUL(t *testing.T) {
	// A walk: the lines before the NUL (past the first 64 KiB), then ripgrep's WARNING.
	dir := tree(t, map[string]string{
		"a/late.bin":  "go line\ngo line\n" + strings.Repeat("x", 200000) + "\ngo\x00zero\ngo after\n",
		"a/early.bin": "go\x00go\n",
		"a/first.bin": "go line\n" + strings.Repeat("x", 60000) + "\n\x00\n", // in the first 64 KiB
		"a/text.txt":  "go\n",
	})
	sameAsRipgrep(t, dir, os.DevNull, []string{"go"}, []string{"go"})
	sameAsRipgrep(t, dir, os.DevNull, []string{"-l", "go"}, []string{"-l", "go"})
	sameAsRipgrep(t, dir, os.DevNull, []string{"zero"}, []string{"zero"})
}

func TestNewlineInFileName(t *testing.T) {
	// ripgrep prints a path as it is, a line break included; so does gorep.
	dir := tree(t, map[string]string{"new\nline.txt": "go\n", "plain.txt": "go\n"})
	sameAsRipgrep(t, dir, os.DevNull, []string{"go"}, []string{"go"})
	sameAsRipgrep(t, dir, os.DevNull, []string{"-l", "go"}, []string{"-l", "go"})
	out, _, _ := gorep(t, dir, "--sort", "path", "line")
	if out != "new\nline.txt\n" {
		t.Fatalf("a name with a line break: %q", out)
	}
}

// optionsText: lines for the options' cases.
var optionsText = map[string]string{
	"a.txt":     "alpha beta\nBeta gamma\nalpha\n\nfoo-bar foo\nnaïve Naïve\n",
	"b.txt":     "gamma\ndelta epsilon\nalpha alpha alpha\n",
	"sub/c.txt": "nothing to see\nALPHA\n",
	"sub/d.md":  "alpha\n",
}

func TestOptionsEqualRipgrep(t *testing.T) {
	dir := tree(t, optionsText)
	cases := [][]string{
		{"-v", "alpha"},
		{"-v", "-c", "a"},
		{"-o", "al.."},
		{"-o", "-w", "foo"},
		{"-o", `\w+`},
		{"-m", "1", "alpha"},
		{"-m", "2", "-c", "alpha"},
		{"-e", "beta", "-e", "delta"},
		{"-F", "-e", "foo-", "-e", "a."},
		{"-x", "alpha"},
		{"-x", "-w", "alpha"}, // the last wins
		{"-w", "-x", "alpha"},
		{"-S", "alpha"},
		{"-S", "Beta"},
		{"-S", "naïve"},
		{"-i", "-s", "beta"}, // the last wins
		{"-s", "-i", "beta"},
		{"-S", "-i", "Beta"},
		{"-is", "beta"},
		{"-w", "-i", "NAÏVE"},
		{"-l", "-0", "alpha"},
		{"-c", "-0", "alpha"},
		{"-0", "gamma"},
		{"--files-without-match", "delta"},
		{"--files-without-match", "a"},
		{"-N", "gamma"},
		{"-I", "gamma"},
		{"--vimgrep", "alpha"},
		{"--vimgrep", "-o", "al"},
		{"--column", "gamma"},
		{"-e", "alpha", "sub", "a.txt"},
	}
	for _, c := range cases {
		sameAsRipgrep(t, dir, os.DevNull, c, c)
	}
}

func TestFilesListsWhatIsSearched(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": "x", "sub/b.go": "x", ".hidden/c": "x", "skipped/d": "x", ".ignore": "skipped/\n"})
	want, _ := ripgrep(t, dir, os.DevNull, "--files", "--sort", "path")
	got, _, status := gorep(t, dir, "--files", "--sort", "path")
	if got != want || status != Matched {
		t.Fatalf("--files: status %d\n%q\nripgrep:\n%q", status, got, want)
	}
	want, _ = ripgrep(t, dir, os.DevNull, "--files", "--sort", "path", "-t", "go")
	if got, _, _ := gorep(t, dir, "--files", "--sort", "path", "-t", "go"); got != want {
		t.Fatalf("--files -t go: %q, ripgrep %q", got, want)
	}
}

func TestStandardInput(t *testing.T) {
	dir := tree(t, optionsText)
	input := filepath.Join(dir, "a.txt")
	sameAsRipgrep(t, dir, input, []string{"alpha"}, []string{"alpha"})                       // not a terminal: read
	sameAsRipgrep(t, dir, input, []string{"-c", "alpha", "-"}, []string{"-c", "alpha", "-"}) // named -
	sameAsRipgrep(t, dir, input, []string{"gamma", "-", "b.txt"}, []string{"gamma", "-", "b.txt"})
	sameAsRipgrep(t, dir, os.DevNull, []string{"gamma"}, []string{"gamma"}) // /dev/null: the folder
}

func TestNoMessages(t *testing.T) {
	dir := tree(t, optionsText)
	_, stderr, status := gorep(t, dir, "-g", "--no-messages", "alpha", "missing", "a.txt")
	if stderr != "" || status != HadErrors {
		t.Fatalf("--no-messages: stderr %q, status %d (want none, 2)", stderr, status)
	}
	if _, want := ripgrep(t, dir, os.DevNull, "--no-messages", "alpha", "missing", "a.txt"); want != HadErrors {
		t.Fatalf("ripgrep's status %d", want)
	}
}

func TestContextEqualsRipgrep(t *testing.T) {
	dir := tree(t, map[string]string{
		"a": "1\n2 x\n3\n4\n5\n6\n7 x\n8\n9 x\n10\n",
		"b": "x\ny\n",
		"c": "none\n",
	})
	for _, c := range [][]string{
		{"-C1", "x"},
		{"-A1", "x"},
		{"-B2", "x"},
		{"-A1", "-B0", "x", "a"},
		{"-C1", "-v", "[0-9]"},
		{"-C2", "-m1", "x"},
		{"-A2", "-m1", "[0-9]", "a"}, // a match in the after-context prints as one
		{"-C1", "-o", "x", "a"},
		{"-B1", "-N", "x"},
		{"-C10", "x"},
	} {
		sameAsRipgrep(t, dir, os.DevNull, c, c)
	}
}

func TestPhantomEmptyLines(t *testing.T) {
	// No empty line after the last '\n', nor at a 256 KiB read boundary.
	long := strings.Repeat("some text on a line\n", 40000) // 800 KB: several reads
	dir := tree(t, map[string]string{"a": "a\n", "long": long, "empty": "", "blank": "\n\n"})
	for _, pattern := range []string{"^$", ".*", "x*", `\s*$`} {
		sameAsRipgrep(t, dir, os.DevNull, []string{"-c", pattern}, []string{"-c", pattern})
	}
}
