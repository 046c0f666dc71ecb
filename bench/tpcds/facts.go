package tpcds

import (
	"context"
	"math/rand/v2"
)

// returnRate is the share of sales lines returned (the specification's
// returns tables hold about a tenth of their sales tables' rows).
const returnRate = 0.10

// nullRate is the share of NULL foreign keys in the fact tables (dsdgen
// leaves some keys empty; queries such as q76 count them).
const nullRate = 0.02

// price is one line's pricing (clause 3.5's pricing model, in cents):
// list price a markup on the wholesale cost, the sales price a discount
// on it, the extended amounts times the quantity, tax and an optional
// coupon on the sales amount, shipping on the list amount.
type price struct {
	qty                                          int64
	wholesale, list, sales                       int64
	extDiscount, extSales, extWholesale, extList int64
	tax, coupon, ship, netPaid                   int64
}

func newPrice(r *rand.Rand) price {
	var p price
	p.qty = between(r, 1, 100)
	p.wholesale = between(r, 100, 10000)
	p.list = p.wholesale * between(r, 100, 300) / 100
	// A discount of at most 99%: no line sells for nothing, so a week's
	// sum of sales is 0 only when nothing sold (q59 divides by such sums;
	// DuckDB makes x/0 NULL where PostgreSQL, and stablerow, raise 22012).
	p.sales = max(1, p.list*between(r, 1, 100)/100)
	p.extDiscount = (p.list - p.sales) * p.qty
	p.extSales = p.sales * p.qty
	p.extWholesale = p.wholesale * p.qty
	p.extList = p.list * p.qty
	p.tax = p.extSales * between(r, 0, 9) / 100
	if r.IntN(5) == 0 {
		p.coupon = p.extSales * between(r, 0, 100) / 100
	}
	p.ship = p.extList * between(r, 0, 50) / 100
	p.netPaid = p.extSales - p.coupon
	return p
}

// fk writes a foreign key, NULL at nullRate.
func fk(b *builder, r *rand.Rand, v int64) {
	if r.Float64() < nullRate {
		b.null()
		return
	}
	b.i(v)
}

// refund writes the return money columns after the quantity: amount,
// tax, amount with tax, fee, shipping, then the amount split into cash,
// reversed charge and credit, and the net loss.
func refund(b *builder, r *rand.Rand, p price, qty int64) {
	amt := p.sales * qty
	tax := amt * between(r, 0, 9) / 100
	fee := between(r, 50, 10000)
	ship := p.wholesale * qty * between(r, 0, 50) / 100
	cash := amt * between(r, 0, 100) / 100
	reversed := (amt - cash) * between(r, 0, 100) / 100
	b.i(qty)
	b.d(amt)
	b.d(tax)
	b.d(amt + tax)
	b.d(fee)
	b.d(ship)
	b.d(cash)
	b.d(reversed)
	b.d(amt - cash - reversed)
	b.d(fee + ship + tax)
}

// customerKeys are one sale's customer and its demographics and address
// (the customer's own, so facts agree with the customer table's joins
// only through the keys, as in the specification's data).
type customerKeys struct{ cust, cdemo, hdemo, addr int64 }

func (g *Generator) someCustomer(r *rand.Rand) customerKeys {
	return customerKeys{
		cust:  between(r, 1, int64(g.n.Customer)),
		cdemo: between(r, 1, int64(g.n.CustDemo)),
		hdemo: between(r, 1, int64(g.n.HouseDemo)),
		addr:  between(r, 1, int64(g.n.Address)),
	}
}

func saleDate(r *rand.Rand) int64 { return between(r, dateSK(salesFrom), dateSK(salesTo)) }

// storeSales: tickets of 1 to 20 lines (one customer, store, date and
// time each); a tenth of the lines come back in store_returns, later and
// at most the quantity sold.
func (g *Generator) storeSales(ctx context.Context, emit Emit) error {
	ret := g.builder("store_returns", emit)
	defer ret.release()
	err := g.table(ctx, "store_sales", emit, func(b *builder, r *rand.Rand) error {
		rows := 0
		for ticket := int64(1); rows < g.n.StoreSales; ticket++ {
			if ticket%1024 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			c := g.someCustomer(r)
			date, tm := saleDate(r), between(r, 8*3600, 21*3600)
			st := between(r, 1, int64(g.n.Store))
			for range min(int(between(r, 1, 20)), g.n.StoreSales-rows) {
				item := between(r, 1, int64(g.n.Item))
				p := newPrice(r)
				b.i(date)
				b.i(tm)
				b.i(item)
				fk(b, r, c.cust)
				fk(b, r, c.cdemo)
				fk(b, r, c.hdemo)
				fk(b, r, c.addr)
				fk(b, r, st)
				fk(b, r, between(r, 1, int64(g.n.Promotion)))
				b.i(ticket)
				b.i(p.qty)
				b.d(p.wholesale)
				b.d(p.list)
				b.d(p.sales)
				b.d(p.extDiscount)
				b.d(p.extSales)
				b.d(p.extWholesale)
				b.d(p.extList)
				b.d(p.tax)
				b.d(p.coupon)
				b.d(p.netPaid)
				b.d(p.netPaid + p.tax)
				b.d(p.netPaid - p.extWholesale)
				if err := b.row(); err != nil {
					return err
				}
				rows++
				if r.Float64() >= returnRate {
					continue
				}
				ret.i(date + between(r, 1, 90))
				ret.i(between(r, 8*3600, 21*3600))
				ret.i(item)
				fk(ret, r, c.cust)
				fk(ret, r, c.cdemo)
				fk(ret, r, c.hdemo)
				fk(ret, r, c.addr)
				fk(ret, r, st)
				fk(ret, r, between(r, 1, int64(g.n.Reason)))
				ret.i(ticket)
				refund(ret, r, p, between(r, 1, p.qty))
				if err := ret.row(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return ret.flush()
}

// channelSale is what a catalog or web order line has in common.
type channelSale struct {
	date, shipDate, tm, item, order int64
	bill, ship                      customerKeys
	mode, warehouse, promo          int64
	p                               price
}

// orders makes catalog or web orders of 4 to 14 lines: one billing and
// one shipping customer (the same in four of five orders), date and
// time; each line its item, ship mode, warehouse (an order often ships
// from several) and a ship date 2 to 90 days after the sale.
func (g *Generator) orders(ctx context.Context, r *rand.Rand, total int, line func(s *channelSale) error) error {
	rows := 0
	for order := int64(1); rows < total; order++ {
		if order%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		s := channelSale{order: order, bill: g.someCustomer(r), date: saleDate(r), tm: between(r, 0, 86399)}
		s.ship = s.bill
		if r.IntN(5) == 0 {
			s.ship = g.someCustomer(r)
		}
		for range min(int(between(r, 4, 14)), total-rows) {
			s.item = between(r, 1, int64(g.n.Item))
			s.shipDate = s.date + between(r, 2, 90)
			s.mode = between(r, 1, shipModes)
			s.warehouse = between(r, 1, int64(g.n.Warehouse))
			s.promo = between(r, 1, int64(g.n.Promotion))
			s.p = newPrice(r)
			if err := line(&s); err != nil {
				return err
			}
			rows++
		}
	}
	return nil
}

// salesMoney writes a catalog or web line's quantity and money columns.
func salesMoney(b *builder, p price) {
	b.i(p.qty)
	b.d(p.wholesale)
	b.d(p.list)
	b.d(p.sales)
	b.d(p.extDiscount)
	b.d(p.extSales)
	b.d(p.extWholesale)
	b.d(p.extList)
	b.d(p.tax)
	b.d(p.coupon)
	b.d(p.ship)
	b.d(p.netPaid)
	b.d(p.netPaid + p.tax)
	b.d(p.netPaid + p.ship)
	b.d(p.netPaid + p.ship + p.tax)
	b.d(p.netPaid - p.extWholesale)
}

func (g *Generator) catalogSales(ctx context.Context, emit Emit) error {
	ret := g.builder("catalog_returns", emit)
	defer ret.release()
	err := g.table(ctx, "catalog_sales", emit, func(b *builder, r *rand.Rand) error {
		return g.orders(ctx, r, g.n.CatalogSales, func(s *channelSale) error {
			cc := between(r, 1, int64(g.n.CallCenter))
			page := between(r, 1, int64(g.n.CatalogPage))
			b.i(s.date)
			b.i(s.tm)
			b.i(s.shipDate)
			fk(b, r, s.bill.cust)
			fk(b, r, s.bill.cdemo)
			fk(b, r, s.bill.hdemo)
			fk(b, r, s.bill.addr)
			fk(b, r, s.ship.cust)
			fk(b, r, s.ship.cdemo)
			fk(b, r, s.ship.hdemo)
			fk(b, r, s.ship.addr)
			fk(b, r, cc)
			fk(b, r, page)
			fk(b, r, s.mode)
			fk(b, r, s.warehouse)
			b.i(s.item)
			fk(b, r, s.promo)
			b.i(s.order)
			salesMoney(b, s.p)
			if err := b.row(); err != nil {
				return err
			}
			if r.Float64() >= returnRate {
				return nil
			}
			ret.i(s.shipDate + between(r, 1, 60))
			ret.i(between(r, 0, 86399))
			ret.i(s.item)
			fk(ret, r, s.bill.cust)
			fk(ret, r, s.bill.cdemo)
			fk(ret, r, s.bill.hdemo)
			fk(ret, r, s.bill.addr)
			fk(ret, r, s.ship.cust)
			fk(ret, r, s.ship.cdemo)
			fk(ret, r, s.ship.hdemo)
			fk(ret, r, s.ship.addr)
			fk(ret, r, cc)
			fk(ret, r, page)
			fk(ret, r, s.mode)
			fk(ret, r, s.warehouse)
			fk(ret, r, between(r, 1, int64(g.n.Reason)))
			ret.i(s.order)
			refund(ret, r, s.p, between(r, 1, s.p.qty))
			return ret.row()
		})
	})
	if err != nil {
		return err
	}
	return ret.flush()
}

func (g *Generator) webSales(ctx context.Context, emit Emit) error {
	ret := g.builder("web_returns", emit)
	defer ret.release()
	err := g.table(ctx, "web_sales", emit, func(b *builder, r *rand.Rand) error {
		return g.orders(ctx, r, g.n.WebSales, func(s *channelSale) error {
			page := between(r, 1, int64(g.n.WebPage))
			b.i(s.date)
			b.i(s.tm)
			b.i(s.shipDate)
			b.i(s.item)
			fk(b, r, s.bill.cust)
			fk(b, r, s.bill.cdemo)
			fk(b, r, s.bill.hdemo)
			fk(b, r, s.bill.addr)
			fk(b, r, s.ship.cust)
			fk(b, r, s.ship.cdemo)
			fk(b, r, s.ship.hdemo)
			fk(b, r, s.ship.addr)
			fk(b, r, page)
			fk(b, r, between(r, 1, int64(g.n.WebSite)))
			fk(b, r, s.mode)
			fk(b, r, s.warehouse)
			fk(b, r, s.promo)
			b.i(s.order)
			salesMoney(b, s.p)
			if err := b.row(); err != nil {
				return err
			}
			if r.Float64() >= returnRate {
				return nil
			}
			ret.i(s.shipDate + between(r, 1, 60))
			ret.i(between(r, 0, 86399))
			ret.i(s.item)
			fk(ret, r, s.bill.cust)
			fk(ret, r, s.bill.cdemo)
			fk(ret, r, s.bill.hdemo)
			fk(ret, r, s.bill.addr)
			fk(ret, r, s.ship.cust)
			fk(ret, r, s.ship.cdemo)
			fk(ret, r, s.ship.hdemo)
			fk(ret, r, s.ship.addr)
			fk(ret, r, page)
			fk(ret, r, between(r, 1, int64(g.n.Reason)))
			ret.i(s.order)
			refund(ret, r, s.p, between(r, 1, s.p.qty))
			return ret.row()
		})
	})
	if err != nil {
		return err
	}
	return ret.flush()
}

// inventory: each week's Thursday, the stock of every other item (the
// items' business keys) in every warehouse; a few counts unknown.
func (g *Generator) inventory(ctx context.Context, emit Emit) error {
	first := dateSK(days(1998, 1, 1))
	return g.table(ctx, "inventory", emit, func(b *builder, r *rand.Rand) error {
		for w := range int64(weeks) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			for it := range int64(g.n.InventoryItems) {
				for wh := range int64(g.n.Warehouse) {
					b.i(first + 7*w)
					b.i(2*it + 1)
					b.i(wh + 1)
					if r.Float64() < nullRate {
						b.null()
					} else {
						b.i(between(r, 0, 1000))
					}
					if err := b.row(); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}
