package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"

	"cpulab/gorep/internal/fanin"
	"cpulab/gorep/internal/match"
	"cpulab/gorep/internal/output"
	"cpulab/gorep/internal/search"
	"cpulab/gorep/internal/term"
	"cpulab/gorep/internal/walk"
)

// Exit statuses.
const (
	Matched   = 0
	NoMatch   = 1
	HadErrors = 2
)

// FanIn is how the workers' results reach the printer: a select loop with a done
// channel, the cheapest of the three ways in `cpulab run fanin` on the development VM
// (n = 32 producers, GOMAXPROCS 1: ~260 ns per message, against ~2,100 for forwarding
// goroutines with a WaitGroup and ~10,000 for reflect.Select).
const FanIn = fanin.SelectDone

// job is one file to search; index is its place in the walk.
type job struct {
	index int
	path  string
	named bool // on the command line: a NUL does not stop its search (search.Convert)
	stdin bool // standard input, shown as path
}

// stdinPath names standard input in the output, as ripgrep does.
const stdinPath = "<stdin>"

// result is a job's formatted output.
type result struct {
	index   int
	out     []byte
	matched bool
	stats   output.Stats // --json's
}

// Run runs gorep with args (without the program name), writing results to stdout and
// messages to stderr; it returns the exit status.
func Run(args []string, stdout *os.File, stderr io.Writer) int {
	return RunInput(args, os.Stdin, stdout, stderr)
}

// RunInput is Run with standard input read from stdin.
func RunInput(args []string, stdin, stdout *os.File, stderr io.Writer) int {
	o, err := Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "gorep: %v\n", err)
		return HadErrors
	}
	if o.Help {
		PrintUsage(stdout)
		return Matched
	}
	if o.TypeList {
		PrintTypes(stdout, o.FileTypes)
		return Matched
	}
	var m *match.Matcher
	if !o.ListFiles {
		patterns := o.Patterns
		if len(patterns) == 0 {
			patterns = []string{o.Pattern}
		}
		var err error
		m, err = match.CompileAny(patterns, match.Options{IgnoreCase: o.IgnoreCase && !o.CaseSens,
			SmartCase: o.SmartCase && !o.CaseSens, Word: o.Word, Fixed: o.Fixed, LineRegexp: o.LineRegexp})
		if err != nil {
			fmt.Fprintf(stderr, "gorep: %v\n", err)
			return HadErrors
		}
	}
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			fmt.Fprintf(stderr, "gorep: --cpuprofile: %v\n", err)
			return HadErrors
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "gorep: --cpuprofile: %v\n", err)
			return HadErrors
		}
		defer pprof.StopCPUProfile()
	}
	s := &session{o: o, m: m, stdin: stdin, stderr: stderr}
	return s.run(stdout)
}

// session is one search: its options, and the state shared by the walk and the workers.
type session struct {
	o      *Options
	m      *match.Matcher // nil with --files
	stdin  *os.File
	mu     sync.Mutex // stderr and failed
	stderr io.Writer
	failed bool
}

func (s *session) fail(path string, err error) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed = true
	if !s.o.NoMessages {
		fmt.Fprintf(s.stderr, "gorep: %s: %v\n", path, err)
	}
}

func (s *session) debug(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.stderr, "gorep: debug: "+format+"\n", args...)
}

func (s *session) run(stdout *os.File) int {
	o := s.o
	if o.Jobs < runtime.GOMAXPROCS(0) {
		// -j N runs on N threads, as ripgrep's does: with more, the walker, the workers and
		// the printer wake each other on other threads (futex, nanosleep), which cost
		// `-j1` ~10% more CPU time on Go's tree.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(o.Jobs))
	}
	var debug func(string, ...any)
	if o.Debug && s.m != nil {
		debug = s.debug
		if pre := s.m.Prefilter(); pre != nil {
			debug("prefilter: %s, then %s on the lines it finds", pre, s.m.Engine())
		} else {
			debug("prefilter: none (no literal is required); %s scans every buffer", s.m.Engine())
		}
	}
	start := time.Now()
	roots, searchStdin := s.roots()
	format := output.Format{JSON: o.JSON, Column: o.Column, Matcher: s.m,
		Color: term.UseColor(o.Color, stdout, os.Getenv), NoPath: o.NoPath, NoNumber: o.NoNumber,
		Null: o.Null, OnlyMatching: o.OnlyMatching, Vimgrep: o.Vimgrep, Invert: o.Invert,
		Heading: o.Heading || !o.NoHeading && term.IsTerminal(stdout)}
	switch {
	case o.FilesWith:
		format.Mode = output.FilesWithMatches
	case o.Count:
		format.Mode = output.Count
	case o.FilesWithout:
		format.Mode = output.FilesWithoutMatch
	}
	printer := output.NewPrinter(stdout, o.SortPath)
	switch {
	case format.Mode != output.Lines || o.JSON:
	case format.Heading && !o.Vimgrep:
		printer.Separator = []byte("\n")
	case o.After > 0 || o.Before > 0:
		printer.Separator = []byte("--\n")
	}
	var stats output.Stats // --json's summary
	names := !o.NoNames && !o.ListFiles
	var namesMatched bool
	contentMatched := false
	newSearcher := func() *search.Searcher {
		return &search.Searcher{Matcher: s.m, Files: explicitFiles(roots), Debug: debug,
			Invert: o.Invert, MaxCount: o.MaxCount, NoNumbers: !numbersShown(format)}
	}
	if searchStdin { // before the walk, as ripgrep searches its paths in order
		f := format
		r := s.searchOne(newSearcher(), &f, job{path: stdinPath, named: true, stdin: true})
		printer.Lead, contentMatched = r.out, r.matched
		stats.Add(r.stats)
	}
	if !names && !o.ListFiles {
		printer.WithoutNames()
	}
	// Files go to the workers, and their results come back, in batches: one channel
	// operation per file cost gorep a futex or nanosleep per file in Go's tree
	// (strace -c), a third of its system calls, where ripgrep makes none.
	jobs := make(chan []job, 4*o.Jobs)
	var batch []job
	w := &walk.Walker{
		Opts: walk.Options{Hidden: o.Hidden, NoIgnore: o.NoIgnore, MaxDepth: o.MaxDepth,
			Follow: o.Follow, Keep: keepFunc(o.FileTypes, o.Types, o.TypesNot, o.Globs),
			MaxFilesize: o.MaxFilesize, Debug: debug},
		Fail: s.fail,
	}
	next := 0
	w.Visit = func(e walk.Entry) {
		if o.ListFiles {
			if e.Kind == walk.File {
				printer.Files = format.File(printer.Files, e.Path)
				namesMatched = true
			}
			return
		}
		if names && !e.Root {
			base := filepath.Base(e.Path)
			if e.Kind == walk.Dir && s.m.MatchName(base) {
				printer.Dirs = format.Dir(printer.Dirs, e.Path)
				namesMatched = true
			} else if e.Kind == walk.File && s.m.MatchName(base) {
				printer.Files = format.File(printer.Files, e.Path)
				namesMatched = true
			}
		}
		if o.Grep && e.Kind == walk.File {
			batch = append(batch, job{index: next, path: e.Path, named: e.Root})
			next++
			if len(batch) == jobBatch {
				jobs <- batch
				batch = nil
			}
		}
	}
	go func() {
		defer close(printer.Walked)
		defer close(jobs)
		w.Walk(roots)
		if len(batch) > 0 {
			jobs <- batch
		}
	}()
	fanin.Collect(FanIn, o.Jobs, 16, func(_ int, send func([]result)) {
		worker := newSearcher()
		f := format
		for js := range jobs {
			rs := make([]result, len(js))
			for i, j := range js {
				rs[i] = s.searchOne(worker, &f, j)
			}
			send(rs)
		}
	}, func(rs []result) {
		for _, r := range rs {
			contentMatched = contentMatched || r.matched
			stats.Add(r.stats)
			printer.Content(r.index, r.out)
		}
	})
	if o.JSON {
		printer.Tail = output.Summary(nil, stats, time.Since(start))
	}
	if err := printer.Finish(); err != nil && !errors.Is(err, os.ErrClosed) {
		if !isBrokenPipe(err) {
			s.fail("standard output", err)
		}
	}
	switch {
	case s.failed:
		return HadErrors
	case namesMatched || contentMatched:
		return Matched
	}
	return NoMatch
}

// roots: the paths to walk, and whether standard input is searched: where a PATH is
// "-", or (with -g) where no PATH is given and standard input is a file or a pipe, as
// ripgrep decides (a terminal or /dev/null is not searched).
func (s *session) roots() ([]string, bool) {
	if len(s.o.Paths) == 0 {
		if s.o.Grep && !s.o.ListFiles && readable(s.stdin) {
			return nil, true
		}
		return []string{""}, false
	}
	var roots []string
	stdin := false
	for _, p := range s.o.Paths {
		if p == "-" && s.o.Grep && !s.o.ListFiles {
			stdin = true
			continue
		}
		roots = append(roots, p)
	}
	return roots, stdin
}

func readable(f *os.File) bool {
	if f == nil {
		return false
	}
	info, err := f.Stat()
	if err != nil {
		return false
	}
	mode := info.Mode()
	return mode.IsRegular() || mode&(fs.ModeNamedPipe|fs.ModeSocket) != 0
}

// searchOne searches one file and formats what it found.
func (s *session) searchOne(worker *search.Searcher, f *output.Format, j job) result {
	r := result{index: j.index, out: output.Buffer()}
	binary := search.Quit
	switch {
	case s.o.Text:
		binary = search.Text
	case j.named || s.o.Binary:
		binary = search.Convert
	}
	f.StartFile(j.path)
	worker.Context, worker.MaxCount = nil, s.o.MaxCount
	var ctx *output.Context
	matches, full := 0, false // with context, -m is counted here: after-context follows the last match
	if f.Mode == output.Lines && (s.o.After > 0 || s.o.Before > 0) {
		ctx = &output.Context{Before: s.o.Before, After: s.o.After, Format: f, Path: j.path}
		worker.MaxCount = 0
		worker.Context = func(num int, line []byte) bool {
			r.out = ctx.Other(r.out, num, line, pos(worker))
			return !full || !ctx.Done()
		}
	}
	sink := func(num int, line []byte) bool {
		switch {
		case ctx != nil && full:
			r.out = ctx.Late(r.out, num, line, pos(worker))
			return !ctx.Done()
		case ctx != nil:
			r.out = ctx.Match(r.out, num, line, pos(worker))
			matches++
			full = matches == s.o.MaxCount
			return !full || !ctx.Done()
		case f.Mode == output.Lines:
			r.out = f.Line(r.out, j.path, num, line, pos(worker))
		}
		return f.Mode != output.FilesWithMatches && f.Mode != output.FilesWithoutMatch // one line decides
	}
	var outcome search.Outcome
	var err error
	if j.stdin {
		outcome, err = worker.Stream(s.stdin, binary, sink)
	} else {
		outcome, err = worker.File(j.path, !j.named, binary, sink)
	}
	if err != nil {
		s.fail(j.path, err)
	}
	if outcome.NUL >= 0 && worker.Debug != nil {
		worker.Debug("%s: binary (a NUL byte at offset %d)", j.path, outcome.NUL)
	}
	if binary == search.Quit && outcome.NUL >= 0 && outcome.NUL < search.FirstBlock {
		r.out, outcome.Lines = nil, 0
		f.StartFile(j.path) // nothing of it is shown: no JSON records either
	}
	r.out, r.stats = f.EndFile(r.out, outcome.NUL, outcome.Bytes)
	lines := outcome.Lines
	if binary == search.Convert {
		lines += outcome.AfterNUL
	}
	if s.o.MaxCount > 0 {
		lines = min(lines, s.o.MaxCount)
	}
	r.matched = lines > 0
	switch f.Mode {
	case output.Lines:
		full := s.o.MaxCount > 0 && outcome.Lines >= s.o.MaxCount
		if outcome.NUL >= 0 && !full && (binary == search.Convert && outcome.AfterNUL > 0 ||
			binary == search.Quit && outcome.Lines > 0) {
			r.out = f.Binary(r.out, j.path, outcome.NUL, binary == search.Convert)
		}
	case output.FilesWithoutMatch:
		r.matched = !r.matched && err == nil
		if r.matched {
			r.out = f.Matched(r.out, j.path, 0)
		}
	default:
		if r.matched {
			r.out = f.Matched(r.out, j.path, lines)
		}
	}
	return r
}

// pos: where the line the searcher hands on lies, for JSON.
func pos(s *search.Searcher) output.Pos {
	offset, terminated := s.Line()
	return output.Pos{Offset: offset, Terminated: terminated}
}

// explicitFiles: how many files the search reads when every root is a regular file
// (readfile.Choose's count); -1 when a directory is walked.
func explicitFiles(roots []string) int {
	for _, r := range roots {
		info, err := os.Stat(r)
		if r == "" || err != nil || !info.Mode().IsRegular() {
			return -1
		}
	}
	return len(roots)
}

// numbersShown: some output shows a line number (a line, -o, --vimgrep, a JSON record),
// so the searcher must count the lines it passes over; -N, -c, -l and
// --files-without-match show none.
func numbersShown(f output.Format) bool {
	return f.Mode == output.Lines && (!f.NoNumber || f.JSON || f.Vimgrep)
}

// jobBatch: files per batch sent to a worker; small enough that the last batches still
// spread over the workers.
const jobBatch = 16
