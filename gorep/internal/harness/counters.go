package harness

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seven counters of the C harness, in its order: a hardware group (leader cycles)
// and a software group (leader task-clock), on the calling thread, user+kernel first and
// user only after EACCES/EPERM.
var events = []struct {
	name   string
	hw     bool
	typ    uint32
	config uint64
	unit   string
}{
	{"cycles", true, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CPU_CYCLES, "count"},
	{"instructions", true, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_INSTRUCTIONS, "count"},
	{"branches", true, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "count"},
	{"branch-misses", true, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_BRANCH_MISSES, "count"},
	{"task-clock", false, unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_TASK_CLOCK, "ns"},
	{"page-faults", false, unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_PAGE_FAULTS, "count"},
	{"context-switches", false, unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CONTEXT_SWITCHES, "count"},
}

type group struct {
	fd            int
	members       []int // the other events' descriptors (read through the leader's)
	ids           []int
	before, after []uint64
}

type counters struct {
	groups   []*group
	reason   []string // per event: why unavailable ("" when open)
	userOnly []bool
}

func openCounters(noPMU bool, noneBecause string) *counters {
	c := &counters{reason: make([]string, len(events)), userOnly: make([]bool, len(events))}
	for _, hw := range []bool{true, false} {
		var leader *group
		for id, ev := range events {
			if ev.hw != hw {
				continue
			}
			switch {
			case noneBecause != "":
				c.reason[id] = noneBecause
				continue
			case hw && noPMU:
				c.reason[id] = "disabled by --no-pmu"
				continue
			}
			if leader != nil {
				if fd, uo, err := open(id, leader.fd); err == nil {
					leader.ids = append(leader.ids, id)
					leader.members = append(leader.members, fd)
					c.userOnly[id] = uo
					continue
				}
			}
			fd, uo, err := open(id, -1)
			if err != nil {
				c.reason[id] = reason(ev.name, err)
				continue
			}
			g := &group{fd: fd, ids: []int{id}}
			c.groups = append(c.groups, g)
			if leader == nil {
				leader = g
			}
			c.userOnly[id] = uo
		}
	}
	for _, g := range c.groups {
		unix.IoctlSetInt(g.fd, unix.PERF_EVENT_IOC_RESET, unix.PERF_IOC_FLAG_GROUP)
		unix.IoctlSetInt(g.fd, unix.PERF_EVENT_IOC_ENABLE, unix.PERF_IOC_FLAG_GROUP)
	}
	return c
}

func open(id, groupFD int) (int, bool, error) {
	try := func(userOnly bool) (int, error) {
		attr := unix.PerfEventAttr{Type: events[id].typ, Config: events[id].config,
			Read_format: unix.PERF_FORMAT_GROUP | unix.PERF_FORMAT_TOTAL_TIME_ENABLED |
				unix.PERF_FORMAT_TOTAL_TIME_RUNNING}
		attr.Size = uint32(unsafe.Sizeof(attr))
		if userOnly {
			attr.Bits |= unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv
		}
		return unix.PerfEventOpen(&attr, 0, -1, groupFD, unix.PERF_FLAG_FD_CLOEXEC)
	}
	fd, err := try(false)
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
		fd, err = try(true)
		return fd, err == nil, err
	}
	return fd, false, err
}

func reason(name string, err error) string {
	var errno unix.Errno
	errors.As(err, &errno)
	hint := ""
	switch errno {
	case unix.ENOENT, unix.EOPNOTSUPP, unix.ENODEV, unix.EINVAL:
		hint = "; the CPU or the hypervisor does not provide this event (a virtual machine without a virtual PMU?)"
	case unix.EACCES, unix.EPERM:
		par, _ := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
		hint = fmt.Sprintf("; not allowed even for user space only (kernel.perf_event_paranoid=%s, or a seccomp filter)",
			strings.TrimSpace(string(par)))
	case unix.ENOSYS:
		hint = "; the kernel has no perf events"
	}
	msg := errno.Error()
	if len(msg) > 0 {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return fmt.Sprintf("perf_event_open(%s): %s (errno %d)%s", name, msg, int(errno), hint)
}

func (c *counters) read(after bool) {
	for _, g := range c.groups {
		n := 3 + len(g.ids)
		buf := make([]byte, 8*n)
		if got, err := unix.Read(g.fd, buf); err != nil || got != len(buf) {
			panic(fmt.Sprintf("read(perf group of %s): %v", events[g.ids[0]].name, err))
		}
		vals := make([]uint64, n)
		for i := range vals {
			vals[i] = binary.NativeEndian.Uint64(buf[8*i:])
		}
		if after {
			g.after = vals
		} else {
			g.before = vals
		}
	}
}

// delta: each open counter's change over the call, scaled when its group was
// multiplexed; nil for a group never scheduled.
func (c *counters) delta() (map[string]*float64, bool) {
	out := map[string]*float64{}
	scaled := false
	for _, g := range c.groups {
		enabled, running := g.after[1]-g.before[1], g.after[2]-g.before[2]
		for k, id := range g.ids {
			v := float64(g.after[3+k] - g.before[3+k])
			switch {
			case running == 0 && enabled > 0:
				out[events[id].name] = nil
				scaled = true
				continue
			case running < enabled:
				v = v * float64(enabled) / float64(running)
				scaled = true
			}
			out[events[id].name] = &v
		}
	}
	return out, scaled
}

func (c *counters) meta() map[string]any {
	out := map[string]any{}
	for id, ev := range events {
		source := "sw"
		if ev.hw {
			source = "pmu"
		}
		if c.reason[id] != "" {
			out[ev.name] = map[string]any{"available": false, "source": source, "reason": c.reason[id]}
			continue
		}
		out[ev.name] = map[string]any{"available": true, "source": source, "unit": ev.unit,
			"mode": modeOf(c.userOnly[id])}
	}
	return out
}

func (c *counters) mode() any {
	if len(c.groups) == 0 {
		return nil
	}
	for _, uo := range c.userOnly {
		if uo {
			return "user"
		}
	}
	return "user+kernel"
}

func modeOf(userOnly bool) string {
	if userOnly {
		return "user"
	}
	return "user+kernel"
}

func (c *counters) close() {
	for _, g := range c.groups {
		for _, fd := range g.members {
			unix.Close(fd)
		}
		unix.Close(g.fd)
	}
}
