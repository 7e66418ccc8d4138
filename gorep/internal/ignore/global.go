package ignore

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// globalExcludes: the patterns of git's global excludes file, anchored at the repository
// root: core.excludesFile from $XDG_CONFIG_HOME/git/config or ~/.gitconfig (the latter
// wins, as in git), else $XDG_CONFIG_HOME/git/ignore (default ~/.config/git/ignore).
// Unreadable configuration means no global patterns, as in git.
func globalExcludes(repo []string) []gitignore.Pattern {
	path := GlobalExcludesFile(os.Getenv, os.UserHomeDir)
	if path == "" {
		return nil
	}
	ps, _, err := readFile(path, repo)
	if err != nil {
		return nil
	}
	return ps
}

// GlobalExcludesFile is the path of the global excludes file git would use ("" if none).
func GlobalExcludesFile(getenv func(string) string, home func() (string, error)) string {
	h, _ := home()
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && h != "" {
		xdg = filepath.Join(h, ".config")
	}
	file := ""
	for _, cfg := range []string{filepath.Join(xdg, "git", "config"), filepath.Join(h, ".gitconfig")} {
		if f := excludesFileIn(cfg); f != "" {
			file = f
		}
	}
	if file == "" && xdg != "" {
		file = filepath.Join(xdg, "git", "ignore")
	}
	if strings.HasPrefix(file, "~/") && h != "" {
		file = filepath.Join(h, file[2:])
	}
	return file
}

func excludesFileIn(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	raw := config.New()
	if err := config.NewDecoder(f).Decode(raw); err != nil {
		return ""
	}
	return raw.Section("core").Options.Get("excludesfile")
}
