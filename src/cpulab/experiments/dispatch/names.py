"""Names shared by the experiment and its verdicts: programs, techniques, targets, and
the metric names of the modelled predictors."""

PROGRAMS = ("fib", "sieve", "nbody", "loops", "fannkuch")
TECHNIQUES = ("switch", "goto-shared", "goto-replicated", "call", "tail", "tail-pn",
              "trampoline")
MUSTTAIL = ("tail", "tail-pn")  # need clang's musttail (tail-pn also preserve_none)
TAIL_CALLS = "tail-pn"  # the S15 design: VM state in argument registers, preserve_none
SPEEDUP_VS_SWITCH = 1.25  # the benchmark targets, clang 19 -O2
SPEEDUP_VS_REPLICATED = 1.05
LAST_TARGET = "miss-rate last-target (model)"
ITTAGE = "miss-rate ittage (model)"
