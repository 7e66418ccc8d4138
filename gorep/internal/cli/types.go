package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// fileTypes are the --type names: globs matched against file names. --type-add adds to
// a copy of them (typeTable), as ripgrep's does to its own.
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

// typeTable: fileTypes with the --type-add specs applied in order. A spec is
// NAME:GLOB (one glob added to NAME, a new type or not), or NAME:include:TYPE,...
// (the globs those types have at that point), as ripgrep reads it.
func typeTable(specs []string) (map[string][]string, error) {
	table := maps.Clone(fileTypes)
	for _, spec := range specs {
		name, glob, ok := strings.Cut(spec, ":")
		if !ok || name == "" || glob == "" {
			return nil, usageErr("--type-add=%s: want NAME:GLOB or NAME:include:TYPE,...", spec)
		}
		if names, ok := strings.CutPrefix(glob, "include:"); ok {
			var globs []string
			for _, n := range strings.Split(names, ",") {
				included, ok := table[n]
				if !ok {
					return nil, usageErr("--type-add=%s: unknown type %s", spec, n)
				}
				globs = append(globs, included...)
			}
			table[name] = append(slices.Clip(table[name]), globs...)
			continue
		}
		table[name] = append(slices.Clip(table[name]), glob)
	}
	return table, nil
}

// PrintTypes writes the --type-list as ripgrep does: each type's globs sorted, once.
func PrintTypes(w io.Writer, table map[string][]string) {
	for _, n := range slices.Sorted(maps.Keys(table)) {
		globs := slices.Compact(slices.Sorted(slices.Values(table[n])))
		fmt.Fprintf(w, "%s: %s\n", n, strings.Join(globs, ", "))
	}
}
