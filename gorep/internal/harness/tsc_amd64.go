package harness

import (
	"os"
	"strings"
)

func tscStart() uint64
func tscStop() uint64

// cpuFlags: the flags line of /proc/cpuinfo.
func cpuFlags() map[string]bool {
	data, _ := os.ReadFile("/proc/cpuinfo")
	flags := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			for _, f := range strings.Fields(v) {
				flags[f] = true
			}
			break
		}
	}
	return flags
}

var flags = cpuFlags()

var tscOK = flags["rdtscp"]

// RDTSCP is required here (the stop read uses it); every x86-64 CPU of the last 15
// years has it.
func tscAvailable() bool { return tscOK }

func tscMeta() map[string]any {
	if !tscAvailable() {
		return map[string]any{"available": false, "reason": "the CPU has no rdtscp (/proc/cpuinfo)"}
	}
	return map[string]any{"available": true, "source": "tsc", "rdtscp": true,
		"invariant": flags["constant_tsc"] && flags["nonstop_tsc"]}
}
