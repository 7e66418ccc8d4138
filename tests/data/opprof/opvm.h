/* opvm: the smallest interpreter that a per-instruction profiler can be checked against.
 *
 * A program is a loop body of "spin" instructions (SLOW, WORK, MIX), each doing
 * `arg` units of identical work, then DEC and JNZ back to the start. One unit is
 * OPVM_UNIT steps of a dependent xorshift-multiply-add chain (about 6 cycles a step:
 * shift, xor, imul latency 3, add; the shift keeps compilers from folding steps
 * together), so a unit costs ~1500 cycles while DEC, JNZ and one dispatch cost ~10: the expected share of an instruction is its units over all units, within
 * ~1%. Each spin instruction uses its own constants, so a compiler cannot merge their
 * handlers into one block of code (which would make their samples indistinguishable).
 *
 * The same program runs under several engines (switch, tail calls, computed goto);
 * each defines opvm_run(). All print the same checksum for the same program.
 */
#ifndef OPVM_H
#define OPVM_H

#include <stdint.h>

#define OPVM_UNIT 256u

enum opvm_op { OP_SLOW, OP_WORK, OP_MIX, OP_DEC, OP_JNZ, OP_HALT, OPVM_NOPS };

typedef struct opvm_insn {
    uint32_t op;
    uint32_t arg; /* units for spin instructions, target index for JNZ */
} opvm_insn;

typedef struct opvm_state {
    uint64_t acc;     /* the checksum the spin instructions update */
    uint64_t counter; /* loop counter that DEC decrements and JNZ tests */
} opvm_state;

/* The one unit of work; always inlined so that its samples carry an inline frame whose
 * call site lies inside the instruction that called it. */
static inline __attribute__((always_inline)) uint64_t
opvm_spin(uint64_t x, uint32_t units, uint64_t mul, uint64_t add)
{
    for (uint64_t i = 0; i < (uint64_t)units * OPVM_UNIT; i++)
        x = (x ^ (x >> 31)) * mul + add;
    return x;
}

/* Run `code` until HALT; returns the checksum. */
uint64_t opvm_run(const opvm_insn *code, opvm_state *st);

#endif
