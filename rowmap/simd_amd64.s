#include "textflag.h"

// func expandAVX2(lab, off *uint32, del *uint64, groups, live int)
//
// lab[0:live] and off[0:live] hold, in row order, the labels and offsets of
// the live rows of groups groups of 64 rows; del holds the groups' deletion
// words. The values are spread in place over the groups' rows, NullLabel at
// deleted rows.
//
// The walk runs from the last 8-row chunk to the first: a chunk's values
// sit at or before its rows, so every value is read before any chunk's
// store can reach it (lanes a chunk loads past its own values may already
// be overwritten, but its permutation never selects them). Per chunk the
// live-row byte indexes expandPerm: lane j takes compact value
// popcount(live below j), or has its top bit set when row j is deleted, and
// an arithmetic shift of the permutation by 31 turns those lanes into the
// all-ones NullLabel to OR in.
TEXT ·expandAVX2(SB), NOSPLIT, $0-40
	MOVQ lab+0(FP), R8
	MOVQ off+8(FP), R9
	MOVQ del+16(FP), R10
	MOVQ groups+24(FP), R11
	MOVQ live+32(FP), DX
	LEAQ ·expandPerm(SB), R12
	TESTQ R11, R11
	JZ   done
	MOVQ R11, AX
	SHLQ $8, AX           // 64 rows of 4 bytes per group
	LEAQ (R8)(AX*1), DI   // one past the last row of lab
	LEAQ (R9)(AX*1), SI   // and of off
	LEAQ (R10)(R11*8), R10

group:
	SUBQ $8, R10
	MOVQ (R10), AX
	NOTQ AX               // live rows of the group
	MOVQ $8, CX

chunk:
	MOVQ    AX, BX
	SHRQ    $56, BX       // live rows of the group's last unplaced chunk
	POPCNTQ BX, R13
	SUBQ    R13, DX       // index of the chunk's first compact value
	SHLQ    $5, BX
	VMOVDQU (R12)(BX*1), Y0
	VPSRAD  $31, Y0, Y1
	SUBQ    $32, DI
	SUBQ    $32, SI
	VPERMD  (R8)(DX*4), Y0, Y2
	VPOR    Y1, Y2, Y2
	VMOVDQU Y2, (DI)
	VPERMD  (R9)(DX*4), Y0, Y3
	VPOR    Y1, Y3, Y3
	VMOVDQU Y3, (SI)
	SHLQ    $8, AX
	DECQ    CX
	JNZ     chunk

	DECQ R11
	JNZ  group

done:
	VZEROUPPER
	RET

// func expandIdentAVX2(lab *uint32, vals *byte, off *uint32, del *uint64, groups, live int)
//
// As expandAVX2, for a block without a dictionary, whose labels are its
// packed values: lab's values come from vals (one little-endian uint16 per
// live row, widened here) rather than from a compact copy in lab, so the
// rank pass before it stores only offsets. off is spread in place as in
// expandAVX2.
TEXT ·expandIdentAVX2(SB), NOSPLIT, $0-48
	MOVQ lab+0(FP), DI
	MOVQ vals+8(FP), R8
	MOVQ off+16(FP), R9
	MOVQ del+24(FP), R10
	MOVQ groups+32(FP), R11
	MOVQ live+40(FP), DX
	LEAQ ·expandPerm(SB), R12
	TESTQ R11, R11
	JZ   identdone
	MOVQ R11, AX
	SHLQ $8, AX
	LEAQ (DI)(AX*1), DI
	LEAQ (R9)(AX*1), SI
	LEAQ (R10)(R11*8), R10

identgroup:
	SUBQ $8, R10
	MOVQ (R10), AX
	NOTQ AX
	MOVQ $8, CX

identchunk:
	MOVQ      AX, BX
	SHRQ      $56, BX
	POPCNTQ   BX, R13
	SUBQ      R13, DX
	SHLQ      $5, BX
	VMOVDQU   (R12)(BX*1), Y0
	VPSRAD    $31, Y0, Y1
	SUBQ      $32, DI
	SUBQ      $32, SI
	VPMOVZXWD (R8)(DX*2), Y2
	VPERMD    Y2, Y0, Y2
	VPOR      Y1, Y2, Y2
	VMOVDQU   Y2, (DI)
	VPERMD    (R9)(DX*4), Y0, Y3
	VPOR      Y1, Y3, Y3
	VMOVDQU   Y3, (SI)
	SHLQ      $8, AX
	DECQ      CX
	JNZ       identchunk

	DECQ R11
	JNZ  identgroup

identdone:
	VZEROUPPER
	RET

// func countEqualAVX2(p *uint32, n int, want uint32) int
//
// The number of the n uint32s at p equal to want. Four accumulators of
// eight lanes each take 32 values per iteration (VPCMPEQD gives -1 per
// match, subtracted in); lanes cannot overflow below 2^31 values per lane.
// The last n mod 32 values are counted one at a time.
TEXT ·countEqualAVX2(SB), NOSPLIT, $0-32
	MOVQ         p+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVL         want+16(FP), AX
	MOVQ         AX, X0
	VPBROADCASTD X0, Y0
	VPXOR        Y1, Y1, Y1
	VPXOR        Y2, Y2, Y2
	VPXOR        Y3, Y3, Y3
	VPXOR        Y4, Y4, Y4
	MOVQ         CX, DX
	SHRQ         $5, DX
	JZ           countreduce

countloop:
	VPCMPEQD (SI), Y0, Y5
	VPCMPEQD 32(SI), Y0, Y6
	VPCMPEQD 64(SI), Y0, Y7
	VPCMPEQD 96(SI), Y0, Y8
	VPSUBD   Y5, Y1, Y1
	VPSUBD   Y6, Y2, Y2
	VPSUBD   Y7, Y3, Y3
	VPSUBD   Y8, Y4, Y4
	ADDQ     $128, SI
	DECQ     DX
	JNZ      countloop

countreduce:
	VPADDD       Y2, Y1, Y1
	VPADDD       Y4, Y3, Y3
	VPADDD       Y3, Y1, Y1
	VEXTRACTI128 $1, Y1, X2
	VPADDD       X2, X1, X1
	VPSHUFD      $0x4e, X1, X2
	VPADDD       X2, X1, X1
	VPSHUFD      $0xb1, X1, X2
	VPADDD       X2, X1, X1
	VMOVD        X1, R8
	ANDQ         $31, CX
	JZ           countdone

counttail:
	XORL  R9, R9
	CMPL  AX, (SI)
	SETEQ R9B
	ADDQ  R9, R8
	ADDQ  $4, SI
	DECQ  CX
	JNZ   counttail

countdone:
	VZEROUPPER
	MOVQ R8, ret+24(FP)
	RET

// func countPackedAVX2(p *byte, units int, want uint32, tab *packedTab) int
//
// The number of values equal to want among units groups of 8 values packed
// LSB first at width tab's w from p. Eight values of width w fill w bytes,
// so group u starts at byte u*w and its value k lies in bytes k*w/8 to
// k*w/8+2 of the group at bit shift k*w%8: one 16-byte load broadcast to
// both halves, a byte shuffle putting each value's bytes in its own 32-bit
// lane, a per-lane shift and a mask give the 8 values. Reads 16 bytes at
// each group start, which the caller keeps inside the buffer.
TEXT ·countPackedAVX2(SB), NOSPLIT, $0-40
	MOVQ         p+0(FP), SI
	MOVQ         units+8(FP), CX
	MOVL         want+16(FP), AX
	MOVQ         tab+24(FP), DI
	MOVQ         AX, X0
	VPBROADCASTD X0, Y0
	VMOVDQU      (DI), Y1
	VMOVDQU      32(DI), Y2
	VPBROADCASTD 64(DI), Y3
	MOVQ         72(DI), DX
	VPXOR        Y4, Y4, Y4
	TESTQ        CX, CX
	JZ           packedreduce

packedloop:
	VBROADCASTI128 (SI), Y5
	VPSHUFB        Y1, Y5, Y5
	VPSRLVD        Y2, Y5, Y5
	VPAND          Y3, Y5, Y5
	VPCMPEQD       Y0, Y5, Y5
	VPSUBD         Y5, Y4, Y4
	ADDQ           DX, SI
	DECQ           CX
	JNZ            packedloop

packedreduce:
	VEXTRACTI128 $1, Y4, X5
	VPADDD       X5, X4, X4
	VPSHUFD      $0x4e, X4, X5
	VPADDD       X5, X4, X4
	VPSHUFD      $0xb1, X4, X5
	VPADDD       X5, X4, X4
	VMOVD        X4, AX
	VZEROUPPER
	MOVQ         AX, ret+32(FP)
	RET
