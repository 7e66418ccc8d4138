"""`cpulab asm EXPERIMENT VARIANT`: the static instruction mix (and the listing) of a
variant's hot functions, built now with one compiler and level: the machine-code
evidence a seed's explanation rests on, for this build."""

from __future__ import annotations

from cpulab.asm import disassemble, find_functions, instruction_mix
from cpulab.build import BuildConfig, build_one, find_toolchain
from cpulab.commands.common import UsageError, add_db_argument, dump, opt_arg, out
from cpulab.commands.experiment_names import experiment


def cmd_asm(args) -> int:
    from cpulab.report.asm import render_listing, render_mix

    exp = experiment(args.experiment, args.db)
    targets = exp.targets()
    if args.variant not in targets:
        raise UsageError(f"{exp.name} has no variant {args.variant!r}; variants: "
                         f"{', '.join(targets)}")
    tc = find_toolchain(args.cc)
    if tc is None:
        raise UsageError(f"--cc {args.cc}: compiler not found")
    cfg = BuildConfig(tc, args.opt, pgo=args.pgo)
    exe = build_one(targets[args.variant], cfg)
    symbols = args.symbol or exp.hot_symbols(args.variant)
    if not symbols:
        raise UsageError(f"{exp.name} names no hot functions for {args.variant}; give --symbol")
    fns = find_functions(exe, symbols)
    if not fns:
        raise UsageError(f"no function matching {', '.join(symbols)} in {exe}")
    mixes = {f.name: instruction_mix(f) for f in fns}
    if args.json:
        dump({"experiment": exp.name, "variant": args.variant, "build": cfg.as_dict(),
              "binary": str(exe), "source": "asm",
              "functions": [{"name": f.name, "address": f.address, "size": f.size,
                             "mix": mixes[f.name],
                             **({"listing": [str(i) for i in disassemble(f)]}
                                if args.listing else {})} for f in fns]})
        return 0
    if args.listing:
        for f in fns:
            render_listing(f.name, [str(i) for i in disassemble(f)], out)
    render_mix(f"{exp.name} {args.variant}, {cfg.label}: instruction mix (static, from the "
               "machine code)", mixes, out)
    return 0


def add_parser(sub) -> None:
    a = sub.add_parser("asm", help="instruction mix (and listing) of a variant's hot code")
    a.add_argument("experiment", metavar="EXPERIMENT",
                   help="a built-in experiment, or a described one's folder, .toml file "
                        "or name")
    a.add_argument("variant", metavar="VARIANT")
    a.add_argument("--cc", default="gcc", help="compiler (default gcc)")
    a.add_argument("--opt", default="O2", type=lambda s: opt_arg(s)[0],
                   help="optimisation level (default O2)")
    a.add_argument("--pgo", action="store_true", help="the profile-guided build")
    a.add_argument("--symbol", action="append", metavar="GLOB",
                   help="functions to show instead of the experiment's hot ones (repeatable)")
    a.add_argument("--listing", action="store_true", help="print the disassembly too")
    add_db_argument(a)
    a.add_argument("--json", action="store_true", help="print JSON")
    a.set_defaults(func=cmd_asm)
