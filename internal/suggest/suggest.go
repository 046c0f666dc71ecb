package suggest

import "strings"

// Closest returns the candidate nearest to name and whether one is close
// enough to offer. Ties go to the earlier candidate, so callers list their
// names in the order they would rather suggest them. A candidate equal to
// name (ignoring case) is returned at once.
func Closest(name string, candidates []string) (string, bool) {
	lname := strings.ToLower(name)
	best, bestD := "", -1
	limit := maxDistance(len([]rune(lname)))
	for _, c := range candidates {
		d := distance(lname, strings.ToLower(c), limit)
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = c, d
			if d == 0 {
				break
			}
		}
	}
	return best, bestD >= 0
}

// Hint is Closest phrased for an error message: ` (did you mean "x"?)`, or
// "" when nothing is close.
func Hint(name string, candidates []string) string {
	if c, ok := Closest(name, candidates); ok {
		return ` (did you mean "` + c + `"?)`
	}
	return ""
}

// maxDistance is how many edits a name of n characters may be away from a
// suggestion.
func maxDistance(n int) int {
	switch {
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	}
	return 3
}

// distance is the optimal string alignment distance between a and b (by
// runes), or limit+1 once it must exceed limit (the rows are cut short
// then: names are short, but a pasted statement as a "name" need not be
// compared in full).
func distance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	// Three rows of the dynamic programme: two back (for swaps), one back,
	// and the current one.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
