package rowmap

import "golang.org/x/sys/cpu"

// haveAVX2 reports whether this CPU runs the kernels of simd_amd64.s (AVX2
// for the vectors, POPCNT for expand's chunk counts; the OS must save the
// YMM state, which cpu.X86.HasAVX2 includes).
var haveAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

//go:noescape
func expandAVX2(lab, off *uint32, del *uint64, groups, live int)

//go:noescape
func countEqualAVX2(p *uint32, n int, want uint32) int

//go:noescape
func countPackedAVX2(p *byte, units int, want uint32, tab *packedTab) int

//go:noescape
func expandIdentAVX2(lab *uint32, vals *byte, off *uint32, del *uint64, groups, live int)

// expandPerm[m] is the VPERMD index vector for an 8-row chunk whose live
// rows are the set bits of m (see simd_amd64.s).
var expandPerm = func() (p [256][8]uint32) {
	for m := range 256 {
		k := uint32(0)
		for j := range 8 {
			if m>>j&1 != 0 {
				p[m][j] = k
				k++
			} else {
				p[m][j] = 1 << 31
			}
		}
	}
	return p
}()
