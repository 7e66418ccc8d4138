/* opvm driver: `opvm N op:units ...` runs the loop body N times and prints the checksum.
 * Example: `opvm 100000 slow:8 work:1 mix:1` spends 80% of its work in SLOW. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opvm.h"

static int parse_op(const char *word, opvm_insn *out)
{
    static const char *const names[] = { "slow", "work", "mix" };
    const char *colon = strchr(word, ':');
    if (!colon)
        return -1;
    for (uint32_t op = 0; op < sizeof names / sizeof names[0]; op++) {
        if ((size_t)(colon - word) == strlen(names[op]) && !strncmp(word, names[op], colon - word)) {
            out->op = op;
            out->arg = (uint32_t)strtoul(colon + 1, NULL, 10);
            return 0;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s N op:units...  (op: slow, work, mix)\n", argv[0]);
        return 2;
    }
    int n = argc - 2;
    opvm_insn *code = calloc((size_t)n + 3, sizeof *code);
    if (!code)
        return 1;
    for (int i = 0; i < n; i++) {
        if (parse_op(argv[i + 2], &code[i]) != 0) {
            fprintf(stderr, "bad instruction: %s\n", argv[i + 2]);
            return 2;
        }
    }
    code[n] = (opvm_insn){ OP_DEC, 0 };
    code[n + 1] = (opvm_insn){ OP_JNZ, 0 };
    code[n + 2] = (opvm_insn){ OP_HALT, 0 };
    opvm_state st = { .acc = 1, .counter = strtoull(argv[1], NULL, 10) };
    if (st.counter == 0)
        return 2;
    printf("%llu\n", (unsigned long long)opvm_run(code, &st));
    free(code);
    return 0;
}
