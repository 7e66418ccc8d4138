package cli

import (
	"errors"
	"syscall"
)

// isBrokenPipe: the reader of our output went away (gorep ... | head): not an error.
func isBrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
