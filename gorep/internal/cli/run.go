package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sync"

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
}

// result is a job's formatted output.
type result struct {
	index   int
	out     []byte
	matched bool
}

// Run runs gorep with args (without the program name), writing results to stdout and
// messages to stderr; it returns the exit status.
func Run(args []string, stdout *os.File, stderr io.Writer) int {
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
		PrintTypes(stdout)
		return Matched
	}
	m, err := match.Compile(o.Pattern, match.Options{IgnoreCase: o.IgnoreCase, Word: o.Word, Fixed: o.Fixed})
	if err != nil {
		fmt.Fprintf(stderr, "gorep: %v\n", err)
		return HadErrors
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
	s := &session{o: o, m: m, stderr: stderr}
	return s.run(stdout)
}

// session is one search: its options, and the state shared by the walk and the workers.
type session struct {
	o      *Options
	m      *match.Matcher
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
	fmt.Fprintf(s.stderr, "gorep: %s: %v\n", path, err)
}

func (s *session) debug(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.stderr, "gorep: debug: "+format+"\n", args...)
}

func (s *session) run(stdout *os.File) int {
	o := s.o
	var debug func(string, ...any)
	if o.Debug {
		debug = s.debug
		if pre := s.m.Prefilter(); pre != nil {
			debug("prefilter: %s, then Go's regexp on the lines it finds", pre)
		} else {
			debug("prefilter: none (no literal is required); Go's regexp scans every buffer")
		}
	}
	roots := o.Paths
	if len(roots) == 0 {
		roots = []string{""}
	}
	format := output.Format{JSON: o.JSON, Column: o.Column, Matcher: s.m,
		Color: term.UseColor(o.Color, stdout, os.Getenv)}
	switch {
	case o.FilesWith:
		format.Mode = output.FilesWithMatches
	case o.Count:
		format.Mode = output.Count
	}
	printer := output.NewPrinter(stdout, o.SortPath)
	names := !o.NoNames
	var namesMatched bool
	jobs := make(chan job, 4*o.Jobs)
	w := &walk.Walker{
		Opts: walk.Options{Hidden: o.Hidden, NoIgnore: o.NoIgnore, MaxDepth: o.MaxDepth,
			Follow: o.Follow, Keep: keepFunc(o.Types, o.Globs), Debug: debug},
		Fail: s.fail,
	}
	next := 0
	w.Visit = func(e walk.Entry) {
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
			jobs <- job{next, e.Path}
			next++
		}
	}
	go func() {
		defer close(printer.Walked)
		defer close(jobs)
		w.Walk(roots)
	}()
	files := explicitFiles(roots)
	contentMatched := false
	fanin.Collect(FanIn, o.Jobs, 16, func(_ int, send func(result)) {
		worker := &search.Searcher{Matcher: s.m, Files: files, Debug: debug}
		f := format
		for j := range jobs {
			send(s.searchOne(worker, &f, j))
		}
	}, func(r result) {
		contentMatched = contentMatched || r.matched
		printer.Content(r.index, r.out)
	})
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

// searchOne searches one file and formats what it found.
func (s *session) searchOne(worker *search.Searcher, f *output.Format, j job) result {
	r := result{index: j.index}
	outcome, err := worker.File(j.path, func(num int, line []byte) bool {
		if f.Mode == output.Lines {
			r.out = f.Line(r.out, j.path, num, line)
		}
		return f.Mode != output.FilesWithMatches // one line decides -l
	})
	if err != nil {
		s.fail(j.path, err)
	}
	if outcome.Binary && worker.Debug != nil {
		worker.Debug("%s: binary (a NUL byte in its first block), skipped", j.path)
	}
	r.matched = outcome.Lines > 0
	if r.matched && f.Mode != output.Lines {
		r.out = f.Matched(r.out, j.path, outcome.Lines)
	}
	return r
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
