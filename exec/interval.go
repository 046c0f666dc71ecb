package exec

import (
	"math/big"

	"github.com/stablerow/stablerow/value"
)

// AddInterval is PostgreSQL's timestamp + interval (value.TimestampAddInterval).
func AddInterval(us int64, iv Interval) (int64, error) {
	return value.TimestampAddInterval(us, iv.Months, iv.Days, iv.Micros)
}

// intervalSign is the sign PostgreSQL's interval comparison gives iv
// against a zero interval: it counts a month as 30 days and a day as 24
// hours (interval_cmp_value), so '1 month -30 days' is zero.
func intervalSign(iv Interval) int {
	v := new(big.Int).Mul(big.NewInt(iv.Months), big.NewInt(30))
	v.Add(v, big.NewInt(iv.Days))
	v.Mul(v, big.NewInt(86400*1000000))
	v.Add(v, big.NewInt(iv.Micros))
	return v.Sign()
}
