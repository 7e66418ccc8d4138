package main

// Golden tests against tools nobody here wrote, on trees nobody here wrote: the Go
// toolchain's own source, $(go env GOROOT)/src, the `gorep` experiment's C tree (Linux's
// sources, where GOREP_C_TREE names it) and the system's C headers (/usr/include,
// where present); the C trees for contents only. Contents must equal ripgrep's
// (`rg -n --no-heading --sort path`, the same ignore handling: hidden entries skipped,
// .ignore read, .gitignore not, since the tree is no git repository); names must equal
// what `find -regex` finds. Missing peers skip the tests, unless GOREP_REQUIRE_PEERS=1
// (make test sets it), where they fail.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"cpulab/gorep/internal/cli"
)

func peer(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("GOREP_REQUIRE_PEERS") == "1" {
			t.Fatalf("%s is not installed (make setup installs it): %v", name, err)
		}
		t.Skipf("%s is not installed", name)
	}
	return path
}

func goSrc(t *testing.T) string {
	t.Helper()
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(src, "fmt", "print.go")); err != nil {
		t.Fatalf("the Go tree is not at %s: %v", src, err)
	}
	return src
}

// runGorep runs the command line in dir and returns its standard output.
func runGorep(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var stderr bytes.Buffer
	stdin, err := os.Open(os.DevNull) // not searched, whatever the test's own input is
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	status := cli.RunInput(args, stdin, out, &stderr)
	if stderr.Len() > 0 {
		t.Logf("gorep %v: stderr: %s", args, stderr.String())
	}
	data, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(data), status
}

func runPeer(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	out, err := peerOutput(dir, argv...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// peerOutput runs argv in dir and returns its standard output; exit status 1 (no match)
// is no error. Safe to call off the test's goroutine.
func peerOutput(dir string, argv ...string) (string, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			return "", fmt.Errorf("%v: %v: %s", argv, err, stderr.String())
		}
	}
	return stdout.String(), nil
}

// contentCases: the flags both tools take, then the pattern.
var contentCases = [][]string{
	{"func main"},                      // literal
	{`errors\.New\(`},                  // literal with escapes
	{"net/http"},                       // literal with a slash
	{"Mutex|RWMutex|WaitGroup"},        // alternation of literals
	{`(Reader|Writer)At\b`},            // alternation inside a concatenation
	{"^package "},                      // anchor at the start
	{`^import \($`},                    // both anchors
	{`\}$`},                            // anchor at the end
	{`[A-Z][a-z]+Error`},               // classes around a literal
	{`[0-9]{8,}`},                      // a class only
	{`0x[0-9a-fA-F]{16}`},              // hex constants
	{`^\s*//\s*TODO`},                  // spaces and an anchor
	{"-i", "unicode"},                  // case-insensitive literal
	{"-i", `copyright \d{4} the go`},   // case-insensitive with a class
	{"-i", "kelvin"},                   // folds to the Kelvin sign K (U+212A)
	{`\p{Greek}+`},                     // a Unicode script
	{`[\p{Han}]+`},                     // another
	{"日本語"},                            // a non-ASCII literal
	{"è|é|ü"},                          // non-ASCII alternation
	{"-i", "ΚΌΣΜΕ"},                    // case-insensitive Greek
	{`\x{2603}|\x{1F600}`},             // code points by number
	{"-w", "err"},                      // whole words
	{"-F", "[]byte("},                  // a fixed string full of metacharacters
	{"-F", "-i", "HTTP/1.1"},           // fixed and case-insensitive
	{`goto [a-zA-Z]+`},                 // a keyword and a word
	{"[A-Z]+_SUSPEND"},                 // a literal suffix whose first byte is common
	{"-i", "mutex|waitgroup|errgroup"}, // a folded alternation (Teddy)
	{"-w", "for"},                      // -w of one literal, judged by its neighbours
	{`\w+ing\s`},                       // Unicode classes around a literal (the DFA)
	{`[A-Z]{2}[0-9]{3}`},               // no literal at all (the DFA scans)
	{"-c", "func main"},                // counts: no line numbers to keep
}

func TestContentsEqualRipgrep(t *testing.T) {
	rg := peer(t, "rg")
	trees := []string{goSrc(t)}
	if c := os.Getenv("GOREP_C_TREE"); c != "" { // the experiment's C tree (Linux's sources)
		if _, err := os.Stat(filepath.Join(c, "Makefile")); err != nil {
			t.Fatalf("GOREP_C_TREE: %v", err)
		}
		trees = append(trees, c)
	}
	if _, err := os.Stat("/usr/include/stdio.h"); err == nil {
		trees = append(trees, "/usr/include")
	}
	for _, src := range trees {
		contentsEqualRipgrep(t, rg, src, src == trees[0])
	}
}

// contentsEqualRipgrep: every content case in src; mustMatch: each finds something.
func contentsEqualRipgrep(t *testing.T, rg, src string, mustMatch bool) {
	for _, c := range contentCases {
		name := src + ": " + strings.Join(c, " ")
		flags, pattern := c[:len(c)-1], c[len(c)-1]
		// ripgrep in its own process while gorep runs here: --sort path keeps each to
		// one thread, and the Linux tree makes this the longest of the tests
		type result struct {
			out string
			err error
		}
		peerDone := make(chan result, 1)
		go func() {
			out, err := peerOutput(src, append(append([]string{rg, "-n", "--no-heading", "--sort", "path", "--color", "never"}, flags...), "--", pattern)...)
			peerDone <- result{out, err}
		}()
		got, status := runGorep(t, src, append(append([]string{"-g", "--no-names", "--sort", "path"}, flags...), "--", pattern)...)
		ripgrep := <-peerDone
		if ripgrep.err != nil {
			t.Fatal(ripgrep.err)
		}
		want := ripgrep.out
		if want == "" && mustMatch {
			t.Errorf("%s: ripgrep finds nothing; choose a pattern that matches", name)
		}
		if got != want {
			t.Errorf("%s: gorep and ripgrep differ (%d vs %d lines):\n%s", name,
				strings.Count(got, "\n"), strings.Count(want, "\n"), firstDifference(got, want))
		}
		if (status == cli.Matched) != (want != "") {
			t.Errorf("%s: exit status %d", name, status)
		}
	}
}

func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n gorep:   %q\n ripgrep: %q", i+1, a, b)
		}
	}
	return ""
}

// nameCases: a gorep pattern (matched against base names), and the find -regex (POSIX
// extended, matched against the whole path) that finds the same names.
var nameCases = []struct {
	flags   []string
	pattern string
	find    string
	findI   bool
}{
	{nil, "^test", `.*/test[^/]*`, false},
	{nil, `_test\.go$`, `.*/[^/]*_test\.go`, false},
	{nil, "gopher", `.*/[^/]*gopher[^/]*`, false},
	{nil, `^[a-z]+[0-9]+$`, `.*/[a-z]+[0-9]+`, false},
	{nil, `\.(s|S)$`, `.*/[^/]*\.(s|S)`, false},
	{nil, "^internal$", `.*/internal`, false},
	{[]string{"-i"}, "^readme", `.*/readme[^/]*`, true},
	{nil, `^\.`, `.*/\.[^/]*`, false},
	{[]string{"-F"}, "go.mod", `.*/[^/]*go\.mod[^/]*`, false},
	{nil, "^[A-Z]+$", `.*/[A-Z]+`, false},
}

func TestNamesEqualFind(t *testing.T) {
	find := peer(t, "find")
	src := goSrc(t)
	for _, c := range nameCases {
		args := append(append([]string{"--hidden", "--no-ignore"}, c.flags...), "--", c.pattern, ".")
		got, _ := runGorep(t, src, args...)
		var gotDirs, gotFiles []string
		for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if line == "" {
				continue
			}
			if d, ok := strings.CutSuffix(line, "/"); ok {
				gotDirs = append(gotDirs, d)
			} else {
				gotFiles = append(gotFiles, line)
			}
		}
		op := "-regex"
		if c.findI {
			op = "-iregex"
		}
		found := 0
		for _, kind := range []struct {
			typ string
			got []string
		}{{"d", gotDirs}, {"f", gotFiles}} {
			out := runPeer(t, src, find, ".", "-mindepth", "1", "-regextype", "posix-extended",
				"-type", kind.typ, op, c.find)
			want := strings.Fields(out)
			sort.Strings(want)
			sort.Strings(kind.got)
			found += len(want)
			if strings.Join(kind.got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s (-type %s): gorep %d, find %d:\n%s", c.pattern, kind.typ,
					len(kind.got), len(want), firstDifference(strings.Join(kind.got, "\n"), strings.Join(want, "\n")))
			}
		}
		if found == 0 {
			t.Errorf("%s: find finds nothing; choose a pattern that matches", c.pattern)
		}
	}
}
