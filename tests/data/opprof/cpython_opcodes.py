"""Run by the CPython under test: its opcode names, and the opcodes (with their
specialised forms) that a script's code objects can execute, as JSON."""

import dis
import json
import opcode
import sys


def code_objects(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield from code_objects(c)


with open(sys.argv[1]) as f:
    module = compile(f.read(), sys.argv[1], "exec")
base = {i.opname for c in code_objects(module) for i in dis.get_instructions(c)}
families = {name: [name, *opcode._specializations.get(name, [])] for name in base}
names = [n for n in opcode.opname if not n.startswith("<")]
print(json.dumps({"opnames": names + list(opcode._specialized_instructions),
                  "executable": sorted({n for f in families.values() for n in f}),
                  "families": families}))
