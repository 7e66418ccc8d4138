package cli

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// keepFunc builds the walk's filter from --type, --type-not and --glob: a file is kept
// when it matches one of the types (if any), none of the types not wanted, and one of
// the include globs (if any), and no exclude glob (!GLOB); an excluded directory is not
// entered. Globs have gitignore semantics relative to the search root, as ripgrep's -g;
// a type's globs hold no '/', so they match a file's name. Called by the walk's
// goroutine only.
func keepFunc(table map[string][]string, types, typesNot, globs []string) func(root, parts []string, isDir bool) bool {
	if len(types) == 0 && len(typesNot) == 0 && len(globs) == 0 {
		return nil
	}
	var typeGlobs, notGlobs []string
	for _, t := range types {
		typeGlobs = append(typeGlobs, table[t]...)
	}
	for _, t := range typesNot {
		notGlobs = append(notGlobs, table[t]...)
	}
	var include, exclude []string
	for _, g := range globs {
		if rest, ok := strings.CutPrefix(g, "!"); ok {
			exclude = append(exclude, rest)
		} else {
			include = append(include, g)
		}
	}
	parsed := map[string][][]gitignore.Pattern{} // per root: types, include, exclude, types not
	matches := func(root []string, which int, parts []string, isDir bool) bool {
		key := strings.Join(root, "/")
		sets, ok := parsed[key]
		if !ok {
			for _, globs := range [][]string{typeGlobs, include, exclude, notGlobs} {
				var ps []gitignore.Pattern
				for _, g := range globs {
					ps = append(ps, gitignore.ParsePattern(g, root))
				}
				sets = append(sets, ps)
			}
			parsed[key] = sets
		}
		for _, p := range sets[which] {
			if p.Match(parts, isDir) == gitignore.Exclude {
				return true
			}
		}
		return false
	}
	const byType, included, excluded, notByType = 0, 1, 2, 3
	return func(root, parts []string, isDir bool) bool {
		if len(exclude) > 0 && matches(root, excluded, parts, isDir) {
			return false
		}
		if isDir {
			return true
		}
		if len(typeGlobs) > 0 && !matches(root, byType, parts, false) {
			return false
		}
		if len(notGlobs) > 0 && matches(root, notByType, parts, false) {
			return false
		}
		return len(include) == 0 || matches(root, included, parts, false)
	}
}
