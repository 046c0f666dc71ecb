package tpcds

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// dateDim is the complete calendar (clause 3.5): one row a day,
// 1900-01-02 to 2100-01-01; sequences count months, weeks (Sunday to
// Saturday) and quarters from 1900; the fiscal year is the calendar year.
func (g *Generator) dateDim(ctx context.Context, emit Emit) error {
	return g.table(ctx, "date_dim", emit, func(b *builder, _ *rand.Rand) error {
		for d := dateFirst; d <= dateLast; d++ {
			t := time.Unix(int64(d)*86400, 0).UTC()
			y, m, dom := t.Date()
			sk := dateSK(d)
			q := (int(m)-1)/3 + 1
			monthSeq := (y-1900)*12 + int(m) - 1
			weekSeq := (sk-2415020)/7 + 1 // 1899-12-31 was a Sunday
			quarterSeq := (y-1900)*4 + q
			dow := int(t.Weekday())
			first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
			last := first.AddDate(0, 1, -1)
			holiday := (m == 12 && dom == 25) || (m == 1 && dom == 1) || (m == 7 && dom == 4)
			following := (m == 12 && dom == 26) || (m == 1 && dom == 2) || (m == 7 && dom == 5)
			b.i(sk)
			b.s(bkey(sk))
			b.date(d)
			b.i(int64(monthSeq))
			b.i(weekSeq)
			b.i(int64(quarterSeq))
			b.i(int64(y))
			b.i(int64(dow))
			b.i(int64(m))
			b.i(int64(dom))
			b.i(int64(q))
			b.i(int64(y))
			b.i(int64(quarterSeq))
			b.i(weekSeq)
			b.s(dayNames[dow])
			b.s(fmt.Sprintf("%dQ%d", y, q))
			b.s(ynOf(holiday))
			b.s(ynOf(dow == 0 || dow == 6))
			b.s(ynOf(following))
			b.i(dateSK(int32(first.Unix() / 86400)))
			b.i(dateSK(int32(last.Unix() / 86400)))
			b.i(sk - 365)
			b.i(sk - 91)
			for range 5 {
				b.s("N")
			}
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

func ynOf(v bool) string {
	if v {
		return "Y"
	}
	return "N"
}

// timeDim is every second of a day: shifts of eight hours, sub-shifts and
// the three meal times (breakfast 6-8, lunch 11-13, dinner 17-19; NULL
// between).
func (g *Generator) timeDim(ctx context.Context, emit Emit) error {
	return g.table(ctx, "time_dim", emit, func(b *builder, _ *rand.Rand) error {
		for s := range int64(86400) {
			h := s / 3600
			b.i(s)
			b.s(bkey(s + 1))
			b.i(s)
			b.i(h)
			b.i(s / 60 % 60)
			b.i(s % 60)
			b.s(map[bool]string{true: "AM", false: "PM"}[h < 12])
			b.s([]string{"third", "first", "second"}[h/8])
			switch {
			case h >= 6 && h < 12:
				b.s("morning")
			case h >= 12 && h < 17:
				b.s("afternoon")
			case h >= 17 && h < 21:
				b.s("evening")
			default:
				b.s("night")
			}
			switch {
			case h >= 6 && h < 9:
				b.s("breakfast")
			case h >= 11 && h < 14:
				b.s("lunch")
			case h >= 17 && h < 20:
				b.s("dinner")
			default:
				b.null()
			}
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

// incomeBand: twenty bands of 10,000 from 0.
func (g *Generator) incomeBand(ctx context.Context, emit Emit) error {
	return g.table(ctx, "income_band", emit, func(b *builder, _ *rand.Rand) error {
		for k := range int64(incomeBands) {
			b.i(k + 1)
			b.i(max(0, k*10000+1))
			b.i((k + 1) * 10000)
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

// householdDemographics is its cross product, income band fastest.
func (g *Generator) householdDemographics(ctx context.Context, emit Emit) error {
	return g.table(ctx, "household_demographics", emit, func(b *builder, _ *rand.Rand) error {
		for i := range int64(g.n.HouseDemo) {
			b.i(i + 1)
			b.i(i%incomeBands + 1)
			b.s(buyPotentials[i/incomeBands%6])
			b.i(i / 120 % 10)
			b.i(i/1200%6 - 1)
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

// customerDemographics is its cross product, gender fastest.
func (g *Generator) customerDemographics(ctx context.Context, emit Emit) error {
	return g.table(ctx, "customer_demographics", emit, func(b *builder, _ *rand.Rand) error {
		for i := range int64(g.n.CustDemo) {
			b.i(i + 1)
			b.s(genders[i%2])
			b.s(maritals[i/2%5])
			b.s(educations[i/10%7])
			b.i((i/70%20 + 1) * 500)
			b.s(credits[i/1400%4])
			b.i(i / 5600 % 7)
			b.i(i / 39200 % 7)
			b.i(i / 274400 % 7)
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (g *Generator) customerAddress(ctx context.Context, emit Emit) error {
	return g.table(ctx, "customer_address", emit, func(b *builder, r *rand.Rand) error {
		for i := range int64(g.n.Address) {
			b.i(i + 1)
			b.s(bkey(i + 1))
			address(b, r, false)
			b.s(pick(r, locationTypes))
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (g *Generator) customer(ctx context.Context, emit Emit) error {
	return g.table(ctx, "customer", emit, func(b *builder, r *rand.Rand) error {
		for i := range int64(g.n.Customer) {
			first, last := pick(r, firstNames), pick(r, lastNames)
			b.i(i + 1)
			b.s(bkey(i + 1))
			b.i(between(r, 1, int64(g.n.CustDemo)))
			b.i(between(r, 1, int64(g.n.HouseDemo)))
			b.i(between(r, 1, int64(g.n.Address)))
			sales := between(r, dateSK(salesFrom), dateSK(salesTo))
			b.i(sales + 30)
			b.i(sales)
			b.s(pick(r, salutations))
			b.s(first)
			b.s(last)
			b.s(yn(r, 0.5))
			b.i(between(r, 1, 28))
			b.i(between(r, 1, 12))
			b.i(between(r, 1924, 1992))
			b.s(pick(r, countries))
			b.null() // c_login: empty in the specification's data
			b.s(fmt.Sprintf("%s.%s@%s.com", first, last, pick(r, syllables)))
			b.i(between(r, dateSK(salesFrom), dateSK(salesTo)))
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

// item: the category decides the class list; the brand is the
// category's stem, the class's stem and a number, its id
// category·class·number (1001001 style).
func (g *Generator) item(ctx context.Context, emit Emit) error {
	return g.table(ctx, "item", emit, func(b *builder, r *rand.Rand) error {
		for i := range int64(g.n.Item) {
			cat := r.IntN(len(categories))
			cls := r.IntN(len(classes[cat]))
			n := between(r, 1, 10)
			price := between(r, 9, 9999)
			manufact := between(r, 1, 1000)
			b.i(i + 1)
			b.s(bkey(i + 1))
			b.date(recStart)
			b.null()
			b.s(text(r, 8, 30, 200))
			b.d(price)
			b.d(price * between(r, 30, 90) / 100)
			b.i(int64(cat+1)*1000000 + int64(cls+1)*1000 + n)
			b.s(fmt.Sprintf("%s%s #%d", categoryStems[cat], classStems[cls%len(classStems)], n))
			b.i(int64(cls + 1))
			b.s(classes[cat][cls])
			b.i(int64(cat + 1))
			b.s(categories[cat])
			b.i(manufact)
			b.s(word(manufact))
			b.s(pick(r, sizes))
			b.s(fmt.Sprintf("%d%s", between(r, 1000000, 9999999), pick(r, formulations)))
			b.s(pick(r, colors))
			b.s(pick(r, units))
			b.s(pick(r, containers))
			b.i(between(r, 1, 100))
			b.s(word(i + 1))
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (g *Generator) promotion(ctx context.Context, emit Emit) error {
	return g.table(ctx, "promotion", emit, func(b *builder, r *rand.Rand) error {
		for i := range int64(g.n.Promotion) {
			start := between(r, dateSK(salesFrom), dateSK(salesTo))
			b.i(i + 1)
			b.s(bkey(i + 1))
			b.i(start)
			b.i(start + between(r, 1, 60))
			b.i(between(r, 1, int64(g.n.Item)))
			b.d(100000)
			b.i(1)
			b.s(word(between(r, 0, 9)))
			b.s(yn(r, 0.5))  // dmail
			b.s(yn(r, 0.05)) // email
			b.s("N")         // catalog
			b.s(yn(r, 0.05)) // tv
			b.s("N")         // radio
			b.s("N")         // press
			b.s(yn(r, 0.05)) // event
			b.s("N")         // demo
			b.s(text(r, 5, 15, 100))
			b.s(pick(r, purposes))
			b.s("N")
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

// reason: descriptions "reason N", the form the published query texts'
// parameters take (q93: 'reason 28').
func (g *Generator) reason(ctx context.Context, emit Emit) error {
	return g.table(ctx, "reason", emit, func(b *builder, _ *rand.Rand) error {
		for i := range int64(g.n.Reason) {
			b.i(i + 1)
			b.s(bkey(i + 1))
			b.s(fmt.Sprintf("reason %d", i+1))
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (g *Generator) shipMode(ctx context.Context, emit Emit) error {
	return g.table(ctx, "ship_mode", emit, func(b *builder, r *rand.Rand) error {
		for i := range int64(g.n.ShipMode) {
			b.i(i + 1)
			b.s(bkey(i + 1))
			b.s(shipTypes[i%int64(len(shipTypes))])
			b.s(shipCodes[i%int64(len(shipCodes))])
			b.s(carriers[i%int64(len(carriers))])
			b.s(text(r, 1, 3, 20))
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (g *Generator) store(ctx context.Context, emit Emit) error {
	return g.table(ctx, "store", emit, func(b *builder, r *rand.Rand) error {
		for i := range int64(g.n.Store) {
			b.i(i + 1)
			b.s(bkey(i + 1))
			b.date(recStart)
			b.null()
			b.null()
			b.s(syllables[i%9]) // 'ought', 'able', 'pri', 'ese', ...
			b.i(between(r, 200, 300))
			b.i(between(r, 5000000, 10000000))
			b.s(pick(r, hours))
			b.s(name(r))
			b.i(between(r, 1, 10))
			b.s("Unknown")
			b.s(text(r, 5, 15, 100))
			b.s(name(r))
			b.i(1)
			b.s("Unknown")
			b.i(1)
			b.s("Unknown")
			address(b, r, true)
			b.d(between(r, 0, 11))
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (g *Generator) warehouse(ctx context.Context, emit Emit) error {
	return g.table(ctx, "warehouse", emit, func(b *builder, r *rand.Rand) error {
		for i := range int64(g.n.Warehouse) {
			b.i(i + 1)
			b.s(bkey(i + 1))
			b.s(text(r, 2, 3, 20))
			b.i(between(r, 50000, 1000000))
			address(b, r, true)
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

var ccNames = []string{"NY Metro", "Mid Atlantic", "North Midwest", "California", "Pacific Northwest", "Hawaii/Alaska"}

func (g *Generator) callCenter(ctx context.Context, emit Emit) error {
	return g.table(ctx, "call_center", emit, func(b *builder, r *rand.Rand) error {
		for i := range int64(g.n.CallCenter) {
			b.i(i + 1)
			b.s(bkey(i + 1))
			b.date(recStart)
			b.null()
			b.null()
			b.i(between(r, dateSK(days(1998, 1, 1)), dateSK(days(2000, 1, 1))))
			b.s(ccNames[i%int64(len(ccNames))])
			b.s(pick(r, ccClasses))
			b.i(between(r, 100, 70000))
			b.i(between(r, 1000, 3000000))
			b.s(pick(r, hours))
			b.s(name(r))
			b.i(between(r, 1, 6))
			b.s(pick(r, mktClasses))
			b.s(text(r, 5, 15, 100))
			b.s(name(r))
			b.i(between(r, 1, 6))
			b.s(word(between(r, 1, 6)))
			b.i(between(r, 1, 6))
			b.s(word(between(r, 1, 6)))
			address(b, r, true)
			b.d(between(r, 0, 12))
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

// catalogPage: 108 pages a catalog, each catalog a quarter, month or
// half year of the sales range.
func (g *Generator) catalogPage(ctx context.Context, emit Emit) error {
	return g.table(ctx, "catalog_page", emit, func(b *builder, r *rand.Rand) error {
		for i := range int64(g.n.CatalogPage) {
			catalog := i/108 + 1
			start := dateSK(salesFrom) + (catalog-1)%60*30
			b.i(i + 1)
			b.s(bkey(i + 1))
			b.i(start)
			b.i(start + 90)
			b.s("DEPARTMENT")
			b.i(catalog)
			b.i(i%108 + 1)
			b.s(text(r, 5, 15, 100))
			b.s(cpTypes[catalog%3])
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (g *Generator) webSite(ctx context.Context, emit Emit) error {
	return g.table(ctx, "web_site", emit, func(b *builder, r *rand.Rand) error {
		for i := range int64(g.n.WebSite) {
			b.i(i + 1)
			b.s(bkey(i + 1))
			b.date(recStart)
			b.null()
			b.s(fmt.Sprintf("site_%d", i))
			b.i(between(r, dateSK(days(1997, 1, 1)), dateSK(days(1998, 1, 1))))
			b.null()
			b.s("Unknown")
			b.s(name(r))
			b.i(between(r, 1, 6))
			b.s(text(r, 3, 8, 50))
			b.s(text(r, 5, 15, 100))
			b.s(name(r))
			company := between(r, 1, 6)
			b.i(company)
			b.s(syllables[company]) // 'able', 'pri', 'ese', ...
			address(b, r, true)
			b.d(between(r, 0, 12))
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (g *Generator) webPage(ctx context.Context, emit Emit) error {
	return g.table(ctx, "web_page", emit, func(b *builder, r *rand.Rand) error {
		for i := range int64(g.n.WebPage) {
			b.i(i + 1)
			b.s(bkey(i + 1))
			b.date(recStart)
			b.null()
			created := between(r, dateSK(days(1997, 1, 1)), dateSK(salesFrom))
			b.i(created)
			b.i(created + between(r, 0, 100))
			b.s(yn(r, 0.3))
			b.i(between(r, 1, int64(g.n.Customer)))
			b.s("http://www.foo.com")
			b.s(pick(r, wpTypes))
			b.i(between(r, 300, 7000))
			b.i(between(r, 2, 25))
			b.i(between(r, 1, 7))
			b.i(between(r, 0, 4))
			if err := b.row(); err != nil {
				return err
			}
		}
		return nil
	})
}
