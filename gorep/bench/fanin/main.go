// Command fanin times receiving from n producer goroutines until all of them are done,
// the three ways of package fanin (S10): a select loop with a done channel, one
// forwarding goroutine per channel with a WaitGroup, and reflect.Select. One iteration
// is one whole fan-in of --param n=N producers sending --param messages=M values each
// (unbuffered channels: every message is one hand-over); unit "message".
//
// --param procs=P sets GOMAXPROCS. Counters are per OS thread and the goroutines run on
// up to P threads, so none is opened (each is reported unavailable with that reason),
// and the measuring goroutine is not locked to a thread (harness.Unlocked).
package main

import (
	"os"
	"runtime"

	"cpulab/gorep/internal/fanin"
	"cpulab/gorep/internal/harness"
)

func main() {
	h := harness.Init(os.Args)
	n := h.ParamInt("n", 8)
	messages := h.ParamInt("messages", 10000)
	procs := h.ParamInt("procs", int64(runtime.NumCPU()))
	if n < 1 || n > 1<<16 {
		h.UsageError("--param n=%d: want 1 .. 65536 producers", n)
	}
	if messages < 1 {
		h.UsageError("--param messages=%d: want at least 1", messages)
	}
	if procs < 1 || procs > 1024 {
		h.UsageError("--param procs=%d: want 1 .. 1024", procs)
	}
	runtime.GOMAXPROCS(int(procs))
	h.NoCounters = "perf counters count one OS thread; the fan-in runs on up to GOMAXPROCS threads"
	h.Unlocked = true
	total := uint64(n * messages)
	var cases []harness.Case
	for _, way := range fanin.Ways {
		cases = append(cases, harness.Case{
			Name: string(way), Unit: "message", UnitsPerIter: float64(total),
			Fn: func(iters uint64) uint64 {
				var sum uint64
				for range iters {
					var got uint64
					fanin.Collect(way, int(n), 0, func(i int, send func(uint64)) {
						for k := range messages {
							send(uint64(i) + uint64(k))
						}
					}, func(v uint64) { sum += v; got++ })
					if got != total {
						h.Fail("%s: received %d of %d messages", way, got, total)
					}
				}
				return sum
			},
		})
	}
	os.Exit(h.Run(cases))
}
