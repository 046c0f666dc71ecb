package value

import "math"

// CompareFloat orders floats as PostgreSQL's float8_cmp_internal: NaN equals
// NaN and is greater than every other value; -0 equals 0. exec's and
// physexpr's comparisons, sorts, min and max order floats by it.
func CompareFloat[T float32 | float64](a, b T) int {
	an, bn := math.IsNaN(float64(a)), math.IsNaN(float64(b))
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
