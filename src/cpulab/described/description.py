"""An experiment described in TOML, outside the package: read, checked, and turned into
plain values before anything is built.

Every mistake is one `DescriptionError` that names the file, the field and what was
expected (`select/experiment.toml: claims[1].than: expected a variant of this
experiment (branchy, branchfree), got 'branchles'`), so a user fixes it without reading
Python. Claims are checked here too: a claim that names an unknown variant or metric, or
is limited (`where`) to a parameter or a value that [params] does not sweep, is refused
before the first compiler runs.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cpulab.asm import CATEGORIES
from cpulab.claims.spec import CLAIM_KINDS, ClaimSpec, where_text

# What a `cpulab/*.toml` or an experiment folder holds; `cpulab new` writes this name.
DESCRIPTION_FILE = "experiment.toml"

# Metrics a harness kernel yields (measure.metrics) and the exact ones the lab adds.
# PMU figures are allowed in claims: where the machine has no PMU, the claim is judged
# `unmeasurable` with the kernel's reason, never from a zero.
TIMED_METRICS = ("time", "tsc", "cycles", "instructions", "branches", "branch-misses",
                 "branch-miss-rate", "ipc", "task-clock", "page-faults", "context-switches")
CALLGRIND_METRICS = ("instructions (callgrind)", "cond-misses (model)",
                     "indirect-branches (callgrind)", "indirect-misses (model)",
                     "branch-miss-rate (model)")
METRICS = TIMED_METRICS + CALLGRIND_METRICS
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")
_MNEMONIC = re.compile(r"^[a-z][a-z0-9]*$")
_OPT = re.compile(r"^O[0-3sgz]$|^Ofast$")


# Kinds of the built-in experiments alone: `rank` orders by the largest figure (a
# profile's shares), where a user's metrics are times, smallest best.
_BUILT_IN_ONLY = ("rank",)


class DescriptionError(ValueError):
    """The description is invalid; the message names the file, the field, the fix."""


@dataclass(frozen=True)
class VariantSpec:
    name: str
    sources: tuple[Path, ...]  # absolute, resolved against the description's folder
    defines: tuple[str, ...] = ()
    include_dirs: tuple[Path, ...] = ()  # absolute, like the sources
    cflags: tuple[str, ...] = ()
    libs: tuple[str, ...] = ()
    hot: tuple[str, ...] = ()  # function globs whose machine code is the evidence


@dataclass(frozen=True)
class Description:
    path: Path  # the TOML file
    name: str
    title: str
    summary: str
    variants: tuple[VariantSpec, ...]
    params: dict[str, tuple[str, ...]] = field(default_factory=dict)
    quick_params: dict[str, tuple[str, ...]] = field(default_factory=dict)
    compilers: tuple[str, ...] = ("gcc", "clang")
    opts: tuple[str, ...] = ("O2",)
    pgo: tuple[str, ...] = ()
    table: tuple[str, ...] | None = None
    claims: tuple[ClaimSpec, ...] = ()

    @property
    def folder(self) -> Path:
        return self.path.parent

    def variant(self, name: str) -> VariantSpec:
        return next(v for v in self.variants if v.name == name)

    def param_grid(self, quick: bool) -> list[dict[str, str]]:
        """Every combination of the swept parameters (one empty one when none);
        `--quick` takes `quick_params` where given, else each list's first value."""
        grid = {k: self.quick_params.get(k, vs[:1]) if quick else vs
                for k, vs in self.params.items()}
        keys = list(grid)
        return [dict(zip(keys, combo, strict=True))
                for combo in itertools.product(*(grid[k] for k in keys))]

    def needs_callgrind(self) -> bool:
        wanted = {c.metric for c in self.claims} | set(self.table or ())
        return bool(wanted & set(CALLGRIND_METRICS))


def builtin_name_clash(name: str) -> str | None:
    """Why `name` cannot name an experiment of the user's own, or None. Runs are stored,
    compared and reported under their experiment's name: one named like a built-in
    experiment would have its runs taken for the built-in's."""
    from cpulab import experiments  # the registry imports every experiment: only here

    if name not in experiments.names():
        return None
    return (f"{name!r} is the name of a built-in experiment (`cpulab list`): runs are "
            "stored under their experiment's name, so yours would mix with its runs; "
            "choose another name")


def find_description(path: Path) -> Path:
    """The TOML file a PATH names: the file itself, or a folder's experiment.toml."""
    if path.is_dir():
        path = path / DESCRIPTION_FILE
    if not path.is_file():
        raise DescriptionError(f"{path}: no such file (an experiment is a folder with "
                               f"{DESCRIPTION_FILE}, or a .toml file; `cpulab new NAME` "
                               "writes one)")
    return path


def load(path: Path) -> Description:
    """Read and check a description; raises DescriptionError naming the field at fault."""
    path = find_description(Path(path)).resolve()
    return _Reader(path, _parse(path)).description()


def read_name(path: Path) -> str:
    """The name a description gives its experiment, checked alone: the name its runs
    are stored under, which commands that read runs need even when the rest of the
    description no longer builds (a source moved, a claim gone stale)."""
    path = find_description(Path(path)).resolve()
    return _Reader(path, _parse(path)).name()


def _parse(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise DescriptionError(f"{path}: not valid TOML: {e}") from e
    except (OSError, UnicodeDecodeError) as e:
        raise DescriptionError(f"{path}: cannot read it: {e}") from e


class _Reader:
    """Checks one document field by field; every error goes through `fail`."""

    def __init__(self, path: Path, doc: dict):
        self.path, self.doc = path, doc

    def fail(self, where: str, expected: str, got: Any = None) -> DescriptionError:
        text = f"{self.path}: {where}: expected {expected}"
        if got is not None:
            text += f", got {got!r}"
        return DescriptionError(text)

    def get(self, table: dict, key: str, where: str, kind: type | tuple[type, ...],
            expected: str, default: Any = None, required: bool = False) -> Any:
        if key not in table:
            if required:
                raise self.fail(where, f"{expected} (the field is missing)")
            return default
        value = table[key]
        # TOML integers are not booleans, but Python's bool is an int: keep them apart.
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in
                                           (kind if isinstance(kind, tuple) else (kind,))):
            raise self.fail(where, expected, value)
        return value

    def strings(self, table: dict, key: str, where: str, default: tuple = ()) -> tuple:
        value = self.get(table, key, where, list, "a list of strings", None)
        if value is None:
            return default
        if not all(isinstance(v, str) for v in value):
            raise self.fail(where, "a list of strings", value)
        return tuple(value)

    def known_keys(self, table: dict, where: str, keys: tuple[str, ...]) -> None:
        for k in table:
            if k not in keys:
                prefix = f"{where}." if where else ""
                raise self.fail(f"{prefix}{k}", f"one of the fields {', '.join(keys)} "
                                "(unknown field)")

    def description(self) -> Description:
        d = self.doc
        self.known_keys(d, "", ("name", "title", "summary", "build", "params",
                                "quick", "table", "variants", "claims"))
        name = self.name()
        clash = builtin_name_clash(name)
        if clash:
            raise DescriptionError(f"{self.path}: name: {clash}")
        title = self.get(d, "title", "title", str, "a string", name)
        summary = self.get(d, "summary", "summary", str, "a string", "")
        variants = self.variants()
        compilers, opts, pgo = self.build()
        params = self.params(d, "params")
        quick = self.params(d, "quick")
        for k in quick:
            if k not in params:
                raise self.fail(f"quick.{k}", f"a parameter of [params] ({', '.join(params)})"
                                if params else "no [quick] values: [params] sweeps nothing")
        table = self.strings(d, "table", "table", None) if "table" in d else None
        for i, m in enumerate(table or ()):
            if m not in METRICS:
                raise self.fail(f"table[{i}]", f"a metric ({', '.join(METRICS)})", m)
        names = [v.name for v in variants]
        claims = tuple(self.claim(c, i, names, params) for i, c in
                       enumerate(self.get(d, "claims", "claims", list,
                                          "an array of tables [[claims]]", [])))
        for i, c in enumerate(claims):
            if c.kind == "no-instruction" and not next(
                    v for v in variants if v.name == c.variant).hot:
                raise self.fail(f"claims[{i}].variant", f"a variant with hot functions: give "
                                f"{c.variant}'s `hot` (function names, globs allowed)",
                                c.variant)
        return Description(self.path, name, title, summary, variants, params, quick,
                           compilers, opts, pgo, table, claims)

    def name(self) -> str:
        name = self.get(self.doc, "name", "name", str,
                        "a name of letters, digits, '-', '_' or '.'", required=True)
        if not _NAME.match(name):
            raise self.fail("name", "a name of letters, digits, '-', '_' or '.' starting "
                            "with a letter", name)
        return name

    def variants(self) -> tuple[VariantSpec, ...]:
        raw = self.get(self.doc, "variants", "variants", list,
                       "an array of tables [[variants]], at least one", required=True)
        if not raw:
            raise self.fail("variants", "at least one [[variants]] table")
        out: list[VariantSpec] = []
        for i, v in enumerate(raw):
            where = f"variants[{i}]"
            if not isinstance(v, dict):
                raise self.fail(where, "a table with name and sources", v)
            self.known_keys(v, where, ("name", "sources", "defines", "include", "cflags",
                                       "libs", "hot"))
            name = self.get(v, "name", f"{where}.name", str, "a variant name", required=True)
            if not _NAME.match(name):
                raise self.fail(f"{where}.name", "a name of letters, digits, '-', '_' or '.' "
                                "starting with a letter", name)
            if name in (o.name for o in out):
                raise self.fail(f"{where}.name", "a name no other variant has", name)
            sources = self.strings(v, "sources", f"{where}.sources")
            if not sources:
                raise self.fail(f"{where}.sources", "a list of at least one C source file")
            paths = []
            for j, s in enumerate(sources):
                p = (self.path.parent / s).resolve()
                if not p.is_file():
                    raise self.fail(f"{where}.sources[{j}]", "a file, relative to the "
                                    f"description's folder ({p} does not exist)", s)
                paths.append(p)
            includes = []
            for j, s in enumerate(self.strings(v, "include", f"{where}.include")):
                p = (self.path.parent / s).resolve()
                if not p.is_dir():
                    raise self.fail(f"{where}.include[{j}]", "a folder of headers, relative "
                                    f"to the description's folder ({p} is none)", s)
                includes.append(p)
            out.append(VariantSpec(
                name, tuple(paths), self.strings(v, "defines", f"{where}.defines"),
                tuple(includes), self.strings(v, "cflags", f"{where}.cflags"),
                self.strings(v, "libs", f"{where}.libs"),
                self.strings(v, "hot", f"{where}.hot")))
        return tuple(out)

    def build(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        b = self.get(self.doc, "build", "build", dict, "a table [build]", {})
        self.known_keys(b, "build", ("compilers", "opts", "pgo"))
        compilers = self.strings(b, "compilers", "build.compilers", ("gcc", "clang"))
        if not compilers:
            raise self.fail("build.compilers", "at least one compiler (gcc, clang, a path)")
        levels = {}
        for key, default in (("opts", ("O2",)), ("pgo", ())):
            values = tuple(o.removeprefix("-") for o in
                           self.strings(b, key, f"build.{key}", default))
            for j, o in enumerate(values):
                if not _OPT.match(o):
                    raise self.fail(f"build.{key}[{j}]", "an optimisation level (O1, O2, "
                                    "O3, Os, ...)", o)
            levels[key] = values
        if not levels["opts"]:
            raise self.fail("build.opts", "at least one optimisation level")
        return compilers, levels["opts"], levels["pgo"]

    def params(self, d: dict, key: str) -> dict[str, tuple[str, ...]]:
        raw = self.get(d, key, key, dict, f"a table [{key}] of parameter = [values]", {})
        out = {}
        for k, vs in raw.items():
            where = f"{key}.{k}"
            if not _NAME.match(k):
                raise self.fail(where, "a parameter name of letters, digits and '_'", k)
            if not isinstance(vs, list) or not vs or not all(
                    isinstance(x, int | float | str) and not isinstance(x, bool) for x in vs):
                raise self.fail(where, "a non-empty list of numbers or strings", vs)
            out[k] = tuple(str(x) for x in vs)
        return out

    def claim_where(self, c: dict, where: str,
                    params: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        """A claim's `where = { n = 4096 }` (or `n = [4096, 65536]`): every key a swept
        parameter, every value one it takes, so that a typo cannot leave a claim judged
        on no case at all."""
        raw = self.get(c, "where", where, dict, "a table of parameter = value or [values] "
                       "(where = { n = 4096 })", {})
        out = {}
        for k, v in raw.items():
            at = f"{where}.{k}"
            if k not in params:
                raise self.fail(at, f"a parameter of [params] ({', '.join(params)})"
                                if params else "no `where`: [params] sweeps nothing")
            values = v if isinstance(v, list) else [v]
            if not values or not all(isinstance(x, int | float | str) and
                                     not isinstance(x, bool) for x in values):
                raise self.fail(at, "a number or a string, or a non-empty list of them", v)
            for x in values:
                if str(x) not in params[k]:
                    raise self.fail(at, f"a value that [params] gives {k} "
                                    f"({', '.join(params[k])})", x)
            out[k] = tuple(str(x) for x in values)
        return out

    def peers(self, c: dict, where: str, name: str,
              variants: list[str]) -> str | tuple[str, ...]:
        """A claim's `than`: a variant, or a list of them (compared against the fastest
        of them in each build and parameter set); never the claim's own."""
        raw = self.get(c, "than", f"{where}.than", (str, list), "a variant name, or a "
                       "list of them", required=True)
        names = raw if isinstance(raw, list) else [raw]
        if not names:
            raise self.fail(f"{where}.than", "a variant name, or a list of them", raw)
        for v in names:
            if v == name:
                raise self.fail(f"{where}.than", "a variant other than the claim's own", v)
            if v not in variants:
                raise self.fail(f"{where}.than", "a variant of this experiment "
                                f"({', '.join(variants)})", v)
        return raw if isinstance(raw, str) else tuple(names)

    def claim(self, c: Any, i: int, variants: list[str],
              params: dict[str, tuple[str, ...]]) -> ClaimSpec:
        where = f"claims[{i}]"
        if not isinstance(c, dict):
            raise self.fail(where, "a table with kind and variant", c)
        kinds = tuple(k for k in CLAIM_KINDS if k not in _BUILT_IN_ONLY)
        kind = self.get(c, "kind", f"{where}.kind", str, f"one of {', '.join(kinds)}",
                        required=True)
        if kind not in kinds:
            raise self.fail(f"{where}.kind", f"one of {', '.join(kinds)}", kind)
        # `where` limits measured claims; machine code is the same for every parameter.
        fields = {"faster": ("than", "family", "by", "metric", "builds", "where", "over"),
                  "within": ("than", "by", "metric", "builds", "where", "over"),
                  "no-instruction": ("instruction",),
                  "at-most": ("metric", "value", "builds", "where"),
                  "at-least": ("metric", "value", "builds", "where"),
                  "growth": ("metric", "over", "value", "builds", "where"),
                  "share": ("than", "value", "metric", "builds", "where")}[kind]
        self.known_keys(c, where, ("kind", "variant", "text", *fields))

        def variant(key: str) -> str:
            v = self.get(c, key, f"{where}.{key}", str, "a variant name", required=True)
            if v not in variants:
                raise self.fail(f"{where}.{key}", "a variant of this experiment "
                                f"({', '.join(variants)})", v)
            return v

        name = variant("variant")
        text = self.get(c, "text", f"{where}.text", str, "a string")
        allowed = ("every", "most", "some") if kind == "faster" else ("every", "most")
        said = " or ".join(f'"{b}"' for b in allowed)
        builds = self.get(c, "builds", f"{where}.builds", str, said, "every")
        if builds not in allowed:
            raise self.fail(f"{where}.builds", said, builds)
        metric = self.get(c, "metric", f"{where}.metric", str, "a metric name", "tsc")
        if metric not in METRICS:
            raise self.fail(f"{where}.metric", f"a metric ({', '.join(METRICS)})", metric)
        only = self.claim_where(c, f"{where}.where", params)
        scope = f" where {where_text(only)}" if only else ""
        if kind in ("faster", "within"):
            than = self.peers(c, where, name, variants)
            over = self.get(c, "over", f"{where}.over", str, "a parameter of [params]", None)
            if over is not None and over not in params:
                raise self.fail(f"{where}.over", f"a parameter of [params] ({', '.join(params)})"
                                if params else "no `over`: [params] sweeps nothing", over)
            if kind == "faster":
                by = self.get(c, "by", f"{where}.by", (int, float), "a ratio > 0 (1.2: 20% "
                              "faster)", 1.0)
                if by <= 0:
                    raise self.fail(f"{where}.by", "a ratio > 0 (1.2: 20% faster)", by)
            else:
                by = self.get(c, "by", f"{where}.by", (int, float), "a tolerance between 0 "
                              "and 1 (0.05: within 5%)", required=True)
                if not 0 < by < 1:
                    raise self.fail(f"{where}.by", "a tolerance between 0 and 1 (0.05: "
                                    "within 5%)", by)
            family = self.family(c, where, than, variants) if kind == "faster" else ()
            peers = " or ".join(than) if isinstance(than, tuple) else than
            mean = f", geometric mean over {over}" if over else ""
            mine = f"the fastest of {' or '.join((name, *family))}" if family else name
            text = text or (f"{mine} is at least {by:g}x as fast as {peers} on {metric}"
                            f"{mean} in {builds} build and parameter{scope}"
                            if kind == "faster" else
                            f"{name} is within {by:.0%} of {peers} on {metric}{mean} in "
                            f"{builds} build and parameter{scope}")
            return ClaimSpec(kind, name, text, than=than, by=float(by), metric=metric,
                             builds=builds, where=only, over=over, family=family)
        if kind == "no-instruction":
            ins = self.get(c, "instruction", f"{where}.instruction", str,
                           f"an instruction category ({', '.join(CATEGORIES)}) or a "
                           "mnemonic (cmov, div, ...)", required=True)
            if ins not in CATEGORIES and not _MNEMONIC.match(ins):
                raise self.fail(f"{where}.instruction", "an instruction category or a "
                                "lower-case mnemonic", ins)
            text = text or f"{name} has no `{ins}` in its hot functions in any build"
            return ClaimSpec(kind, name, text, instruction=ins)
        if kind == "growth":
            over = self.get(c, "over", f"{where}.over", str, "a parameter of [params]",
                            required=True)
            if over not in params or len(params[over]) < 3:
                raise self.fail(f"{where}.over", "a parameter of [params] with three values "
                                "or more to fit", over)
            bound = self.get(c, "value", f"{where}.value", (int, float), "an exponent > 0 "
                             "(2: quadratic)", required=True)
            if bound <= 0:
                raise self.fail(f"{where}.value", "an exponent > 0 (2: quadratic)", bound)
            text = text or (f"{metric} of {name} grows slower than {over}^{bound:g} in "
                            f"{builds} build{scope}")
            return ClaimSpec(kind, name, text, metric=metric, over=over, value=float(bound),
                             builds=builds, where=only)
        if kind == "share":
            than = self.peers(c, where, name, variants)
            if not isinstance(than, str):
                raise self.fail(f"{where}.than", "one variant name (the part not in the "
                                "share)", list(than))
            value = self.get(c, "value", f"{where}.value", (int, float), "a share between "
                             "0 and 1 (0.5: most)", required=True)
            if not 0 <= value < 1:
                raise self.fail(f"{where}.value", "a share between 0 and 1 (0.5: most)",
                                value)
            text = text or (f"more than {value:.0%} of {name}'s {metric} is not {than}'s "
                            f"(1 - {than}/{name}) in {builds} build and parameter{scope}")
            return ClaimSpec(kind, name, text, than=than, metric=metric, value=float(value),
                             builds=builds, where=only)
        value = self.get(c, "value", f"{where}.value", (int, float), "a number",
                         required=True)
        word = "at most" if kind == "at-most" else "at least"
        text = text or f"{metric} of {name} is {word} {value:g} in {builds} build{scope}"
        return ClaimSpec(kind, name, text, metric=metric, value=float(value), builds=builds,
                         where=only)

    def family(self, c: dict, where: str, than: str | tuple[str, ...],
               variants: list[str]) -> tuple[str, ...]:
        """A faster claim's `family`: other forms of its variant (a list of variants),
        the fastest of which is compared in each set; none of them a peer."""
        family = self.strings(c, "family", f"{where}.family")
        peers = (than,) if isinstance(than, str) else than
        for v in family:
            if v not in variants or v in peers:
                raise self.fail(f"{where}.family", "variants of this experiment, none of "
                                f"them in `than` ({', '.join(variants)})", v)
        return family
