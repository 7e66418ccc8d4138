// Package harness is the Go side of native/harness/cpulab_harness.h: a benchmark program
// says what one iteration of each case is, and the harness calibrates, times, counts,
// pins and prints the same JSON lines (schema 1, native/harness/README.md), so that the
// lab reads a Go program exactly as it reads a C kernel.
//
// Differences from the C harness, both forced by Go: pinning and the counters apply to
// the measuring goroutine's OS thread (runtime.LockOSThread), so work a case hands to
// other goroutines is timed but not counted (such a program passes NoCounters with the
// reason, and every counter is then reported unavailable); and the TSC is read with
// RDTSC/RDTSCP from assembly (tsc_amd64.s).
package harness

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Version is written into the meta line.
const Version = "gorep/internal/harness 1.0"

// Case is one measured thing: Fn does iters iterations, each of UnitsPerIter units.
type Case struct {
	Name         string
	Fn           func(iters uint64) uint64
	UnitsPerIter float64 // 0: 1
	Unit         string  // "": "iter"
	Setup        func()  // before every call of Fn, untimed and uncounted
	Teardown     func()  // after every call
	Iters        uint64  // fixed iteration count (no calibration), 0: calibrate
}

// Harness holds the flags and the output.
type Harness struct {
	argv       []string
	targetMS   float64
	reps       int
	iters      uint64
	only       []string
	cpu        int
	cpuGiven   bool
	noPMU      bool
	list       bool
	params     map[string]string
	read       map[string]any // parameters read, with their effective values
	NoCounters string         // set before Run: why no counter is opened
	// Unlocked, set before Run, leaves the measuring goroutine free to move between OS
	// threads, unpinned: for cases that hand work to other goroutines, where a locked
	// goroutine makes every hand-over a switch between OS threads (~10 us here).
	Unlocked bool
	out      *os.File
	sink     uint64
}

// Init parses the standard flags (see native/harness/README.md); a bad one prints an
// error line and exits 2.
func Init(args []string) *Harness {
	h := &Harness{argv: args, targetMS: 50, reps: 10, params: map[string]string{},
		read: map[string]any{}, out: os.Stdout}
	rest := args[1:]
	value := func(i *int, flag string) string {
		a := rest[*i]
		if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "--") {
			return v
		}
		if *i+1 >= len(rest) || strings.HasPrefix(rest[*i+1], "--") {
			h.UsageError("%s needs a value", flag)
		}
		*i++
		return rest[*i]
	}
	for i := 0; i < len(rest); i++ {
		flag, _, _ := strings.Cut(rest[i], "=")
		switch flag {
		case "--target-ms":
			v, err := strconv.ParseFloat(value(&i, flag), 64)
			if err != nil || !(v > 0 && v <= 1e7) {
				h.UsageError("--target-ms: want a number above 0, at most 1e7")
			}
			h.targetMS = v
		case "--reps":
			v, err := strconv.Atoi(value(&i, flag))
			if err != nil || v < 1 || v > 1e9 {
				h.UsageError("--reps: want 1 .. 1e9")
			}
			h.reps = v
		case "--iters":
			v, err := strconv.ParseUint(value(&i, flag), 10, 64)
			if err != nil || v < 1 {
				h.UsageError("--iters: want at least 1")
			}
			h.iters = v
		case "--case":
			h.only = append(h.only, value(&i, flag))
		case "--cpu":
			v, err := strconv.Atoi(value(&i, flag))
			if err != nil || v < -1 || v > 1023 {
				h.UsageError("--cpu: want 0 .. 1023, or -1 not to pin")
			}
			h.cpu, h.cpuGiven = v, true
		case "--no-pmu":
			h.noPMU = true
		case "--list":
			h.list = true
		case "--param":
			k, v, ok := strings.Cut(value(&i, flag), "=")
			if !ok || k == "" {
				h.UsageError("--param: want KEY=VALUE")
			}
			if _, dup := h.params[k]; dup {
				h.UsageError("--param %s given twice", k)
			}
			h.params[k] = v
		case "--help":
			fmt.Println("usage: " + args[0] + " [--reps R] [--target-ms MS] [--iters N] [--case NAME]... " +
				"[--cpu K] [--no-pmu] [--param K=V]... [--list]\n(native/harness/README.md describes them)")
			os.Exit(0)
		default:
			h.UsageError("unknown flag %s", rest[i])
		}
	}
	return h
}

// ParamInt reads --param name=N (or def).
func (h *Harness) ParamInt(name string, def int64) int64 {
	v := def
	if s, ok := h.params[name]; ok {
		n, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			h.UsageError("--param %s=%s: not an integer", name, s)
		}
		v = n
	}
	h.read[name] = v
	return v
}

// ParamUint reads --param name=N (or def) as an unsigned 64-bit integer.
func (h *Harness) ParamUint(name string, def uint64) uint64 {
	v := def
	if s, ok := h.params[name]; ok {
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			h.UsageError("--param %s=%s: not an unsigned integer", name, s)
		}
		v = n
	}
	h.read[name] = v
	return v
}

// ParamString reads --param name=S (or def).
func (h *Harness) ParamString(name, def string) string {
	v := def
	if s, ok := h.params[name]; ok {
		v = s
	}
	h.read[name] = v
	return v
}

func (h *Harness) line(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	h.out.Write(append(data, '\n'))
}

// Extra prints a record of the program's own type (a kernel's extra line).
func (h *Harness) Extra(fields map[string]any) { h.line(fields) }

func (h *Harness) errorLine(status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	h.line(map[string]any{"type": "error", "message": msg})
	fmt.Fprintf(os.Stderr, "%s: %s\n", h.argv[0], msg)
	os.Exit(status)
}

// UsageError: the command line is at fault; exit 2.
func (h *Harness) UsageError(format string, args ...any) { h.errorLine(2, format, args...) }

// Fail: a failure at run time (a wrong result); exit 1.
func (h *Harness) Fail(format string, args ...any) { h.errorLine(1, format, args...) }

type sample struct {
	ns, tsc  uint64
	counters map[string]*float64
	scaled   bool
}

func (h *Harness) call(c *Case, iters uint64, ctr *counters) sample {
	if c.Setup != nil {
		c.Setup()
	}
	ctr.read(false)
	tsc := tscAvailable()
	var k0, k1 uint64
	t0 := time.Now()
	if tsc {
		k0 = tscStart()
	}
	r := c.Fn(iters)
	if tsc {
		k1 = tscStop()
	}
	ns := time.Since(t0).Nanoseconds()
	ctr.read(true)
	h.sink += r
	if c.Teardown != nil {
		c.Teardown()
	}
	s := sample{ns: uint64(ns), tsc: k1 - k0}
	s.counters, s.scaled = ctr.delta()
	return s
}

func (h *Harness) calibrate(c *Case, ctr *counters) (uint64, string) {
	h.call(c, 1, ctr) // warm-up: first touch of code and data
	if h.iters > 0 {
		return h.iters, "--iters"
	}
	if c.Iters > 0 {
		return c.Iters, "case"
	}
	target := h.targetMS * 1e6
	var it uint64 = 1
	var s sample
	for {
		s = h.call(c, it, ctr)
		if float64(s.ns) >= target/8 {
			break
		}
		if it >= 1<<62 {
			h.Fail("case %s: %d iterations take only %d ns: was the loop optimised away?", c.Name, it, s.ns)
		}
		it *= 2
	}
	n := float64(it) * target / math.Max(float64(s.ns), 1)
	return uint64(math.Max(1, math.Min(n+0.5, 1<<62))), "calibration"
}

// Run lists, or calibrates and measures, the selected cases; it returns the exit status.
func (h *Harness) Run(cases []Case) int {
	var sel []*Case
	for _, name := range h.only {
		found := false
		for i := range cases {
			if cases[i].Name == name {
				sel, found = append(sel, &cases[i]), true
			}
		}
		if !found {
			names := make([]string, len(cases))
			for i, c := range cases {
				names[i] = c.Name
			}
			h.UsageError("unknown case '%s' (cases: %s)", name, strings.Join(names, ", "))
		}
	}
	if len(h.only) == 0 {
		for i := range cases {
			sel = append(sel, &cases[i])
		}
	}
	for k := range h.params {
		if _, ok := h.read[k]; !ok {
			h.UsageError("unknown --param %s", k)
		}
	}
	if h.list {
		for _, c := range sel {
			h.line(map[string]any{"type": "case", "name": c.Name, "unit": unit(c), "units_per_iter": units(c)})
		}
		return 0
	}
	pinning := map[string]any{"pinned": false, "reason": "goroutines move between OS threads (Unlocked)"}
	if !h.Unlocked {
		runtime.LockOSThread()
		pinning = h.pin()
	}
	ctr := openCounters(h.noPMU, h.NoCounters)
	defer ctr.close()
	iters := make([]uint64, len(sel))
	from := make([]string, len(sel))
	for i, c := range sel {
		iters[i], from[i] = h.calibrate(c, ctr)
	}
	h.meta(sel, iters, from, pinning, ctr)
	for rep := range h.reps {
		for i, c := range sel {
			s := h.call(c, iters[i], ctr)
			rec := map[string]any{"type": "rep", "case": c.Name, "rep": rep, "iters": iters[i],
				"units": float64(iters[i]) * units(c), "unit": unit(c), "ns": s.ns,
				"scaled": s.scaled, "counters": s.counters}
			if tscAvailable() {
				rec["tsc"] = s.tsc
			}
			h.line(rec)
		}
	}
	return 0
}

func unit(c *Case) string {
	if c.Unit == "" {
		return "iter"
	}
	return c.Unit
}

func units(c *Case) float64 {
	if c.UnitsPerIter == 0 {
		return 1
	}
	return c.UnitsPerIter
}

func (h *Harness) pin() map[string]any {
	cpu, chosen := h.cpu, "--cpu"
	if !h.cpuGiven {
		var err error
		cpu, err = currentCPU()
		chosen = "the CPU it started on"
		if err != nil {
			return map[string]any{"pinned": false, "reason": "getcpu: " + err.Error()}
		}
	}
	if cpu < 0 {
		return map[string]any{"pinned": false, "reason": "--cpu -1"}
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		if h.cpuGiven {
			h.UsageError("--cpu %d: sched_setaffinity: %v", cpu, err)
		}
		return map[string]any{"pinned": false, "reason": "sched_setaffinity: " + err.Error()}
	}
	return map[string]any{"pinned": true, "cpu": cpu, "chosen_by": chosen,
		"scope": "the measuring goroutine's OS thread"}
}

func currentCPU() (int, error) {
	var cpu, node uint32
	_, _, errno := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)),
		uintptr(unsafe.Pointer(&node)), 0)
	if errno != 0 {
		return 0, errno
	}
	return int(cpu), nil
}

func (h *Harness) meta(sel []*Case, iters []uint64, from []string, pinning map[string]any, ctr *counters) {
	var itersFlag any
	if h.iters > 0 {
		itersFlag = h.iters
	}
	cases := make([]map[string]any, len(sel))
	for i, c := range sel {
		cases[i] = map[string]any{"name": c.Name, "unit": unit(c), "units_per_iter": units(c),
			"iters": iters[i], "iters_from": from[i]}
	}
	h.line(map[string]any{
		"type": "meta", "schema": 1, "harness": Version, "argv": h.argv,
		"target_ms": h.targetMS, "reps": h.reps, "iters": itersFlag, "pinning": pinning,
		"clock": map[string]any{"id": "CLOCK_MONOTONIC", "resolution_ns": 1},
		"tsc":   tscMeta(), "mode": ctr.mode(), "counters": ctr.meta(),
		"params": h.read, "cases": cases,
		"go": map[string]any{"version": runtime.Version(), "gomaxprocs": runtime.GOMAXPROCS(0)},
	})
}
