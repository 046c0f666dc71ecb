//go:build !amd64

package rowmap

// haveExpand is false off amd64: the sweep ranks and spreads rows in one
// Go pass (rankRows).
const haveExpand = false

func expandAVX2(lab, off *uint32, del *uint64, groups, live int) {
	panic("rowmap: expandAVX2 without amd64")
}

func expandIdentAVX2(lab *uint32, vals *byte, off *uint32, del *uint64, groups, live int) {
	panic("rowmap: expandIdentAVX2 without amd64")
}
