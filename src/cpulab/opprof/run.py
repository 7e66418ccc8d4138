"""The pipeline of `cpulab opprof`: record -> samples -> frames -> instructions -> shares.

How samples are mapped (the mode) is decided in one place, `_choose_mapping`, and the
profile says which mode it took and why:
- `--markers PATTERN`: marker regions from those patterns, in the sources DWARF names;
- `--by-function`: by the handler function's name (tail-call interpreters);
- `--by-label`: by DWARF labels;
- otherwise: the default markers if the sources are found and hold any, else DWARF
  labels if an interpreter function has enough, else handler function names.
Marker and label modes need DWARF; without it in the binaries that took the samples,
the profile stops with that error rather than guessing.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from cpulab.opprof import flow, labels, markers
from cpulab.opprof.aggregate import Item, aggregate
from cpulab.opprof.binary import Binary
from cpulab.opprof.dwarf_cache import DwarfCache, cache_key
from cpulab.opprof.errors import OpprofError
from cpulab.opprof.functions import DEFAULT_HANDLER_PATTERN, FunctionMapper
from cpulab.opprof.op_profile import BinaryInfo, Mapping, OpProfile
from cpulab.opprof.perf_record import DEFAULT_FREQ, Event, record, script, script_callchains
from cpulab.opprof.regions import DISPATCH, Attribution, RegionIndex, attribute_insn, attribute_rest
from cpulab.opprof.script import Sample, parse, parse_callchains
from cpulab.opprof.symbolize import DebugInfo, Frame


@dataclass
class Options:
    mode: str = "auto"  # auto | markers | function | label
    patterns: list[str] = field(default_factory=list)  # --markers
    function_pattern: str = DEFAULT_HANDLER_PATTERN
    source_dirs: list[Path] = field(default_factory=list)
    freq: int = DEFAULT_FREQ
    event: str = "cycles"
    perf: str = "perf"
    flow: bool = True  # refine line attribution by the machine code's control flow
    cache: bool = True  # keep decoded DWARF between profiles (dwarf_cache.py)
    inclusive: bool = False  # charge callees to the instruction that called them


def profile_command(command: list[str], opts: Options) -> OpProfile:
    """Run `command` under perf and profile it per VM instruction."""
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cpulab-opprof-") as d:
        rec = record(command, Path(d), freq=opts.freq, event=opts.event, perf=opts.perf,
                     call_graph=opts.inclusive)
        t1 = time.perf_counter()
        text = script(rec, perf=opts.perf)
        chain_text = script_callchains(rec, perf=opts.perf) if opts.inclusive else None
    t2 = time.perf_counter()
    chains = parse_callchains(chain_text.splitlines()) if chain_text is not None else None
    samples = parse(text.splitlines())
    if not samples:
        raise OpprofError(f"perf recorded no samples of {' '.join(command)}",
                          "the command ran too briefly; raise -F or run it longer")
    if chains is not None and len(chains) != len(samples):
        raise OpprofError(f"perf script gave {len(chains)} call chains for {len(samples)} "
                          "samples", "profile without --inclusive")
    prof = profile_samples(samples, command, rec.event, rec.frequency, opts, chains)
    prof.seconds = {"record": round(t1 - t0, 3), "script": round(t2 - t1, 3),
                    "post": round(time.perf_counter() - t2, 3)}
    return prof


# DWARF is read only for files that hold at least this share of the samples: ld.so's
# ~2,200 compilation units cost pyelftools ~18 s, for the ~10 samples of start-up. Code
# below 0.5% cannot change a ranking; it is summarised by perf's symbol name.
MIN_DWARF_SHARE = 0.005


class _Symbols:
    """Frames of every sampled address, per binary, computed once per unique address."""

    def __init__(self, samples: list[Sample], cache_dwarf: bool = True) -> None:
        self.binaries: dict[str, Binary | None] = {}
        self.debug: dict[str, DebugInfo] = {}
        self.counts: dict[str, int] = {}
        self.hits: dict[str, dict[int, int]] = {}  # path -> address -> samples
        self.frames: dict[tuple[str, int], list[Frame]] = {}
        self.vaddrs: dict[str, set[int]] = {}
        self.unread: list[str] = []  # debug information present, not read (few samples)
        for s in samples:
            if s.path is None or s.offset is None:
                continue
            self.counts[s.path] = self.counts.get(s.path, 0) + 1
            if s.path not in self.binaries:
                self.binaries[s.path] = self._open(s.path)
            b = self.binaries[s.path]
            if b is None:
                continue
            va = b.vaddr(s.offset)
            if va is not None:
                self.vaddrs.setdefault(s.path, set()).add(va)
                by_va = self.hits.setdefault(s.path, {})
                by_va[va] = by_va.get(va, 0) + 1
        total = len(samples)
        for path, vas in self.vaddrs.items():
            b = self.binaries[path]
            if b is None or not b.has_debug_info:
                continue
            if self.counts[path] < MIN_DWARF_SHARE * total:
                self.unread.append(path)
                continue
            cache = DwarfCache(cache_key(b.build_id, b.debug_path)) if cache_dwarf else None
            self.debug[path] = dbg = DebugInfo(b.debug_elf, cache)
            for va in vas:
                self.frames[(path, va)] = dbg.frames(va)

    @staticmethod
    def _open(path: str) -> Binary | None:
        try:
            return Binary(path)
        except OpprofError:
            return None

    def of(self, s: Sample) -> list[Frame]:
        if s.path is None or s.offset is None:
            return []
        b = self.binaries.get(s.path)
        if b is None:
            return []
        va = b.vaddr(s.offset)
        return self.frames.get((s.path, va), []) if va is not None else []

    def functions_of(self, path: str) -> dict[str, int]:
        """Samples per ELF function symbol of one binary (for binaries without DWARF)."""
        b = self.binaries.get(path)
        out: dict[str, int] = {}
        if b is None:
            return out
        for va, n in self.hits.get(path, {}).items():
            name = b.function_at(va)
            if name:
                out[name] = out.get(name, 0) + n
        return out

    def files(self) -> set[str]:
        return {f.file for fr in self.frames.values() for f in fr if f.file}

    def info(self) -> list[BinaryInfo]:
        out = []
        for path, n in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])):
            b = self.binaries.get(path)
            out.append(BinaryInfo(path, b.kind if b else "unreadable", n,
                                  bool(b and b.has_debug_info),
                                  str(b.debug_path) if b and b.debug_path else None,
                                  path in self.debug))
        return out

    def close(self) -> None:
        for d in self.debug.values():
            d.save()
        for b in self.binaries.values():
            if b is not None:
                b.close()


def _top_lacks_debug(syms: _Symbols) -> bool:
    """Whether the file that took the most samples (the interpreter, as a rule) has no
    DWARF to read."""
    info = syms.info()
    return bool(info) and not info[0].debug_info


# A function holding at least this share of the binary's samples is taken for the whole
# interpreter (a switch or computed-goto loop), which handler names cannot split; a
# tail-call interpreter spreads its samples over one function per instruction.
ONE_FUNCTION_SHARE = 0.25


def _debian_package(path: str) -> str | None:
    """The Debian package that installed `path`, if dpkg knows it."""
    if not shutil.which("dpkg"):
        return None
    r = subprocess.run(["dpkg", "-S", str(Path(path).resolve())], capture_output=True,
                       text=True)
    if r.returncode != 0 or ":" not in r.stdout:
        return None
    return r.stdout.split(":", 1)[0].strip()


def _how_to_get_debug_info(path: str) -> str:
    pkg = _debian_package(path)
    dbgsym = (f"install {pkg}-dbgsym (Debian's debug archive, deb.debian.org/debian-debug)"
              if pkg else "install the distribution's debug symbols (Debian: PACKAGE-dbgsym)")
    return f"{dbgsym}, or rebuild the interpreter with -g (-O2 -g keeps the optimisation)"


def _no_debug_error(syms: _Symbols) -> OpprofError:
    top = syms.info()
    if not top:
        return OpprofError("the command's samples fell in no readable binary")
    path, n = top[0].path, top[0].samples
    base = (f"{path} has no debug information (no .debug_info/.debug_line in it, and no "
            f"separate debug file under /usr/lib/debug); source lines cannot be known")
    sym, held = max(syms.functions_of(path).items(), key=lambda kv: kv[1],
                    default=("", 0))
    total = sum(syms.counts.values())
    if sym and held >= ONE_FUNCTION_SHARE * n:
        return OpprofError(
            f"{base}. The function with the most samples ({100 * held / total:.0f}% of "
            f"all) is {sym}: its instructions are code inside it, told apart only by "
            f"source line", _how_to_get_debug_info(path))
    return OpprofError(base, _how_to_get_debug_info(path) + "; for an interpreter with "
                       "one function per instruction, --by-function maps by their names")


def _marker_index(syms: _Symbols, opts: Options, patterns: list[str]
                  ) -> tuple[RegionIndex, dict[str, Path]]:
    finder = markers.SourceFinder(opts.source_dirs)
    scans, found = markers.scan_files(syms.files(), finder, patterns,
                                      labels=not opts.patterns)
    return markers.build_index(scans), found


def _label_index(syms: _Symbols) -> RegionIndex:
    return labels.build_index([(syms.debug[p], sorted(syms.vaddrs[p])) for p in syms.debug])


def _choose_mapping(syms: _Symbols, opts: Options):
    """(mapper, Mapping) for the options and what the binaries and sources offer."""
    has_dwarf = bool(syms.debug)
    if opts.mode == "function":
        fm = FunctionMapper(opts.function_pattern)
        return fm, Mapping("function", "asked for (--by-function)", [fm.pattern], [], {})
    if not has_dwarf:
        raise _no_debug_error(syms)
    if opts.mode == "label":
        idx = _label_index(syms)
        if not idx and _top_lacks_debug(syms):
            raise _no_debug_error(syms)
        if not idx:
            raise OpprofError("no DWARF labels of an interpreter function in the sampled "
                              "code", "try --markers PATTERN with --source DIR, or "
                              "--by-function")
        return idx, Mapping("label", "asked for (--by-label)", [],
                            [b.label for b in idx.blocks], {})
    user = opts.mode == "markers"
    patterns = opts.patterns if user else list(markers.DEFAULT_PATTERNS.values())
    idx, found = _marker_index(syms, opts, patterns)
    shown = patterns if user else [*markers.DEFAULT_PATTERNS, markers.LABEL_PATTERN]
    if idx:
        return idx, Mapping("markers", "asked for (--markers)" if user else
                            "default markers found in the interpreter's source",
                            shown, [b.label for b in idx.blocks],
                            {k: str(v) for k, v in found.items()})
    if _top_lacks_debug(syms):
        raise _no_debug_error(syms)
    if user:
        where = ", ".join(sorted({Path(p).name for p in found})) or "none found"
        raise OpprofError(f"no marker matching {patterns} in the sources of the sampled "
                          f"code (files read: {where})",
                          "check the pattern (its first group is the instruction's name) "
                          "and --source DIR")
    why = ("no source file found" if not found else
           f"no default marker in {', '.join(sorted(Path(p).name for p in found))}")
    idx = _label_index(syms)
    if idx:
        return idx, Mapping("label", f"{why}; DWARF labels of an interpreter function",
                            [], [b.label for b in idx.blocks],
                            {k: str(v) for k, v in found.items()})
    fm = FunctionMapper(opts.function_pattern)
    names = {f.function for fr in syms.frames.values() for f in fr if fm.is_handler(f.function)}
    if names:
        return fm, Mapping("function", f"{why}, no DWARF labels; handler function names",
                           [fm.pattern], sorted(names), {})
    raise OpprofError(
        f"no VM instruction found: {why}, no DWARF labels of an interpreter, no function "
        f"named like a handler ({fm.pattern})",
        "give the source (--source DIR), a marker (--markers 'REGEX with (NAME) group'), "
        "or handler names (--by-function --functions REGEX)")


class _Flows:
    """Control-flow refinement (flow.py) of the interpreter functions, one analysis per
    physical function that holds samples attributed to the interpreter."""

    def __init__(self, syms: _Symbols, index: RegionIndex) -> None:
        self.syms, self.index = syms, index
        self._reach: dict[tuple[str, int], dict[int, frozenset[str]] | None] = {}
        self.skipped: list[str] = []
        self._owners: dict[tuple[int, int], str | None] = {}
        self._by_entry: dict[tuple[str, int], bool] = {}
        self._names = set(index.names)
        self.methods: dict[str, str] = {}

    def _entries(self, dbg: DebugInfo, node, va: int) -> dict[int, str]:
        """Addresses of the labels that start instructions: `L_OP_ADD` (Lua's vmcase with
        its jump table), `TARGET_X`, `op_add`; a label named like an instruction, or
        ending in `_` + its name."""
        out = {}
        for lb in dbg.unit_labels(va):
            if lb.function != node.name or lb.address is None or not node.contains(lb.address):
                continue
            # the longest name: TARGET_STORE_FAST__LOAD_FAST is not LOAD_FAST
            name = max((n for n in self._names if lb.name == n or lb.name.endswith("_" + n)),
                       key=len, default=None)
            if name is not None:
                out[lb.address] = name
        return out

    def _owner(self, dbg: DebugInfo, addr: int) -> str | None:
        key = (id(dbg), addr)
        if key not in self._owners:
            self._owners[key] = self._owner_uncached(dbg, addr)
        return self._owners[key]

    def _owner_uncached(self, dbg: DebugInfo, addr: int) -> str | None:
        fr = dbg.frames(addr)
        a = attribute_insn(fr, self.index)
        if a is not None:
            return a.name
        if not fr or all(f.line == 0 for f in fr):
            return None
        return flow.DISPATCH_OWNER

    def refine(self, s: Sample, frames: list[Frame], a: Attribution) -> Attribution:
        b = self.syms.binaries.get(s.path or "")
        if b is None or s.offset is None:
            return a
        return self.refine_at(s.path or "", b.vaddr(s.offset), a)

    def refine_at(self, path: str, va: int | None, a: Attribution) -> Attribution:
        b = self.syms.binaries.get(path)
        dbg = self.syms.debug.get(path)
        if b is None or dbg is None:
            return a
        node = dbg.function_at(va) if va is not None else None
        if node is None:
            return a
        key = (path, node.ranges[0][0])
        if key not in self._reach:
            entries = self._entries(dbg, node, va)
            self._reach[key] = flow.analyse(node.ranges, b.read,
                                            lambda x: self._owner(dbg, x), b.machine,
                                            entries)
            self._by_entry[key] = len(entries) >= 2
            if self._reach[key] is None:
                self.skipped.append(node.name)
            self.methods[node.name] = ("skipped" if self._reach[key] is None else
                                       "entries" if self._by_entry[key] else "lines")
        reach = self._reach[key]
        if reach is None or va not in reach:
            return a
        among = flow.refine(self._owner(dbg, va), reach[va], self._by_entry[key])
        if not among:
            return Attribution("dispatch", DISPATCH, a.where)
        if len(among) == 1:
            return Attribution("insn", next(iter(among)), a.where)
        return Attribution("shared", "", a.where, among)


def _busiest(syms: _Symbols) -> str:
    """Where the samples are instead, for a mapping that found none: the function with
    the most samples in the busiest binary (a switch interpreter has no handlers)."""
    top = syms.info()
    if not top:
        return ""
    sym, n = max(syms.functions_of(top[0].path).items(), key=lambda kv: kv[1],
                 default=("", 0))
    total = sum(syms.counts.values())
    if not sym or not total:
        return ""
    return (f" {100 * n / total:.0f}% of the samples are in {sym} ({top[0].path}); if it "
            f"is the interpreter, its instructions are told apart by source line, which "
            f"needs debug information: {_how_to_get_debug_info(top[0].path)}")


def _rest_symbol(frames: list[Frame], s: Sample) -> str:
    if frames and frames[0].function:
        return frames[0].function
    return s.sym


def _caller(chain: list[tuple[str, int]], syms: _Symbols, mapper, vm_functions: set[str],
            flows: _Flows | None) -> Attribution | None:
    """For a sample outside the VM: the VM instruction (or dispatch/other) nearest the
    leaf in its call chain, at the call instruction before each return address, refined
    by control flow like a sample of the VM's own code."""
    for path, ret in chain[1:]:
        dbg = syms.debug.get(path)
        if dbg is None:
            continue
        fr = dbg.frames(ret - 1)
        if isinstance(mapper, FunctionMapper):
            a = mapper.attribute(fr, "")
            if a.kind == "insn":
                return a
            continue
        a = attribute_insn(fr, mapper) or attribute_rest(fr, mapper, vm_functions)
        if a.kind != "rest":
            return flows.refine_at(path, ret - 1, a) if flows else a
    return None


def profile_samples(samples: list[Sample], command: list[str], event: Event,
                    frequency: int, opts: Options,
                    chains: list[list[tuple[str, int]]] | None = None) -> OpProfile:
    """The profile of recorded samples (split from profile_command for tests); with
    `chains` (one per sample, --inclusive) a sample outside the VM is charged to the
    instruction whose code called it."""
    syms = _Symbols(samples, opts.cache)
    try:
        mapper, mapping = _choose_mapping(syms, opts)
        warnings = []
        info = syms.info()
        if info and not info[0].debug_info and mapping.mode != "function":
            warnings.append(f"{info[0].path} took the most samples but has no debug "
                            "information; its samples count as the rest of the process")
        per_sample = [(s, syms.of(s)) for s in samples]
        items: list[Item] = []
        if isinstance(mapper, FunctionMapper):
            for k, (s, fr) in enumerate(per_sample):
                a = mapper.attribute(fr, s.sym)
                if a.kind == "rest" and chains:
                    a = _caller(chains[k], syms, mapper, set(), None) or a
                items.append(Item(a, _rest_symbol(fr, s), s.dso))
        else:
            first: list[Attribution | None] = [attribute_insn(fr, mapper) for _, fr in per_sample]
            vm_functions = {a.where.function for a in first if a and a.where}
            flows = _Flows(syms, mapper)
            for k, ((s, fr), a) in enumerate(zip(per_sample, first, strict=True)):
                a = a or attribute_rest(fr, mapper, vm_functions)
                if a.kind != "rest" and opts.flow:
                    a = flows.refine(s, fr, a)
                if a.kind == "rest" and chains:
                    a = _caller(chains[k], syms, mapper, vm_functions,
                                flows if opts.flow else None) or a
                items.append(Item(a, _rest_symbol(fr, s), s.dso))
            mapping.flow = dict(sorted(flows.methods.items()))
            if flows.skipped:
                warnings.append("control flow not analysed in " + ", ".join(flows.skipped) +
                                ": samples counted by source line alone")
        result = aggregate(items)
        if mapping.mode == "function":
            mapping.interpreter = sorted(r.name for r in result.instructions) or \
                mapping.interpreter
        if result.vm_samples == 0:
            warnings.append("no sample fell in the interpreter: is the command running "
                            "the interpreter that was mapped?" + _busiest(syms))
        mapping.inclusive = chains is not None
        return OpProfile(command, event, frequency, mapping, result, info, warnings)
    finally:
        syms.close()



