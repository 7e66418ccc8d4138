"""`cpulab env`: this machine's fingerprint, the context every stored run carries."""

from __future__ import annotations

from cpulab.commands.common import dump, out


def cmd_env(args) -> int:
    from cpulab.machine import fingerprint, fingerprint_key
    from cpulab.report.machine import render_fingerprint

    fp = fingerprint()
    if args.json:
        dump({"key": fingerprint_key(fp), **fp})
    else:
        render_fingerprint(fp, fingerprint_key(fp), out)
    return 0


def add_parser(sub) -> None:
    e = sub.add_parser("env", help="this machine's fingerprint: CPU, caches, TSC, PMU, "
                       "compilers")
    e.add_argument("--json", action="store_true", help="print JSON")
    e.set_defaults(func=cmd_env)
