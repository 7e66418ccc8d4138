// Package walk lists what a search visits under its roots, in a fixed order (each
// directory's entries sorted by name, depth first): directories and regular files,
// without hidden entries, .git, ignored paths or filtered files, as ripgrep walks.
//
// Symbolic links are not followed unless Follow is set; then a link back to a directory
// being walked (a loop) is reported as an error and not entered. A directory that cannot
// be read is reported and the walk goes on.
package walk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"cpulab/gorep/internal/ignore"
)

// Kind of an entry.
type Kind int

const (
	Dir Kind = iota
	File
)

// Entry is one directory or regular file found.
type Entry struct {
	Path  string // as shown: the root as given, joined with the names below it
	Kind  Kind
	Depth int   // 0 for a root
	Size  int64 // files only, -1 when unknown
	Root  bool  // named on the command line
}

// Options of a walk.
type Options struct {
	Hidden   bool // visit names starting with '.' (never .git)
	NoIgnore bool // do not read ignore files
	MaxDepth int  // < 0: no limit; 0: the roots only
	Follow   bool // follow symbolic links
	// Keep decides whether a file (isDir false) or directory is visited, by its path
	// (absolute, split at '/') relative to its root's parts; nil: everything. Globs and
	// --type filters.
	Keep func(root, parts []string, isDir bool) bool
	// MaxFilesize skips the files below a root larger than this many bytes (< 0: no
	// limit); a root named is visited whatever its size, as in ripgrep.
	MaxFilesize int64
	Debug       func(format string, args ...any)
}

// Walker walks; Visit receives every entry, Fail every error (path, cause).
type Walker struct {
	Opts  Options
	Visit func(Entry)
	Fail  func(path string, err error)
}

// Walk visits every root in order. A root that is a file is visited as a file (even if
// hidden or ignored: it was named), a directory is walked. The root "" is the current
// directory, its paths shown without a "./" prefix (as when no path is given).
func (w *Walker) Walk(roots []string) {
	for _, root := range roots {
		w.root(root)
	}
}

type frame struct {
	show  string   // path as shown
	abs   []string // absolute path, split
	rules *ignore.Rules
	depth int
	seen  []fileID // the directories from the root down to here (-L loop check)
	root  []string
}

type fileID struct{ dev, ino uint64 }

func (w *Walker) root(root string) {
	at := root
	if at == "" {
		at = "."
	}
	info, err := os.Stat(at) // a named root is followed even if it is a link
	if err != nil {
		w.Fail(root, err)
		return
	}
	if !info.IsDir() {
		if info.Mode().IsRegular() {
			w.Visit(Entry{Path: root, Kind: File, Size: info.Size(), Root: true})
		} else {
			w.Fail(root, errors.New("not a regular file or directory"))
		}
		return
	}
	abs, err := filepath.Abs(at)
	if err != nil {
		w.Fail(root, err)
		return
	}
	var rules *ignore.Rules
	if !w.Opts.NoIgnore {
		if rules, err = ignore.Root(abs); err != nil {
			w.Fail(root, err)
			return
		}
		w.loaded(rules)
	}
	parts := ignore.Split(abs)
	w.Visit(Entry{Path: root, Kind: Dir, Root: true})
	w.dir(frame{show: root, abs: parts, rules: rules, seen: []fileID{idOf(info)}, root: parts})
}

func (w *Walker) dir(f frame) {
	if w.Opts.MaxDepth >= 0 && f.depth >= w.Opts.MaxDepth {
		return
	}
	dirPath := "/" + strings.Join(f.abs, "/")
	entries, err := os.ReadDir(dirPath)
	if err != nil {
		w.Fail(f.show, err)
		return
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" || (!w.Opts.Hidden && strings.HasPrefix(name, ".")) {
			continue
		}
		show := join(f.show, name)
		abs := append(f.abs[:len(f.abs):len(f.abs)], name)
		typ := e.Type()
		var linked fs.FileInfo
		if typ&fs.ModeSymlink != 0 {
			if !w.Opts.Follow {
				continue
			}
			if linked, err = os.Stat(dirPath + "/" + name); err != nil {
				w.Fail(show, err)
				continue
			}
			typ = linked.Mode().Type()
		}
		isDir := typ.IsDir()
		if !isDir && !typ.IsRegular() {
			continue // sockets, fifos, devices: never searched
		}
		if f.rules != nil && f.rules.Match(abs, isDir) {
			continue
		}
		if w.Opts.Keep != nil && !w.Opts.Keep(f.root, abs, isDir) {
			continue
		}
		if !isDir {
			size := int64(-1)
			if linked != nil {
				size = linked.Size()
			}
			if w.Opts.MaxFilesize >= 0 {
				if size < 0 {
					info, err := e.Info()
					if err != nil {
						w.Fail(show, err)
						continue
					}
					size = info.Size()
				}
				if size > w.Opts.MaxFilesize {
					continue
				}
			}
			w.Visit(Entry{Path: show, Kind: File, Depth: f.depth + 1, Size: size})
			continue
		}
		w.subdir(f, show, abs, linked)
	}
}

func (w *Walker) subdir(f frame, show string, abs []string, linked fs.FileInfo) {
	info := linked
	if info == nil {
		var err error
		if info, err = os.Lstat("/" + strings.Join(abs, "/")); err != nil {
			w.Fail(show, err)
			return
		}
	}
	id := idOf(info)
	if w.Opts.Follow {
		for i, anc := range f.seen {
			if anc == id {
				w.Fail(show, fmt.Errorf("symbolic link loop: it is the directory %s above it",
					ancestorPath(f, i)))
				return
			}
		}
	}
	w.Visit(Entry{Path: show, Kind: Dir, Depth: f.depth + 1})
	rules := f.rules
	if rules != nil {
		_, gitErr := os.Lstat("/" + strings.Join(abs, "/") + "/.git")
		var err error
		if rules, err = rules.Enter("/"+strings.Join(abs, "/"), gitErr == nil); err != nil {
			w.Fail(show, err)
			return
		}
		w.loaded(rules)
	}
	seen := append(f.seen[:len(f.seen):len(f.seen)], id)
	w.dir(frame{show: show, abs: abs, rules: rules, depth: f.depth + 1, seen: seen, root: f.root})
}

// ancestorPath names the i-th directory of the frame's chain (0: the root).
func ancestorPath(f frame, i int) string {
	up := len(f.seen) - 1 - i
	p := f.show
	for ; up > 0; up-- {
		p = filepath.Dir(p)
	}
	return p
}

func (w *Walker) loaded(r *ignore.Rules) {
	if w.Opts.Debug != nil {
		for _, p := range r.Loaded {
			w.Opts.Debug("ignore file %s", p)
		}
	}
}

func idOf(info fs.FileInfo) fileID {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return fileID{uint64(st.Dev), st.Ino}
	}
	return fileID{}
}

// join as ripgrep shows paths: "." named explicitly gives "./x", a root ending in '/'
// gets no second one.
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}
