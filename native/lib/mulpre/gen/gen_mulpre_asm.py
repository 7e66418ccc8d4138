#!/usr/bin/env python3
"""Emit src/mulpre_asm.S: z[2N] = x[N] * y[N] and z[2N] = x[N]^2 for N = 1..9, x86-64.

Design. The product is computed row by row (row i adds x * y[i] at limb i) with the
whole running sum kept in registers: N accumulator limbs, plus one register `hi` for the
high half of the last product (it becomes the new top limb), one `lo` scratch, rdx (the
implicit mulx operand, y[i]), and the pointers z, x, y: N + 6 registers, so N <= 9 fits
the 15 general registers that x86-64 leaves beside rsp. Nothing is spilled; the limb
that a row finishes (position i) is stored to z[i] at once and its register becomes the
next row's `hi`.

Within a row, two carry chains run interleaved: the low halves go into the accumulator
with `adox` (carry in OF) and the high halves with `adcx` (carry in CF), so the adds
of one row never wait for each other's flags. A row opens with `xor lo, lo`, the zero
idiom, which clears both CF and OF; it closes with `mov lo, 0` (mov keeps the flags)
and two adds that fold the pending OF and CF into the new top limb (the top cannot
overflow: x * y[i] plus an N-limb sum is below 2^(64(N+1))). A dedicated zero register
instead of `mov lo, 0` (N + 7 registers, so N <= 8) measured 9-14% faster at N = 2, 7, 8,
0-12% at N = 4, and 3% slower at N = 3 and 6 (an extra push) on Zen 4; the seed's N + 6
plan is kept. mcl folds CF with `adc` instead of `adcx` (the same flags in, only CF out);
on a Xeon (family 6, model 207) the two folds measured within 3% of each other at every
N = 3..9 in throughput and in both chains, either sign (both forms assembled side by
side, their positions swapped between runs), so `adcx` is kept.

At N = 1 the one product is a plain `mul` of two registers (rdx:rax = rax * rdx), as in
mcl: on Zen 5 (family 26) `mulx` with a memory operand there took 3.9 TSC ticks per call
in throughput against 2.6 for `mul` and for a load plus a register `mulx`, and a chain
through x took 3.3 with `mul`, 3.9 with the register `mulx`.

Operand order. A row loads one limb of the streamed operand into rdx and reads the other
operand whole; the multiply that streams y (`mulpre_asm_mul_N`) needs all of x in its first
row, the one that streams x (`mulpre_asm_mul_sx_N`) all of y. Where an operand is the
previous call's product (a chain), streaming it lets each row start as soon as the limb
it needs is stored: on a Xeon (family 6 model 207) the wrong order was 1.1-1.4x slower
than mcl, which streams x; the caller picks the order (mulpre_mul_stream_fn_get).

Per N >= 2 this gives N^2 mulx, N + (N-1)(2N+1) add-type, N-1 xor and 3N + (N-1) + 1 mov
(loads of y[i], stores of z, zeroes, the copy of the y pointer); for N = 4 that is 16 mulx,
31 add-type and 16 mov, the instruction mix of the hand-written code in seed S11.

Squaring uses the same row scheme on the triangle sum_{i<j} x_i x_j (N(N-1)/2 mulx),
storing each finished limb, then one pass that doubles the triangle (`adcx r, r`, CF)
and adds the squares x_i^2 (N mulx, `adox`, OF): N(N+1)/2 mulx in all.

Registers beyond the nine caller-saved ones are callee-saved (rbx, rbp, r12-r15): they
are pushed and popped, never used to address memory. The tests assemble this file and
check, per function, the mulx count and that no operand addresses memory through rsp
or rbp.

Usage: gen_mulpre_asm.py [-o PATH] [--check]   (default PATH: ../src/mulpre_asm.S)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

MAX_N = 9
OUT_DEFAULT = Path(__file__).resolve().parent.parent / "src" / "mulpre_asm.S"
COMMAND = "uv run python native/lib/mulpre/gen/gen_mulpre_asm.py"

# Argument registers (System V): z = rdi, x = rsi, y = rdx (moved: rdx feeds mulx).
Z, X, RDX = "rdi", "rsi", "rdx"
Y = "rcx"
LO = "rax"
LO32 = "eax"  # 32-bit writes zero the upper half; shorter encodings
# Accumulator and `hi` registers, caller-saved first so that small N pushes nothing.
POOL = ("r8", "r9", "r10", "r11", "rbx", "rbp", "r12", "r13", "r14", "r15")
CALLER_SAVED = {"r8", "r9", "r10", "r11"}
# The operand each multiply reads one limb per row: y (mulpre_asm_mul_N), x (_sx_N).
STREAMS = ("y", "x")


def mem(base: str, limb: int) -> str:
    return f"qword ptr [{base} + {8 * limb}]" if limb else f"qword ptr [{base}]"


class Func:
    """One function's instruction list, with a push/pop frame for callee-saved registers."""

    def __init__(self, name: str, nregs: int, comment: str):
        self.name = name
        self.regs = list(POOL[:nregs])
        self.saved = [r for r in self.regs if r not in CALLER_SAVED]
        self.body: list[str] = []
        self.comment = comment

    def op(self, text: str, why: str = "") -> None:
        self.body.append(f"\t{text:<40}# {why}" if why else f"\t{text}")

    def note(self, text: str) -> None:
        self.body.append(f"\t# {text}")

    def render(self) -> str:
        head = [
            "",
            f"# {self.comment}",
            "\t.p2align 4",
            f"\t.globl {self.name}",
            f"\t.hidden {self.name}",
            f"\t.type {self.name}, @function",
            f"{self.name}:",
        ]
        head += [f"\tpush {r}" for r in self.saved]
        tail = [f"\tpop {r}" for r in reversed(self.saved)]
        tail += ["\tret", f"\t.size {self.name}, .-{self.name}"]
        return "\n".join(head + self.body + tail)


def first_row(f: Func, acc: list[str], xs: list[int], z_limb: int, src: str = X) -> None:
    """acc[0..len(xs)-1] = rdx * src[xs] >> 64 limbs; the lowest limb goes to z[z_limb].

    One carry chain (plain add/adc): nothing is accumulated yet.
    """
    n = len(xs)
    f.op(f"mulx {acc[0]}, {LO}, {mem(src, xs[0])}")
    f.op(f"mov {mem(Z, z_limb)}, {LO}", f"z[{z_limb}] is final")
    for j in range(1, n):
        f.op(f"mulx {acc[j]}, {LO}, {mem(src, xs[j])}")
        f.op(f"{'add' if j == 1 else 'adc'} {acc[j - 1]}, {LO}")
    if n > 1:
        f.op(f"adc {acc[n - 1]}, 0", "top limb takes the last carry")


def add_row(f: Func, acc: list[str], hi: str, xs: list[int], z_limb: int,
            src: str = X) -> list[str]:
    """acc += rdx * src[xs]; store acc[0] to z[z_limb]; return the new accumulator.

    `acc` holds len(xs) limbs; the result has the same length, shifted one limb up: the
    stored low limb leaves, `hi` comes in as the new top.
    """
    n = len(xs)
    assert len(acc) == n
    f.op(f"xor {LO32}, {LO32}", "zero idiom: CF = OF = 0")
    for j in range(n):
        f.op(f"mulx {hi}, {LO}, {mem(src, xs[j])}")
        f.op(f"adox {acc[j]}, {LO}", "low halves: OF chain")
        if j == 0:
            f.op(f"mov {mem(Z, z_limb)}, {acc[0]}", f"z[{z_limb}] is final")
        if j < n - 1:
            f.op(f"adcx {acc[j + 1]}, {hi}", "high halves: CF chain")
    f.op(f"mov {LO32}, 0", "mov keeps the flags")
    f.op(f"adox {hi}, {LO}")
    f.op(f"adcx {hi}, {LO}")
    return acc[1:] + [hi]


def gen_mul(n: int, stream: str = "y") -> Func:
    """The multiply that reads `stream` ("y" or "x") one limb per row into rdx and the
    other operand whole in every row (see the docstring: which one a call site wants)."""
    name = f"mulpre_asm_mul_{n}" if stream == "y" else f"mulpre_asm_mul_sx_{n}"
    f = Func(name, n + 1,
             f"void {name}(uint64_t z[{2 * n}], const uint64_t x[{n}], "
             f"const uint64_t y[{n}]): rows stream {stream}")
    regs = f.regs
    acc, spare = regs[:n], regs[n]
    xs = list(range(n))
    # y arrives in rdx, which mulx needs: it moves to rcx first.
    rows, whole = (Y, X) if stream == "y" else (X, Y)
    if n == 1:  # one product: no rows, no order (see the docstring)
        f.op(f"mov {LO}, {mem(X, 0)}")
        f.op(f"mov {RDX}, {mem(RDX, 0)}")
        f.op(f"mul {RDX}", "rdx:rax = x[0] * y[0]")
        f.op(f"mov {mem(Z, 0)}, {LO}")
        f.op(f"mov {mem(Z, 1)}, {RDX}")
        return f
    f.op(f"mov {Y}, {RDX}", "rdx is the implicit mulx operand")
    f.op(f"mov {RDX}, {mem(rows, 0)}")
    f.note("row 0")
    first_row(f, acc, xs, 0, whole)
    for i in range(1, n):
        f.note(f"row {i}")
        f.op(f"mov {RDX}, {mem(rows, i)}")
        old0 = acc[0]
        acc = add_row(f, acc, spare, xs, i, whole)
        spare = old0
    f.note(f"the top {n} limbs")
    for k, r in enumerate(acc):
        f.op(f"mov {mem(Z, n + k)}, {r}")
    return f


def gen_sqr(n: int) -> Func:
    f = Func(f"mulpre_asm_sqr_{n}", max(n, 3),
             f"void mulpre_asm_sqr_{n}(uint64_t z[{2 * n}], const uint64_t x[{n}])")
    regs = f.regs
    if n == 1:
        f.op(f"mov {RDX}, {mem(X, 0)}")
        f.op(f"mulx {regs[0]}, {LO}, {RDX}")
        f.op(f"mov {mem(Z, 0)}, {LO}")
        f.op(f"mov {mem(Z, 1)}, {regs[0]}")
        return f
    # Triangle t = sum_{i<j} x_i x_j B^(i+j), limbs 1 .. 2n-2; limb 2n-1 of t is 0.
    # Row i adds x_i * x[i+1 .. n-1] at limb 2i+1; limbs below it are final.
    f.note("triangle row 0")
    f.op(f"mov {RDX}, {mem(X, 0)}")
    acc, free = regs[: n - 1], regs[n - 1:]
    first_row(f, acc, list(range(1, n)), 1)
    for i in range(1, n - 1):
        f.note(f"triangle row {i}")
        f.op(f"mov {RDX}, {mem(X, i)}")
        f.op(f"mov {mem(Z, 2 * i)}, {acc[0]}", f"t[{2 * i}] is final")
        free.append(acc[0])
        acc = acc[1:]
        hi = free.pop(0)
        old0 = acc[0]
        acc = add_row(f, acc, hi, list(range(i + 1, n)), 2 * i + 1)
        free.append(old0)
    # acc now holds t[2n-2] alone; t[1 .. 2n-3] are in z.
    live = {2 * n - 1 - len(acc) + k: r for k, r in enumerate(acc)}
    f.note("z = 2 t + sum x_i^2 B^(2i): doubling in the CF chain, squares in the OF chain")
    dhi, dlo, tmp = free[0], free[1], LO
    f.op(f"xor {LO32}, {LO32}", "zero idiom: CF = OF = 0")
    for i in range(n):
        f.op(f"mov {RDX}, {mem(X, i)}")
        f.op(f"mulx {dhi}, {dlo}, {RDX}")
        for k, d in ((2 * i, dlo), (2 * i + 1, dhi)):
            if k == 0:
                f.op(f"mov {mem(Z, 0)}, {d}")
                continue
            if k == 2 * n - 1:
                f.op(f"mov {LO32}, 0", "t[2n-1] = 0; mov keeps the flags")
                f.op(f"adcx {d}, {tmp}")
                f.op(f"adox {d}, {tmp}")
                f.op(f"mov {mem(Z, k)}, {d}")
                continue
            r = live.get(k)
            if r is None:
                r = tmp
                f.op(f"mov {r}, {mem(Z, k)}", f"t[{k}]")
            f.op(f"adcx {r}, {r}", "doubling: CF chain")
            f.op(f"adox {r}, {d}", "squares: OF chain")
            f.op(f"mov {mem(Z, k)}, {r}")
    return f


def render() -> str:
    parts = [
        f"# Generated by `{COMMAND}`; do not edit.",
        "# mulpre: fixed-size multi-precision multiply and square, x86-64 mulx/adox/adcx.",
        "# See the generator's docstring for the design; tests check this file is current.",
        "#if defined(__x86_64__) && defined(__ELF__)",
        "\t.intel_syntax noprefix",
        "\t.text",
    ]
    for stream in STREAMS:
        for n in range(1, MAX_N + 1):
            parts.append(gen_mul(n, stream).render())
    for n in range(1, MAX_N + 1):
        parts.append(gen_sqr(n).render())
    parts += [
        "",
        "\t.att_syntax prefix",
        "#endif",
        '\t.section .note.GNU-stack,"",@progbits',
        "",
    ]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", type=Path, default=OUT_DEFAULT)
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if the output file differs from what would be written")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is stale: run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
