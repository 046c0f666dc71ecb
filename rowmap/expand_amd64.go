package rowmap

import "golang.org/x/sys/cpu"

// haveExpand reports whether this CPU runs expandAVX2 (AVX2 for the
// permutes, POPCNT for the chunk counts; the OS must save the YMM state,
// which cpu.X86.HasAVX2 includes).
var haveExpand = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

//go:noescape
func expandAVX2(lab, off *uint32, del *uint64, groups, live int)

//go:noescape
func expandIdentAVX2(lab *uint32, vals *byte, off *uint32, del *uint64, groups, live int)

// expandPerm[m] is the VPERMD index vector for an 8-row chunk whose live
// rows are the set bits of m (see expand_amd64.s).
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
