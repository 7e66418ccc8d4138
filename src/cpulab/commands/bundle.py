"""`cpulab export` and `cpulab import`: runs out of one results database into a bundle
file, and bundles into another database (all or nothing, never twice)."""

from __future__ import annotations

from pathlib import Path

from cpulab.commands.common import UsageError, add_db_argument, dump, open_store, out
from cpulab.commands.refs import resolve
from cpulab.store import read_bundle, write_bundle


def cmd_export(args) -> int:
    with open_store(args.db) as store:
        if args.all:
            ids = store.ids()
        elif args.latest:
            ids = store.latest()
        elif args.runs:
            seen: dict[int, None] = {}
            for text in args.runs:
                for ref in resolve(text, store):
                    if ref.bundle is not None:
                        raise UsageError(f"{text}: export names runs of the database, not "
                                         "of a bundle (a bundle is exported already)")
                    seen.setdefault(ref.record.id, None)
            ids = list(seen)
        else:
            raise UsageError("name the runs to export (ids, EXPERIMENT, @MACHINE), or give "
                             "--latest or --all")
        if not ids:
            raise UsageError(f"{store.path} holds no run to export")
        records = [store.get(i) for i in ids]
    if args.origin:
        for r in records:
            r.origin = r.origin or args.origin
    path = write_bundle(args.output, records, compress=True if args.gzip else None)
    experiments = sorted({r.experiment for r in records})
    if args.json:
        dump({"bundle": str(path), "runs": ids, "experiments": experiments})
    else:
        out.print(f"exported {len(records)} run(s) of {', '.join(experiments)} to {path} "
                  f"({path.stat().st_size / 1024:.0f} KiB)")
    return 0


def cmd_import(args) -> int:
    # Every bundle is read and checked before anything is stored; one bad file stores
    # nothing of any of them.
    bundles = [(Path(p), read_bundle(Path(p))) for p in args.bundles]
    report = []
    with open_store(args.db, create=True) as store:
        records = [r for _, recs in bundles for r in recs]
        for r in records:
            r.origin = r.origin or args.origin
        done = store.add_all(records)
        at = 0
        for path, recs in bundles:
            ids = [r.id for r in records[at:at + len(recs)]]
            at += len(recs)
            added = [i for i in ids if i in done.added]
            report.append({"bundle": str(path), "runs": len(recs), "added": added,
                           "present": [i for i in ids if i not in done.added]})
    if args.json:
        dump({"db": str(store.path), "bundles": report})
        return 0
    for b in report:
        added = ", ".join(f"#{i}" for i in b["added"]) or "none"
        out.print(f"{b['bundle']}: {b['runs']} run(s); added {added}; "
                  f"{len(b['present'])} already in {store.path}")
    return 0


def add_parsers(sub) -> None:
    e = sub.add_parser(
        "export", help="stored runs into one versioned JSON bundle file (gzip optional)",
        description="Write runs with their machine fingerprint, lab revision, compilers and "
                    "every per-repetition figure to one JSON file that `cpulab import` reads "
                    "on another machine. A name ending in .gz is gzip-compressed.")
    e.add_argument("runs", nargs="*", metavar="RUN",
                   help="ids, EXPERIMENT, EXPERIMENT@MACHINE or @MACHINE (see `cpulab compare`)")
    e.add_argument("--latest", action="store_true",
                   help="the newest run of each experiment on each machine")
    e.add_argument("--all", action="store_true", help="every stored run")
    e.add_argument("-o", "--output", type=Path, required=True, metavar="FILE",
                   help="the bundle to write (FILE.json, or FILE.json.gz compressed)")
    e.add_argument("--gzip", action="store_true", help="compress whatever the name")
    e.add_argument("--origin", metavar="NAME",
                   help="name the machine the runs were made on (a fleet host), for runs "
                        "that have none yet")
    add_db_argument(e)
    e.add_argument("--json", action="store_true", help="print JSON")
    e.set_defaults(func=cmd_export)

    i = sub.add_parser(
        "import", help="bundles into the results database (a run already there is kept once)",
        description="Read each bundle whole and check it against its JSON Schema (a "
                    "truncated, corrupt, edited or newer-schema bundle, or one whose records "
                    "the schema refuses, is refused and nothing is stored) and add its runs "
                    "in one transaction; runs already in the database are not added again.")
    i.add_argument("bundles", nargs="+", metavar="BUNDLE")
    i.add_argument("--origin", metavar="NAME",
                   help="name the machine of runs that carry no origin of their own")
    add_db_argument(i)
    i.add_argument("--json", action="store_true", help="print JSON")
    i.set_defaults(func=cmd_import)
