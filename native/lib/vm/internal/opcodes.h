/* The instruction set, listed once.
 *
 * X(NAME, SIGNATURE, DOC): the opcode enum, the mnemonics, the assembler's
 * operand parsing and every technique's handler table are expanded from this
 * list; each handler body is written once, in insns.def, after VM_INSN(NAME).
 * A name listed here without a body, or a body without a listed name, fails to
 * compile (the tables of the function-per-instruction techniques name every
 * handler; insns.def uses VM_OP_<NAME>).
 *
 * Encoding: one 64-bit word per instruction, op in bits 0..7, A 8..15, B 16..23,
 * C 24..31, D (signed 32 bits) 32..63. Register operands fill A, B, C in order;
 * the one non-register operand (I, K, L, F) goes to D. A label becomes the
 * offset from the jumping instruction; K an index into the constant table.
 * Signature letters: W register written, R register read, C call window
 * (arguments from here, result here, everything above clobbered), I int32
 * immediate, K number constant, L label, F function. The assembler's
 * verifier reads the W/R/C letters to prove no register is read before it
 * is written.
 */
#ifndef VM_INTERNAL_OPCODES_H
#define VM_INTERNAL_OPCODES_H

#define VM_OPCODES(X)                                                          \
  X(MOV, "WR", "R[A] = R[B]")                                                  \
  X(LOADI, "WI", "R[A] = integer D")                                           \
  X(LOADK, "WK", "R[A] = K[D] (number constant)")                              \
  X(LOADNIL, "W", "R[A] = nil")                                                \
  X(ADD, "WRR", "R[A] = R[B] + R[C]")                                          \
  X(SUB, "WRR", "R[A] = R[B] - R[C]")                                          \
  X(MUL, "WRR", "R[A] = R[B] * R[C]")                                          \
  X(DIV, "WRR", "R[A] = R[B] / R[C] as a float")                              \
  X(IDIV, "WRR", "R[A] = floor(R[B] / R[C])")                                  \
  X(MOD, "WRR", "R[A] = R[B] - floor(R[B] / R[C]) * R[C]")                     \
  X(ADDVN, "WRK", "R[A] = R[B] + K[D]")                                        \
  X(SUBVN, "WRK", "R[A] = R[B] - K[D]")                                        \
  X(MULVN, "WRK", "R[A] = R[B] * K[D]")                                        \
  X(NEG, "WR", "R[A] = -R[B]")                                                 \
  X(SQRT, "WR", "R[A] = sqrt(R[B]) as a float")                               \
  X(TOFLOAT, "WR", "R[A] = R[B] as a float")                                   \
  X(TOINT, "WR", "R[A] = R[B] truncated to an integer")                        \
  X(BAND, "WRR", "R[A] = R[B] & R[C] (integers)")                              \
  X(BOR, "WRR", "R[A] = R[B] | R[C] (integers)")                               \
  X(BXOR, "WRR", "R[A] = R[B] ^ R[C] (integers)")                              \
  X(SHL, "WRR", "R[A] = R[B] << R[C] (32-bit, 0 past 31)")                     \
  X(SHR, "WRR", "R[A] = R[B] >> R[C] (logical, 32-bit, 0 past 31)")            \
  X(JMP, "L", "jump to D")                                                     \
  X(JLT, "RRL", "if R[A] < R[B] jump to D")                                    \
  X(JLE, "RRL", "if R[A] <= R[B] jump to D")                                   \
  X(JEQ, "RRL", "if R[A] == R[B] jump to D")                                   \
  X(JNE, "RRL", "if R[A] != R[B] jump to D")                                   \
  X(CALL, "CF", "R[A] = F(R[A], R[A+1], ...); clobbers R[A..]")               \
  X(RET, "R", "return R[A]")                                                   \
  X(NEWARR, "WRR", "R[A] = array of R[B] elements, each R[C]")                 \
  X(GETI, "WRR", "R[A] = R[B][R[C]] (0-based)")                                \
  X(SETI, "RRR", "R[A][R[B]] = R[C]")                                          \
  X(LEN, "WR", "R[A] = length of array R[B]")

enum {
#define VM_X_ENUM(name, sig, doc) VM_OP_##name,
  VM_OPCODES(VM_X_ENUM)
#undef VM_X_ENUM
  VM_OP__COUNT
};

_Static_assert(VM_OP__COUNT <= 256, "opcodes must fit the 8-bit op field");

#endif /* VM_INTERNAL_OPCODES_H */
