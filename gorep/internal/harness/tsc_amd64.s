#include "textflag.h"

// func tscStart() uint64: lfence; rdtsc (earlier instructions done before the read)
TEXT ·tscStart(SB), NOSPLIT, $0-8
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET

// func tscStop() uint64: rdtscp; lfence (the measured code done before, nothing after
// started early)
TEXT ·tscStop(SB), NOSPLIT, $0-8
	RDTSCP
	LFENCE
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET
