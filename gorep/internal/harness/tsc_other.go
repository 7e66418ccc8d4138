//go:build !amd64

package harness

func tscStart() uint64   { return 0 }
func tscStop() uint64    { return 0 }
func tscAvailable() bool { return false }

func tscMeta() map[string]any {
	return map[string]any{"available": false, "reason": "no time-stamp counter on this architecture"}
}
