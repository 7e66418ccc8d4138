// Package cli is gorep's command line: the flags (pflag, GNU style), and Run, which
// wires the walk, the workers, the fan-in and the printer together and returns the exit
// status: 0 when something matched, 1 when nothing did, 2 on any error (even when
// something matched, as grep does).
package cli

import (
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"cpulab/gorep/internal/term"
)

// Options is the parsed command line.
type Options struct {
	Pattern    string
	Paths      []string
	Grep       bool // -g: search file contents too
	NoNames    bool // --no-names: contents only
	FilesWith  bool // -l
	Count      bool // -c
	IgnoreCase bool
	Word       bool
	Fixed      bool
	Column     bool
	Types      []string
	Globs      []string
	Hidden     bool
	NoIgnore   bool
	Follow     bool
	MaxDepth   int
	JSON       bool
	SortPath   bool
	Jobs       int
	Color      term.Mode
	Debug      bool
	CPUProfile string
	Help       bool
	TypeList   bool
}

const usage = `gorep: find directory names, file names and (with -g) file contents that match
one regular expression (Go's RE2 syntax), recursively.

usage: gorep [options] PATTERN [PATH...]

Without PATH, the current directory is searched. Output is grouped by kind:
directories (with a trailing /), then files, then matching lines as path:line:text.
Hidden entries, .git, binary files (a NUL byte in the first 64 KiB) and whatever
.gitignore (in a git repository), .ignore and git's global excludes name are skipped.

Exit status: 0 something matched, 1 nothing did, 2 an error occurred.

options:
`

func flagSet(o *Options, color *string, sortBy *string) *pflag.FlagSet {
	fs := pflag.NewFlagSet("gorep", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.BoolVarP(&o.Grep, "grep", "g", false, "search file contents too (lines as path:line:text)")
	fs.BoolVar(&o.NoNames, "no-names", false, "do not match directory and file names (with -g: contents only, like grep)")
	fs.BoolVarP(&o.FilesWith, "files-with-matches", "l", false, "contents: print only the path of each file with a matching line")
	fs.BoolVarP(&o.Count, "count", "c", false, "contents: print path:count of matching lines per file")
	fs.BoolVarP(&o.IgnoreCase, "ignore-case", "i", false, "case-insensitive (Unicode simple folding)")
	fs.BoolVarP(&o.Word, "word-regexp", "w", false, "match whole words only (\\b at both ends)")
	fs.BoolVarP(&o.Fixed, "fixed-strings", "F", false, "PATTERN is a literal string")
	fs.BoolVar(&o.Column, "column", false, "contents: print the column of the first match (path:line:column:text)")
	fs.StringSliceVarP(&o.Types, "type", "t", nil, "only files of this type (repeatable; see --type-list)")
	fs.StringArrayVar(&o.Globs, "glob", nil, "only paths matching this gitignore-style glob; !GLOB excludes (repeatable)")
	fs.BoolVar(&o.Hidden, "hidden", false, "search hidden files and directories (never .git)")
	fs.BoolVar(&o.NoIgnore, "no-ignore", false, "do not read .gitignore, .ignore or git's excludes")
	fs.BoolVarP(&o.Follow, "follow", "L", false, "follow symbolic links (a link to an ancestor is reported, not followed)")
	fs.IntVar(&o.MaxDepth, "max-depth", -1, "descend at most N directories below each PATH (0: the paths only)")
	fs.BoolVar(&o.JSON, "json", false, "one JSON object per match (type dir, file, match, count or file-with-matches)")
	fs.StringVar(sortBy, "sort", "", "sort the output: path (deterministic, still parallel)")
	fs.IntVarP(&o.Jobs, "threads", "j", runtime.NumCPU(), "worker goroutines searching files")
	fs.StringVar(color, "color", "auto", "colour: auto (only on a terminal, unless NO_COLOR is set), always, never")
	fs.BoolVar(&o.Debug, "debug", false, "log decisions to standard error: reading strategy, prefilter, ignore files")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the search to FILE (go tool pprof reads it)")
	fs.BoolVar(&o.TypeList, "type-list", false, "list the file types of --type and exit")
	fs.BoolVarP(&o.Help, "help", "h", false, "this help")
	return fs
}

// UsageError is a command line gorep cannot run; the message names the flag or value.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// Parse reads the arguments (without the program name).
func Parse(args []string) (*Options, error) {
	o := &Options{}
	var color, sortBy string
	fs := flagSet(o, &color, &sortBy)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return nil, usageErr("%v", err)
	}
	if o.Help || o.TypeList {
		return o, nil
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return nil, usageErr("no PATTERN given (gorep --help)")
	}
	o.Pattern, o.Paths = rest[0], rest[1:]
	var err error
	if o.Color, err = term.ParseMode(color); err != nil {
		return nil, usageErr("%v", err)
	}
	switch sortBy {
	case "":
	case "path":
		o.SortPath = true
	default:
		return nil, usageErr("--sort=%s: the only order is path", sortBy)
	}
	if o.Jobs < 1 {
		return nil, usageErr("--threads=%d: want at least 1", o.Jobs)
	}
	if o.FilesWith && o.Count {
		return nil, usageErr("-l and -c exclude each other")
	}
	if (o.FilesWith || o.Count || o.Column) && !o.Grep {
		return nil, usageErr("-l, -c and --column are about contents: add -g")
	}
	if o.NoNames && !o.Grep {
		return nil, usageErr("--no-names without -g leaves nothing to search")
	}
	for _, t := range o.Types {
		if _, ok := fileTypes[t]; !ok {
			return nil, usageErr("--type=%s: unknown type (gorep --type-list)", t)
		}
	}
	return o, nil
}

// PrintUsage writes the help text.
func PrintUsage(w io.Writer) {
	var o Options
	var color, sortBy string
	fmt.Fprint(w, usage)
	fmt.Fprint(w, flagSet(&o, &color, &sortBy).FlagUsages())
}

// fileTypes are the --type names: globs matched against file names.
var fileTypes = map[string][]string{
	"asm":      {"*.s", "*.S", "*.asm"},
	"c":        {"*.c", "*.h"},
	"cpp":      {"*.cc", "*.cpp", "*.cxx", "*.hh", "*.hpp", "*.hxx", "*.h"},
	"go":       {"*.go"},
	"html":     {"*.html", "*.htm"},
	"java":     {"*.java"},
	"js":       {"*.js", "*.mjs", "*.cjs"},
	"json":     {"*.json"},
	"make":     {"Makefile", "makefile", "GNUmakefile", "*.mk"},
	"markdown": {"*.md", "*.markdown"},
	"md":       {"*.md", "*.markdown"},
	"py":       {"*.py", "*.pyi"},
	"rust":     {"*.rs"},
	"sh":       {"*.sh", "*.bash"},
	"toml":     {"*.toml"},
	"ts":       {"*.ts", "*.tsx"},
	"txt":      {"*.txt"},
	"yaml":     {"*.yaml", "*.yml"},
}

// PrintTypes writes the --type-list.
func PrintTypes(w io.Writer) {
	names := make([]string, 0, len(fileTypes))
	for n := range fileTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "%s: %s\n", n, strings.Join(fileTypes[n], ", "))
	}
}
