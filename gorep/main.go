// gorep finds directory names, file names and (with -g) file contents that match one
// regular expression, recursively: the tool of seed row S9, rebuilt. `gorep --help`
// lists the options; README.md describes them and how gorep compares with ripgrep.
package main

import (
	"os"

	"cpulab/gorep/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr))
}
