// Package cli is gorep's command line: the flags (pflag, GNU style), and Run, which
// wires the walk, the workers, the fan-in and the printer together and returns the exit
// status: 0 when something matched, 1 when nothing did, 2 on any error (even when
// something matched, as grep does).
package cli

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
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

	Patterns     []string // -e, repeatable: then every argument is a PATH
	Invert       bool     // -v
	OnlyMatching bool     // -o
	MaxCount     int      // -m; 0: no limit
	LineRegexp   bool     // -x
	CaseSens     bool     // -s
	SmartCase    bool     // -S
	Text         bool     // -a
	Null         bool     // -0
	ListFiles    bool     // --files
	FilesWithout bool     // --files-without-match
	WithPath     bool     // -H (the default; kept for ripgrep's spelling)
	NoPath       bool     // -I
	LineNumber   bool     // -n (the default)
	NoNumber     bool     // -N
	NoMessages   bool     // --no-messages
	Vimgrep      bool     // --vimgrep
	After        int      // -A
	Before       int      // -B
	Around       int      // -C: both, where -A or -B does not say

	TypesNot     []string            // -T: not files of these types
	TypeAdd      []string            // --type-add NAME:GLOB or NAME:include:TYPE,...
	FileTypes    map[string][]string // the --type table: fileTypes and --type-add's
	Unrestricted int                 // -u, -uu, -uuu
	Binary       bool                // --binary: a walked binary file is searched as a named one
	MaxFilesize  int64               // --max-filesize; < 0: no limit
	Heading      bool                // --heading (the default on a terminal)
	NoHeading    bool                // --no-heading
}

const usage = `gorep: find directory names, file names and (with -g) file contents that match
one regular expression (Go's RE2 syntax), recursively.

usage: gorep [options] PATTERN [PATH...]
       gorep [options] -e PATTERN... [PATH...]
       gorep --files [PATH...]

Without PATH, the current directory is searched; with -g, standard input is searched
instead when it is a file or a pipe (and wherever PATH is -). Output is grouped by
kind: directories (with a trailing /), then files, then matching lines as
path:line:text (on a terminal, under a heading per file: --no-heading). Hidden
entries, .git and whatever .gitignore (in a git repository), .ignore and git's global
excludes name are skipped. A file starting with a UTF-16 byte-order mark is decoded.
--json writes ripgrep's JSON Lines records (contents only).

A NUL byte makes a file binary, as in ripgrep: a file met in the walk prints nothing
when the first NUL lies in its first 64 KiB, else the lines before the NUL's line and
a WARNING; a file named on the command line (or standard input) prints its lines up
to there, then "binary file matches" when a later line matches. -a: all is text.

Classes follow ripgrep's Unicode defaults: \w, \d and \s are Unicode, and no class or
. matches a byte that is not UTF-8; -w wants a non-word character or the line's edge
on both sides. Unlike ripgrep: \b and \B in a pattern are ASCII (RE2 has no Unicode
word boundary), and a line number is always printed (-N drops it), as is the path
(-I drops it).

Exit status: 0 something matched, 1 nothing did, 2 an error occurred.

options:
`

func flagSet(o *Options, color, sortBy, maxFilesize *string) *pflag.FlagSet {
	fs := pflag.NewFlagSet("gorep", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.BoolVarP(&o.Grep, "grep", "g", false, "search file contents too (lines as path:line:text)")
	fs.BoolVar(&o.NoNames, "no-names", false, "do not match directory and file names (with -g: contents only, like grep)")
	fs.BoolVarP(&o.FilesWith, "files-with-matches", "l", false, "contents: print only the path of each file with a matching line")
	fs.BoolVarP(&o.Count, "count", "c", false, "contents: print path:count of matching lines per file")
	fs.StringArrayVarP(&o.Patterns, "regexp", "e", nil, "a `PATTERN` (repeatable: a line matching any matches); every argument is then a PATH")
	fs.BoolVarP(&o.IgnoreCase, "ignore-case", "i", false, "case-insensitive (Unicode simple folding)")
	fs.BoolVarP(&o.CaseSens, "case-sensitive", "s", false, "case-sensitive (the default; the last of -s, -i and -S wins)")
	fs.BoolVarP(&o.SmartCase, "smart-case", "S", false, "case-insensitive unless the pattern holds an upper-case letter")
	fs.BoolVarP(&o.Word, "word-regexp", "w", false, "match whole words: a non-word character or the line's edge on both sides")
	fs.BoolVarP(&o.LineRegexp, "line-regexp", "x", false, "match whole lines (and whole names; the last of -x and -w wins)")
	fs.BoolVarP(&o.Fixed, "fixed-strings", "F", false, "PATTERN is a literal string")
	fs.BoolVarP(&o.Invert, "invert-match", "v", false, "contents: print the lines that do not match")
	fs.IntVarP(&o.After, "after-context", "A", -1, "contents: print `NUM` lines after each match")
	fs.IntVarP(&o.Before, "before-context", "B", -1, "contents: print `NUM` lines before each match")
	fs.IntVarP(&o.Around, "context", "C", 0, "contents: print `NUM` lines before and after each match")
	fs.BoolVarP(&o.OnlyMatching, "only-matching", "o", false, "contents: print each match alone (path:line:match)")
	fs.IntVarP(&o.MaxCount, "max-count", "m", 0, "contents: at most `NUM` matching lines per file")
	fs.BoolVarP(&o.Text, "text", "a", false, "contents: search binary files as text")
	fs.BoolVar(&o.FilesWithout, "files-without-match", false, "contents: print only the path of each file without a matching line")
	fs.BoolVar(&o.Column, "column", false, "contents: print the column of the first match (path:line:column:text)")
	fs.BoolVar(&o.Vimgrep, "vimgrep", false, "contents: each match as path:line:column:text")
	fs.BoolVarP(&o.WithPath, "with-filename", "H", false, "print the path before each line (the default)")
	fs.BoolVarP(&o.NoPath, "no-filename", "I", false, "contents: no path before each line or count")
	fs.BoolVarP(&o.LineNumber, "line-number", "n", false, "print line numbers (the default)")
	fs.BoolVarP(&o.NoNumber, "no-line-number", "N", false, "contents: no line numbers")
	fs.BoolVarP(&o.Null, "null", "0", false, "a NUL byte after each path instead of ':' or a line break")
	fs.BoolVar(&o.ListFiles, "files", false, "print each file that would be searched, and search nothing (no PATTERN)")
	fs.BoolVar(&o.NoMessages, "no-messages", false, "do not print errors about files and folders (the exit status still says 2)")
	fs.StringSliceVarP(&o.Types, "type", "t", nil, "only files of this `TYPE` (repeatable; see --type-list)")
	fs.StringSliceVarP(&o.TypesNot, "type-not", "T", nil, "no files of this `TYPE` (repeatable)")
	fs.StringArrayVar(&o.TypeAdd, "type-add", nil, "add to a type: `SPEC` is NAME:GLOB, or NAME:include:TYPE,... for other types' globs (repeatable)")
	fs.StringArrayVar(&o.Globs, "glob", nil, "only paths matching this gitignore-style glob; !GLOB excludes (repeatable)")
	fs.BoolVar(&o.Hidden, "hidden", false, "search hidden files and directories (never .git)")
	fs.BoolVar(&o.NoIgnore, "no-ignore", false, "do not read .gitignore, .ignore or git's excludes")
	fs.CountVarP(&o.Unrestricted, "unrestricted", "u", "-u: --no-ignore; -uu: and --hidden; -uuu: and --binary")
	fs.BoolVar(&o.Binary, "binary", false, "contents: search binary files met in the walk as if named (up to the NUL's line, then a note)")
	fs.StringVar(maxFilesize, "max-filesize", "", "skip files met in the walk larger than `NUM`[K|M|G] bytes")
	fs.BoolVarP(&o.Follow, "follow", "L", false, "follow symbolic links (a link to an ancestor is reported, not followed)")
	fs.IntVar(&o.MaxDepth, "max-depth", -1, "descend at most N directories below each PATH (0: the paths only)")
	fs.BoolVar(&o.Heading, "heading", false, "contents: each file's path on a line above its lines (the default on a terminal)")
	fs.BoolVar(&o.NoHeading, "no-heading", false, "contents: the path on every line (the default in a pipe or file)")
	fs.BoolVar(&o.JSON, "json", false, "contents only (-g --no-names), as ripgrep's JSON Lines: begin, match, context, end, summary")
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
	var color, sortBy, maxFilesize string
	fs := flagSet(o, &color, &sortBy, &maxFilesize)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return nil, usageErr("%v", err)
	}
	var err error
	if o.FileTypes, err = typeTable(o.TypeAdd); err != nil {
		return nil, err
	}
	if o.Help || o.TypeList {
		return o, nil
	}
	if o.JSON {
		if o.FilesWith || o.Count || o.FilesWithout || o.ListFiles {
			return nil, usageErr("--json writes lines: it excludes -l, -c, --files-without-match and --files")
		}
		o.Grep, o.NoNames = true, true // ripgrep's records hold no name matches
	}
	rest := fs.Args()
	switch {
	case o.ListFiles || len(o.Patterns) > 0:
		o.Paths = rest
	case len(rest) == 0:
		return nil, usageErr("no PATTERN given (gorep --help)")
	default:
		o.Pattern, o.Paths = rest[0], rest[1:]
	}
	// ripgrep lets the last of these win: -x or -w, and -s, -i or -S.
	if o.LineRegexp && o.Word {
		last := lastGiven(fs, args, "line-regexp", "word-regexp")
		o.LineRegexp, o.Word = last == "line-regexp", last == "word-regexp"
	}
	if last := lastGiven(fs, args, "case-sensitive", "ignore-case", "smart-case"); last != "" {
		o.CaseSens, o.IgnoreCase, o.SmartCase = last == "case-sensitive", last == "ignore-case", last == "smart-case"
	}
	if o.Heading && o.NoHeading {
		last := lastGiven(fs, args, "heading", "no-heading")
		o.Heading, o.NoHeading = last == "heading", last == "no-heading"
	}
	if o.Unrestricted >= 1 {
		o.NoIgnore = true
	}
	if o.Unrestricted >= 2 {
		o.Hidden = true
	}
	if o.Unrestricted >= 3 {
		o.Binary = true
	}
	o.MaxFilesize = -1
	if maxFilesize != "" {
		if o.MaxFilesize, err = parseSize(maxFilesize); err != nil {
			return nil, usageErr("--max-filesize=%s: %v", maxFilesize, err)
		}
	}
	if o.WithPath && o.NoPath {
		return nil, usageErr("-H and -I exclude each other")
	}
	if o.LineNumber && o.NoNumber {
		return nil, usageErr("-n and -N exclude each other")
	}
	if o.After < 0 {
		o.After = o.Around
	}
	if o.Before < 0 {
		o.Before = o.Around
	}
	if o.After < 0 || o.Before < 0 {
		return nil, usageErr("-A, -B and -C want at least 0")
	}
	if o.MaxCount < 0 {
		return nil, usageErr("--max-count=%d: want at least 0", o.MaxCount)
	}
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
	summaries := 0
	for _, on := range []bool{o.FilesWith, o.Count, o.FilesWithout} {
		if on {
			summaries++
		}
	}
	if summaries > 1 {
		return nil, usageErr("-l, -c and --files-without-match exclude each other")
	}
	contents := o.FilesWith || o.Count || o.Column || o.FilesWithout || o.Invert || o.OnlyMatching ||
		o.MaxCount > 0 || o.After > 0 || o.Before > 0 || o.Text || o.Vimgrep || o.NoPath || o.NoNumber ||
		o.Binary && o.Unrestricted < 3
	if contents && !o.Grep && !o.ListFiles {
		return nil, usageErr("-l, -c, -v, -o, -m, -A, -B, -C, -a, -I, -N, --binary, --column, --vimgrep and --files-without-match are about contents: add -g")
	}
	if o.NoNames && !o.Grep {
		return nil, usageErr("--no-names without -g leaves nothing to search")
	}
	for _, t := range o.Types {
		if _, ok := o.FileTypes[t]; !ok {
			return nil, usageErr("--type=%s: unknown type (gorep --type-list)", t)
		}
	}
	for _, t := range o.TypesNot {
		if _, ok := o.FileTypes[t]; !ok {
			return nil, usageErr("--type-not=%s: unknown type (gorep --type-list)", t)
		}
	}
	return o, nil
}

// parseSize reads ripgrep's size: a number of bytes, or of K, M or G (powers of 1024).
func parseSize(s string) (int64, error) {
	shift := 0
	switch {
	case strings.HasSuffix(s, "K"):
		shift = 10
	case strings.HasSuffix(s, "M"):
		shift = 20
	case strings.HasSuffix(s, "G"):
		shift = 30
	}
	if shift > 0 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseUint(s, 10, 63-shift)
	if err != nil {
		return 0, errors.New("want a number of bytes, optionally followed by K, M or G")
	}
	return int64(n) << shift, nil
}

// lastGiven: of the flags named (long names), the one given last in args; "" if none.
func lastGiven(fs *pflag.FlagSet, args []string, names ...string) string {
	last := ""
	given := func(f *pflag.Flag) {
		for _, n := range names {
			if f != nil && f.Name == n {
				last = n
			}
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return last
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			f := fs.Lookup(name)
			given(f)
			if f != nil && f.Value.Type() != "bool" && !hasValue {
				i++ // its value
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				f := fs.ShorthandLookup(a[j : j+1])
				given(f)
				if f != nil && f.Value.Type() != "bool" {
					if j == len(a)-1 {
						i++ // its value is the next argument
					}
					break // the rest of the cluster is its value
				}
			}
		}
	}
	return last
}

// PrintUsage writes the help text.
func PrintUsage(w io.Writer) {
	var o Options
	var color, sortBy, maxFilesize string
	fmt.Fprint(w, usage)
	fmt.Fprint(w, flagSet(&o, &color, &sortBy, &maxFilesize).FlagUsages())
}
