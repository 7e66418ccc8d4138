#include "textflag.h"

// The SIMD halves of pairScan and teddyScan (scan_amd64.go): 32 positions per step,
// AVX2. Each returns at the first block with a candidate; Go verifies it.

// func pairScanAVX2(buf []byte, from, i1, i2 int, b1, m1, b2, m2 byte) (at int, mask uint32)
TEXT ·pairScanAVX2(SB), NOSPLIT, $0-68
	MOVQ buf_base+0(FP), SI
	MOVQ buf_len+8(FP), DX
	MOVQ from+24(FP), CX
	MOVQ i1+32(FP), R8
	MOVQ i2+40(FP), R9
	VPBROADCASTB b1+48(FP), Y0
	VPBROADCASTB m1+49(FP), Y1
	VPBROADCASTB b2+50(FP), Y2
	VPBROADCASTB m2+51(FP), Y3
	LEAQ (SI)(R8*1), R12
	LEAQ (SI)(R9*1), R13
	SUBQ R9, DX
	SUBQ $64, DX // DX: the last start of two blocks

pair64:
	CMPQ CX, DX
	JGT  pair32
	VMOVDQU  (R12)(CX*1), Y4
	VMOVDQU  (R13)(CX*1), Y5
	VMOVDQU  32(R12)(CX*1), Y6
	VMOVDQU  32(R13)(CX*1), Y7
	VPOR     Y1, Y4, Y4
	VPOR     Y3, Y5, Y5
	VPOR     Y1, Y6, Y6
	VPOR     Y3, Y7, Y7
	VPCMPEQB Y0, Y4, Y4
	VPCMPEQB Y2, Y5, Y5
	VPCMPEQB Y0, Y6, Y6
	VPCMPEQB Y2, Y7, Y7
	VPAND    Y4, Y5, Y5
	VPAND    Y6, Y7, Y7
	VPOR     Y5, Y7, Y8
	VPTEST   Y8, Y8
	JNZ      pairfound64
	ADDQ     $64, CX
	JMP      pair64

pairfound64:
	VPMOVMSKB Y5, AX
	TESTL     AX, AX
	JNZ       pairfound
	ADDQ      $32, CX
	VPMOVMSKB Y7, AX
	JMP       pairfound

pair32:
	ADDQ $32, DX // the last start of one block

pairloop:
	CMPQ CX, DX
	JGT  pairdone
	VMOVDQU   (R12)(CX*1), Y4
	VMOVDQU   (R13)(CX*1), Y5
	VPOR      Y1, Y4, Y4
	VPOR      Y3, Y5, Y5
	VPCMPEQB  Y0, Y4, Y4
	VPCMPEQB  Y2, Y5, Y5
	VPAND     Y4, Y5, Y5
	VPMOVMSKB Y5, AX
	TESTL     AX, AX
	JNZ       pairfound
	ADDQ      $32, CX
	JMP       pairloop

pairfound:
	MOVQ CX, at+56(FP)
	MOVL AX, mask+64(FP)
	VZEROUPPER
	RET

pairdone:
	MOVQ CX, at+56(FP)
	MOVL $0, mask+64(FP)
	VZEROUPPER
	RET

// func teddyScanAVX2(buf []byte, from int, masks *[6][32]byte) (at int, mask uint32)
TEXT ·teddyScanAVX2(SB), NOSPLIT, $0-52
	MOVQ    buf_base+0(FP), SI
	MOVQ    buf_len+8(FP), DX
	MOVQ    from+24(FP), CX
	MOVQ    masks+32(FP), AX
	VMOVDQU 0(AX), Y8
	VMOVDQU 32(AX), Y9
	VMOVDQU 64(AX), Y10
	VMOVDQU 96(AX), Y11
	VMOVDQU 128(AX), Y12
	VMOVDQU 160(AX), Y13
	MOVQ    $0x0f0f0f0f0f0f0f0f, BX
	MOVQ    BX, X15
	VPBROADCASTQ X15, Y15
	VPXOR   Y14, Y14, Y14
	SUBQ    $34, DX // DX: the last start of a block (bytes pos..pos+33 are read)

teddyloop:
	CMPQ      CX, DX
	JGT       teddydone
	VMOVDQU   (SI)(CX*1), Y0
	VMOVDQU   1(SI)(CX*1), Y2
	VMOVDQU   2(SI)(CX*1), Y4
	VPSRLW    $4, Y0, Y1
	VPSRLW    $4, Y2, Y3
	VPSRLW    $4, Y4, Y5
	VPAND     Y15, Y0, Y0
	VPAND     Y15, Y1, Y1
	VPAND     Y15, Y2, Y2
	VPAND     Y15, Y3, Y3
	VPAND     Y15, Y4, Y4
	VPAND     Y15, Y5, Y5
	VPSHUFB   Y0, Y8, Y0
	VPSHUFB   Y1, Y9, Y1
	VPSHUFB   Y2, Y10, Y2
	VPSHUFB   Y3, Y11, Y3
	VPSHUFB   Y4, Y12, Y4
	VPSHUFB   Y5, Y13, Y5
	VPAND     Y0, Y1, Y0
	VPAND     Y2, Y3, Y2
	VPAND     Y4, Y5, Y4
	VPAND     Y0, Y2, Y0
	VPAND     Y0, Y4, Y0
	VPCMPEQB  Y14, Y0, Y0
	VPMOVMSKB Y0, AX
	NOTL      AX
	TESTL     AX, AX
	JNZ       teddyfound
	ADDQ      $32, CX
	JMP       teddyloop

teddyfound:
	MOVQ CX, at+40(FP)
	MOVL AX, mask+48(FP)
	VZEROUPPER
	RET

teddydone:
	MOVQ CX, at+40(FP)
	MOVL $0, mask+48(FP)
	VZEROUPPER
	RET
