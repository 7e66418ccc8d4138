package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes files (path -> content) under a fresh folder and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, "/") {
			continue
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// gorep runs the command line in dir; returns stdout, stderr and the exit status.
// Standard input is /dev/null, which is not searched.
func gorep(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return gorepInput(t, dir, os.DevNull, args...)
}

// gorepInput runs the command line in dir with standard input read from the file stdin.
func gorepInput(t *testing.T, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	in, err := os.Open(stdin)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var stderr bytes.Buffer
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	status := RunInput(args, in, out, &stderr)
	data, _ := os.ReadFile(out.Name())
	return string(data), stderr.String(), status
}

var sample = map[string]string{
	"alpha/go.go":       "package alpha\nfunc Go() {}\n",
	"alpha/readme.md":   "no match here\n",
	"beta/gopher/x.txt": "a gopher\nGOPHER\n",
	"beta/other.txt":    "nothing\n",
	"gamma.go":          "package gamma // go\n",
	".hidden/go.txt":    "go hidden\n",
	"bin/data.bin":      "go\x00go\n",
}

func TestOutputGroupedByKind(t *testing.T) {
	dir := tree(t, sample)
	out, stderr, status := gorep(t, dir, "-g", "--sort", "path", "go")
	if status != Matched || stderr != "" {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
	want := "beta/gopher/\n" + "alpha/go.go\ngamma.go\n" +
		"beta/gopher/x.txt:1:a gopher\n" + "gamma.go:1:package gamma // go\n"
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
}

func TestExitStatus(t *testing.T) {
	dir := tree(t, sample)
	if _, _, s := gorep(t, dir, "zzz-nothing"); s != NoMatch {
		t.Errorf("nothing matched: status %d, want 1", s)
	}
	if _, stderr, s := gorep(t, dir, "("); s != HadErrors || !strings.Contains(stderr, `pattern "("`) {
		t.Errorf("bad pattern: status %d, stderr %q", s, stderr)
	}
	out, stderr, s := gorep(t, dir, "-g", "gopher", "beta", "missing-dir")
	if s != HadErrors || !strings.Contains(stderr, "missing-dir") || !strings.Contains(out, "beta/gopher/x.txt:1:a gopher") {
		t.Errorf("a missing path beside a match: status %d (want 2), stderr %q, out %q", s, stderr, out)
	}
	if _, stderr, s := gorep(t, dir, "--color=sometimes", "x"); s != HadErrors || !strings.Contains(stderr, "--color=sometimes") {
		t.Errorf("bad flag value: status %d, stderr %q", s, stderr)
	}
	if _, stderr, s := gorep(t, dir, "-l", "x"); s != HadErrors || !strings.Contains(stderr, "add -g") {
		t.Errorf("-l without -g: status %d, stderr %q", s, stderr)
	}
}

func TestHiddenBinaryAndGit(t *testing.T) {
	files := map[string]string{".git/config": "go\n", "go.txt": "go\n"}
	for k, v := range sample {
		files[k] = v
	}
	dir := tree(t, files)
	out, _, _ := gorep(t, dir, "-g", "--no-names", "--sort", "path", "go")
	if strings.Contains(out, ".hidden") || strings.Contains(out, "data.bin") || strings.Contains(out, ".git") {
		t.Fatalf("hidden, binary or .git searched:\n%s", out)
	}
	out, _, _ = gorep(t, dir, "-g", "--no-names", "--hidden", "--sort", "path", "go")
	if !strings.Contains(out, ".hidden/go.txt:1:go hidden") || strings.Contains(out, ".git/") {
		t.Fatalf("--hidden: want .hidden searched and .git not:\n%s", out)
	}
}

func TestIgnoreFiles(t *testing.T) {
	dir := tree(t, map[string]string{
		".gitignore":   "*.log\n!keep.log\n",
		".ignore":      "skipped/\n",
		"a.log":        "go\n",
		"keep.log":     "go\n",
		"skipped/x.go": "go\n",
		"sub/.ignore":  "b.txt\n",
		"sub/b.txt":    "go\n",
		"sub/c.txt":    "go\n",
	})
	out, _, _ := gorep(t, dir, "-g", "--no-names", "--sort", "path", "go")
	// not a git repository: .gitignore does not apply, .ignore does
	if want := "a.log:1:go\nkeep.log:1:go\nsub/c.txt:1:go\n"; out != want {
		t.Fatalf("outside a repository:\n%s\nwant:\n%s", out, want)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, _ = gorep(t, dir, "-g", "--no-names", "--sort", "path", "go")
	if want := "keep.log:1:go\nsub/c.txt:1:go\n"; out != want {
		t.Fatalf("inside a repository:\n%s\nwant:\n%s", out, want)
	}
	out, _, _ = gorep(t, filepath.Join(dir, "sub"), "-g", "--no-names", "--sort", "path", "go")
	if want := "c.txt:1:go\n"; out != want {
		t.Fatalf("from a subfolder (the parents' files apply):\n%s\nwant:\n%s", out, want)
	}
	out, _, _ = gorep(t, dir, "-g", "--no-names", "--no-ignore", "--sort", "path", "go")
	if strings.Count(out, "\n") != 5 {
		t.Fatalf("--no-ignore: want all 5 files:\n%s", out)
	}
}

func TestGlobalExcludes(t *testing.T) {
	dir := tree(t, map[string]string{"x.tmp": "go\n", "y.txt": "go\n", ".git/HEAD": ""})
	cfg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cfg, "git", "ignore"), []byte("*.tmp\n"), 0o644)
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", t.TempDir())
	out, _, _ := gorep(t, dir, "-g", "--no-names", "go")
	if out != "y.txt:1:go\n" {
		t.Fatalf("global excludes not applied:\n%s", out)
	}
}

func TestSymlinkLoop(t *testing.T) {
	dir := tree(t, map[string]string{"a/b/f.txt": "go\n"})
	if err := os.Symlink("../..", filepath.Join(dir, "a", "b", "up")); err != nil {
		t.Fatal(err)
	}
	out, _, status := gorep(t, dir, "-g", "--no-names", "go")
	if status != Matched || out != "a/b/f.txt:1:go\n" {
		t.Fatalf("without -L a link is not followed: status %d\n%s", status, out)
	}
	out, stderr, status := gorep(t, dir, "-L", "-g", "--no-names", "go")
	if status != HadErrors || !strings.Contains(stderr, "a/b/up: symbolic link loop") || out != "a/b/f.txt:1:go\n" {
		t.Fatalf("-L: status %d, stderr %q, out %q", status, stderr, out)
	}
}

func TestSortedOutputIsDeterministic(t *testing.T) {
	files := map[string]string{}
	for i := range 200 {
		files[filepath.Join("d"+string(rune('a'+i%7)), "f"+strings.Repeat("x", i%13)+string(rune('a'+i%26))+".txt")] =
			strings.Repeat("line go\n", 1+i%5)
	}
	dir := tree(t, files)
	one, _, _ := gorep(t, dir, "-g", "--sort", "path", "-j", "1", "go")
	for range 3 {
		many, _, _ := gorep(t, dir, "-g", "--sort", "path", "-j", "8", "go")
		if many != one {
			t.Fatal("--sort path with 8 workers differs from 1 worker")
		}
	}
}

func TestJSON(t *testing.T) {
	// ripgrep's records, contents only: the directory named gopher has none.
	dir := tree(t, sample)
	out, _, _ := gorep(t, dir, "--json", "--sort", "path", "gopher")
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var o struct {
			Type string
			Data struct {
				LineNumber int `json:"line_number"`
				Submatches []struct{ Start int }
			}
		}
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("not JSON: %q: %v", line, err)
		}
		kinds = append(kinds, o.Type)
		if o.Type == "match" && (o.Data.LineNumber != 1 || len(o.Data.Submatches) != 1 || o.Data.Submatches[0].Start != 2) {
			t.Fatalf("match record: %s", line)
		}
	}
	if strings.Join(kinds, ",") != "begin,match,end,summary" {
		t.Fatalf("kinds %v", kinds)
	}
}

func TestContentFlags(t *testing.T) {
	dir := tree(t, sample)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-g", "--no-names", "-i", "gopher"}, "beta/gopher/x.txt:1:a gopher\nbeta/gopher/x.txt:2:GOPHER\n"},
		{[]string{"-g", "--no-names", "-c", "-i", "gopher"}, "beta/gopher/x.txt:2\n"},
		{[]string{"-g", "--no-names", "-l", "-i", "gopher"}, "beta/gopher/x.txt\n"},
		{[]string{"-g", "--no-names", "--column", "gopher"}, "beta/gopher/x.txt:1:3:a gopher\n"},
		{[]string{"-g", "--no-names", "-w", "go"}, "gamma.go:1:package gamma // go\n"},
		{[]string{"-g", "--no-names", "-F", "Go()"}, "alpha/go.go:2:func Go() {}\n"},
		{[]string{"-g", "--no-names", "--type", "md", "match"}, "alpha/readme.md:1:no match here\n"},
		{[]string{"-g", "--no-names", "--glob", "*.txt", "-i", "gopher"}, "beta/gopher/x.txt:1:a gopher\nbeta/gopher/x.txt:2:GOPHER\n"},
		{[]string{"-g", "--no-names", "--glob", "!beta", "-i", "gopher"}, ""},
		{[]string{"--max-depth", "1", "go"}, "gamma.go\n"},
		{[]string{"--max-depth", "2", "go"}, "beta/gopher/\nalpha/go.go\ngamma.go\n"},
	}
	for _, c := range cases {
		out, stderr, _ := gorep(t, dir, append(c.args, "--sort", "path")...)
		if out != c.want || stderr != "" {
			t.Errorf("gorep %v:\n%s(stderr %q)\nwant:\n%s", c.args, out, stderr, c.want)
		}
	}
}

func TestColor(t *testing.T) {
	dir := tree(t, sample)
	out, _, _ := gorep(t, dir, "-g", "--no-names", "--color=always", "gopher")
	if !strings.Contains(out, "\x1b[1;31mgopher\x1b[0m") {
		t.Fatalf("--color=always: no coloured match in %q", out)
	}
	out, _, _ = gorep(t, dir, "-g", "--no-names", "gopher") // a file is not a terminal
	if strings.Contains(out, "\x1b[") {
		t.Fatalf("auto coloured a file: %q", out)
	}
}

func TestDebugNamesTheChoices(t *testing.T) {
	dir := tree(t, sample)
	_, stderr, _ := gorep(t, dir, "-g", "--debug", "gopher", "beta/gopher/x.txt")
	for _, want := range []string{`prefilter: literal "gopher"`, "beta/gopher/x.txt: 16 bytes, read (one of 1 files)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("--debug lacks %q:\n%s", want, stderr)
		}
	}
}
