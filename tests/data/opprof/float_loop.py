"""A float loop whose bytecode dis shows: LOAD_FAST, LOAD_CONST, BINARY_OP (* and +,
specialised to their float forms), STORE_FAST, FOR_ITER, JUMP_BACKWARD."""


def run(n):
    x = 0.0
    for _ in range(n):
        x = x * 1.0000001 + 0.5
    return x


if __name__ == "__main__":
    import sys

    run(int(sys.argv[1]))
