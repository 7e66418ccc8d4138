// Package ignore decides which paths a search skips because an ignore file says so, the
// way ripgrep does: .gitignore files (inside a git repository only), .git/info/exclude
// and the global excludes file (core.excludesFile, else $XDG_CONFIG_HOME/git/ignore),
// and .ignore files (anywhere, above .gitignore in priority). The gitignore pattern
// semantics (negation, directory-only, anchoring, **) are go-git's.
//
// Rules stack up as the walk goes down: a directory's Rules are its parent's plus its
// own files. As in ripgrep, a match in any .ignore file decides before the git files
// are asked, and within each kind a deeper file overrides a shallower one.
package ignore

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Rules are the patterns in force in one directory; immutable, shared by its children.
type Rules struct {
	own    []gitignore.Pattern // from .ignore files, root first
	git    []gitignore.Pattern // global excludes, info/exclude, .gitignore files, root first
	inRepo bool                // a .git was found here or above: .gitignore files apply
	Loaded []string            // the ignore files read for this directory (for --debug)
}

// Match reports whether the path (absolute, split at '/') is ignored.
func (r *Rules) Match(parts []string, isDir bool) bool {
	if m := last(r.own, parts, isDir); m != gitignore.NoMatch {
		return m == gitignore.Exclude
	}
	return last(r.git, parts, isDir) == gitignore.Exclude
}

// last: the verdict of the last pattern that matches.
func last(ps []gitignore.Pattern, parts []string, isDir bool) gitignore.MatchResult {
	for i := len(ps) - 1; i >= 0; i-- {
		if m := ps[i].Match(parts, isDir); m != gitignore.NoMatch {
			return m
		}
	}
	return gitignore.NoMatch
}

// Root builds the rules in force at a search root (an absolute directory): the global
// excludes and, from the filesystem root down to it, every ignore file, as ripgrep
// reads the ignore files of a search path's parents.
func Root(dir string) (*Rules, error) {
	var chain []string
	for d := dir; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	r := &Rules{}
	repo := ""
	for _, d := range chain {
		if exists(filepath.Join(d, ".git")) {
			repo = d
			break
		}
	}
	if repo != "" {
		r.inRepo = true
		r.git = globalExcludes(split(repo))
	}
	for i := len(chain) - 1; i >= 0; i-- {
		d := chain[i]
		inRepo := repo != "" && (d == repo || strings.HasPrefix(d, strings.TrimSuffix(repo, "/")+"/"))
		var err error
		if r, err = r.descend(d, inRepo, d == repo); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Enter returns the rules in force inside dir, a child of the directory of r; hasGit
// says whether dir holds a .git of its own: a nested repository, where the outer one's
// git patterns stop applying and its own begin.
func (r *Rules) Enter(dir string, hasGit bool) (*Rules, error) {
	if hasGit {
		nested := &Rules{own: r.own, git: globalExcludes(split(dir)), inRepo: true}
		return nested.descend(dir, true, true)
	}
	return r.descend(dir, r.inRepo, false)
}

// descend adds dir's own ignore files (and, at a repository's root, .git/info/exclude).
func (r *Rules) descend(dir string, inRepo, repoRoot bool) (*Rules, error) {
	domain := split(dir)
	out := &Rules{own: r.own, git: r.git, inRepo: inRepo}
	if repoRoot {
		if err := out.load(filepath.Join(dir, ".git", "info", "exclude"), domain, &out.git); err != nil {
			return nil, err
		}
	}
	if inRepo {
		if err := out.load(filepath.Join(dir, ".gitignore"), domain, &out.git); err != nil {
			return nil, err
		}
	}
	if err := out.load(filepath.Join(dir, ".ignore"), domain, &out.own); err != nil {
		return nil, err
	}
	return out, nil
}

// load appends a file's patterns to *to, copying the shared slice first.
func (r *Rules) load(path string, domain []string, to *[]gitignore.Pattern) error {
	ps, ok, err := readFile(path, domain)
	if err != nil || !ok {
		return err
	}
	r.Loaded = append(r.Loaded, path)
	*to = append(append(make([]gitignore.Pattern, 0, len(*to)+len(ps)), (*to)...), ps...)
	return nil
}

// readFile parses one ignore file; ok is false when it does not exist. An unreadable
// one is an error (a search that silently ignored it would search what it must not).
func readFile(path string, domain []string) (ps []gitignore.Pattern, ok bool, err error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) || isNotDir(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return Parse(data, domain), true, nil
}

// Parse reads the patterns of an ignore file's text: blank lines and comments skipped,
// trailing spaces dropped unless escaped, a carriage return before '\n' ignored.
func Parse(data []byte, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
			line = line[:len(line)-1]
		}
		if line == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// Split cuts an absolute path into the parts Match takes.
func Split(path string) []string { return split(path) }

func split(path string) []string {
	path = strings.Trim(filepath.ToSlash(path), "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func isNotDir(err error) bool {
	return err != nil && strings.Contains(err.Error(), "not a directory")
}
