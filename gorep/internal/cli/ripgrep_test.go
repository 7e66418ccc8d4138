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
	"unicode/utf16"
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

func TestTypesEqualRipgrep(t *testing.T) {
	// Types whose globs gorep's table and ripgrep's share.
	dir := tree(t, map[string]string{"a.go": "x\n", "b.py": "x\n", "c.md": "x\n", "sub/d.foo": "x\n", "e.txt": "x\n"})
	for _, c := range [][]string{
		{"-T", "go", "x"},
		{"-T", "go", "-T", "py", "x"},
		{"-t", "go", "-t", "py", "-T", "py", "x"}, // the file of a type not wanted is not searched
		{"--type-not=md", "x"},
		{"--type-add", "foo:*.foo", "-t", "foo", "x"},
		{"--type-add", "go:*.foo", "-t", "go", "x"}, // added to the type's globs
		{"--type-add", "src:include:go,py", "-t", "src", "x"},
		{"--type-add", "src:include:go", "--type-add", "src:*.txt", "-T", "src", "x"},
	} {
		sameAsRipgrep(t, dir, os.DevNull, c, c)
	}
	for _, c := range [][]string{
		{"--type-add", "foo:*.foo", "--type-add", "foo:*.bar", "--type-list"},
		{"--type-add", "src:include:go,rust", "--type-add", "src:*.x", "--type-list"}, // tables that agree
	} {
		want, _ := ripgrep(t, dir, os.DevNull, c...)
		got, _, _ := gorep(t, dir, c...)
		for _, name := range []string{"foo: ", "src: "} {
			if line := lineStarting(want, name); line != lineStarting(got, name) {
				t.Errorf("gorep %q lists %q, ripgrep %q", c, lineStarting(got, name), line)
			}
		}
	}
	if _, stderr, status := gorep(t, dir, "-T", "nosuchtype", "x"); status != HadErrors || !strings.Contains(stderr, "nosuchtype") {
		t.Errorf("-T nosuchtype: status %d, stderr %q", status, stderr)
	}
}

// lineStarting: the line of out that starts with prefix, or "".
func lineStarting(out, prefix string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

func TestUnrestrictedEqualsRipgrep(t *testing.T) {
	// No .git: gorep never searches it, ripgrep does with --hidden.
	dir := tree(t, map[string]string{
		".ignore":       "ignored.txt\n",
		"ignored.txt":   "go ignored\n",
		".hidden/a.txt": "go hidden\n",
		"early.bin":     "go\x00\n",
		"late.bin":      "go line\n" + strings.Repeat("x", 70000) + "\ngo\x00\n",
		"text.txt":      "go text\n",
	})
	for _, c := range [][]string{{"go"}, {"-u", "go"}, {"-uu", "go"}, {"-uuu", "go"}, {"-u", "-u", "-u", "go"},
		{"--binary", "go"}, {"-c", "-uuu", "go"}, {"-l", "-uuu", "go"}} {
		sameAsRipgrep(t, dir, os.DevNull, c, c)
	}
	for _, c := range [][]string{{"-u"}, {"-uu"}, {"-uuu"}} {
		want, _ := ripgrep(t, dir, os.DevNull, append(c, "--files", "--sort", "path")...)
		got, _, _ := gorep(t, dir, append(c, "--files", "--sort", "path")...)
		if got != want {
			t.Errorf("gorep %s --files:\n%s\nripgrep:\n%s", c[0], got, want)
		}
	}
}

func TestMaxFilesizeEqualsRipgrep(t *testing.T) {
	dir := tree(t, map[string]string{
		"small.txt": "go\n",                                    // 3 bytes
		"ten.txt":   "go go go\n\n",                            // 10 bytes
		"big.txt":   "go\n" + strings.Repeat("x", 2000) + "\n", // past 1K
		"sub/e.txt": "go " + strings.Repeat("y", 1020) + "\n",  // 1024 bytes: 1K exactly
	})
	for _, c := range [][]string{
		{"--max-filesize", "10", "go"}, // a file of exactly the size is kept
		{"--max-filesize", "9", "go"},
		{"--max-filesize", "1K", "go"},
		{"--max-filesize=1M", "go"},
		{"--max-filesize", "2", "go", "big.txt", "sub"}, // a file named is searched whatever its size
	} {
		sameAsRipgrep(t, dir, os.DevNull, c, c)
	}
	if _, stderr, status := gorep(t, dir, "-g", "--max-filesize", "10X", "go"); status != HadErrors || !strings.Contains(stderr, "--max-filesize") {
		t.Errorf("--max-filesize 10X: status %d, stderr %q", status, stderr)
	}
}

func TestHeadingEqualsRipgrep(t *testing.T) {
	dir := tree(t, map[string]string{
		"a": "1\n2 x\n3\n4\n5\n6\n7 x\n8\n",
		"b": "x\ny\n",
		"c": "none\n",
	})
	for _, c := range [][]string{
		{"--heading", "x"},
		{"--heading", "-C1", "x"}, // "--" inside a file, an empty line between files
		{"--heading", "-c", "x"},
		{"--heading", "-l", "x"},
		{"--heading", "-0", "x"},
		{"--heading", "-I", "x"},
		{"--heading", "-N", "-o", "x"},
		{"--heading", "--column", "x"},
		{"--heading", "--vimgrep", "x"}, // no heading
		{"--heading", "--no-heading", "x"},
		{"--no-heading", "--heading", "x"},
	} {
		sameAsRipgrep(t, dir, os.DevNull, c, c)
	}
	// A binary file: its note under its lines' heading, or alone (-I: without its path).
	bin := tree(t, map[string]string{
		"late.bin":  "x line\n" + strings.Repeat("y", 70000) + "\nx\x00\n",
		"early.bin": "x\x00\n",
		"text":      "x\n",
	})
	for _, c := range [][]string{{"--heading", "x"}, {"--heading", "-I", "x"}, {"-I", "x"}, {"--heading", "x", "early.bin", "text"},
		{"-I", "x", "early.bin"}} {
		sameAsRipgrep(t, bin, os.DevNull, c, c)
	}
}

func TestUTF16EqualsRipgrep(t *testing.T) {
	le := func(s string) string { // UTF-16LE with its byte-order mark
		b := []byte{0xFF, 0xFE}
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u), byte(u>>8))
		}
		return string(b)
	}
	be := func(s string) string {
		b := []byte{0xFE, 0xFF}
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u>>8), byte(u))
		}
		return string(b)
	}
	text := "alpha\nnaïve 😀 alpha\nzzz\n"
	dir := tree(t, map[string]string{
		"le.txt":       le(text),
		"be.txt":       be(text),
		"bom8.txt":     "\xef\xbb\xbf" + text,
		"lone.txt":     le("a\n") + "\x00\xd8b\x00\n\x00alpha\x00",                       // a lone surrogate, an odd byte at the end
		"nul.txt":      le("alpha\x00alpha\n"),                                           // a NUL once decoded: binary
		"long.txt":     le(strings.Repeat("some text on a line\n", 20000) + "alpha 😀\n"), // many reads
		"nobom-le.txt": le(text)[2:],                                                     // no mark: NULs, binary
	})
	for _, c := range [][]string{
		{"alpha"},
		{"^alpha"}, // the mark is not text
		{"-c", "alpha"},
		{"-o", "😀|ï"},
		{"--column", "alpha"},
		{"-C1", "naïve"},
		{"-a", "alpha"},
		{"alpha", "le.txt", "nul.txt"},
		{"-v", "x", "lone.txt"},
	} {
		sameAsRipgrep(t, dir, os.DevNull, c, c)
	}
	sameAsRipgrep(t, dir, filepath.Join(dir, "be.txt"), []string{"alpha"}, []string{"alpha"})
	sameJSONAsRipgrep(t, dir, os.DevNull, []string{"alpha|😀"})
}
