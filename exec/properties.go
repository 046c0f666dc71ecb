package exec

import "strings"

// SortKey orders by one column.
type SortKey struct {
	Column     int // column index in the node's schema
	Name       string
	Descending bool
	NullsFirst bool
}

func (k SortKey) String() string {
	var b strings.Builder
	b.WriteString(k.Name)
	if k.Descending {
		b.WriteString(" DESC")
	} else {
		b.WriteString(" ASC")
	}
	if k.NullsFirst {
		b.WriteString(" NULLS FIRST")
	}
	return b.String()
}

// Properties describes guarantees of a node's output.
type Properties struct {
	Ordering []SortKey // output ordering guaranteed; nil means none
}

// OrderingSatisfies reports whether an output ordered by have also satisfies
// want, i.e. want is a prefix of have.
func OrderingSatisfies(have, want []SortKey) bool {
	if len(want) > len(have) {
		return false
	}
	for i, w := range want {
		h := have[i]
		if h.Column != w.Column || h.Descending != w.Descending || h.NullsFirst != w.NullsFirst {
			return false
		}
	}
	return true
}
