//go:build !amd64

package rowmap

// haveAVX2 is false off amd64: the sweep ranks and spreads rows in one Go
// pass (rankRows), and counting runs in Go (countEqualGo).
const haveAVX2 = false

func expandAVX2(lab, off *uint32, del *uint64, groups, live int) {
	panic("rowmap: expandAVX2 without amd64")
}

func expandIdentAVX2(lab *uint32, vals *byte, off *uint32, del *uint64, groups, live int) {
	panic("rowmap: expandIdentAVX2 without amd64")
}

func countEqualAVX2(p *uint32, n int, want uint32) int {
	panic("rowmap: countEqualAVX2 without amd64")
}

func countPackedAVX2(p *byte, units int, want uint32, tab *packedTab) int {
	panic("rowmap: countPackedAVX2 without amd64")
}
