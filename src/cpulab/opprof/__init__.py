"""Per-VM-instruction profiler: which bytecode instructions an interpreter spends its time in.

`perf report` of an interpreter says "52% in vm_exec_core", which is useless. Joining
perf's sample addresses with the binary's DWARF line table and the interpreter's source,
where each instruction's code is delimited by a marker (`vmcase(OP_ADD)`,
`TARGET(LOAD_FAST)`, `case OP_ADD:`, `DEFINE_INSN`), gives the cost per instruction.

Layers, each calling only downwards:
  perf_record  perf record / perf script (event choice: cycles, else cpu-clock)
  script       perf script text -> samples with file and offset (mmap/fork/exec replay)
  binary       file offset -> link-time address; where the DWARF is
  symbolize    address -> frames (function, file, line), inline frames included
  markers      source markers -> line regions;   labels: DWARF labels -> line regions
  regions      line regions, and the attribution of one sample's frames
  functions    attribution by handler function name (tail-call interpreters)
  aggregate    attributed samples -> ranked shares
  op_profile   the result: the shares, the mapping taken and why, the binaries sampled
  run          the pipeline and the choice of mapping
  render       JSON dict and rich table;   cli: argparse front end
"""

from cpulab.opprof.errors import OpprofError
from cpulab.opprof.op_profile import OpProfile
from cpulab.opprof.run import Options, profile_command, profile_samples

__all__ = ["OpProfile", "OpprofError", "Options", "profile_command", "profile_samples"]
