package tpcds

// Sizes are a scale factor's row counts.
type Sizes struct {
	CallCenter, CatalogPage, Customer, Address, CustDemo, HouseDemo, IncomeBand int
	Item, Promotion, Reason, ShipMode, Store, Warehouse, WebPage, WebSite       int
	StoreSales, CatalogSales, WebSales                                          int // line items
	InventoryItems                                                              int // items with weekly stock, per warehouse
}

// specSizes are the row counts of the specification's Table 3-2
// (clause 3.1.2, "Database Row Counts") at scale factors 1, 10 and 100;
// the fact tables scale linearly from SF 1 (store_sales 2,880,404,
// catalog_sales 1,441,548, web_sales 719,384 line items; each returns
// table ~10% of its sales; inventory one row per item business key,
// warehouse and week: 9,000 × 5 × 261 = 11,745,000 at SF 1).
var specSizes = []struct {
	sf float64
	n  Sizes
}{
	{1, Sizes{CallCenter: 6, CatalogPage: 11718, Customer: 100000, Address: 50000, Item: 18000, Promotion: 300, Reason: 35, Store: 12, Warehouse: 5, WebPage: 60, WebSite: 30}},
	{10, Sizes{CallCenter: 24, CatalogPage: 12000, Customer: 500000, Address: 250000, Item: 102000, Promotion: 500, Reason: 45, Store: 102, Warehouse: 10, WebPage: 200, WebSite: 42}},
	{100, Sizes{CallCenter: 30, CatalogPage: 20400, Customer: 2000000, Address: 1000000, Item: 204000, Promotion: 1000, Reason: 55, Store: 402, Warehouse: 15, WebPage: 2040, WebSite: 24}},
}

// The fixed tables: customer_demographics is the cross product of its
// domains (2 genders × 5 marital × 7 education × 20 purchase estimates ×
// 4 credit ratings × 7 × 7 × 7 dependant counts), household_demographics
// 20 income bands × 6 buy potentials × 10 dependants × 6 vehicle counts.
const (
	custDemoFull  = 1920800
	houseDemoFull = 7200
	incomeBands   = 20
	shipModes     = 20
	weeks         = 261 // inventory's weekly snapshots, 1998-01-01 to 2002-12-26
)

// SizesOf is the row counts at scale factor sf: the specification's at
// the largest listed scale factor not above sf, facts linear in sf. Below
// SF 1 (not defined by the specification; for tests) the scaling
// dimensions and facts shrink linearly with floors that keep every
// domain the queries filter on present, and customer_demographics is the
// leading part of its cross product (every gender, marital status,
// education and credit rating still appears).
func SizesOf(sf float64) Sizes {
	n := specSizes[0].n
	for _, s := range specSizes {
		if sf >= s.sf {
			n = s.n
		}
	}
	lin := func(base float64, floor int) int { return max(floor, int(base*sf)) }
	n.IncomeBand, n.ShipMode, n.HouseDemo, n.CustDemo = incomeBands, shipModes, houseDemoFull, custDemoFull
	if sf < 1 {
		n.Customer = lin(100000, 2000)
		n.Address = lin(50000, 1000)
		n.Item = lin(18000, 2000)
		n.CatalogPage = lin(11718, 1000)
		n.CustDemo = lin(custDemoFull, 40000)
	}
	n.StoreSales = lin(2880404, 1)
	n.CatalogSales = lin(1441548, 1)
	n.WebSales = lin(719384, 1)
	n.InventoryItems = n.Item / 2
	if sf < 1 {
		n.InventoryItems = lin(9000, 50)
	}
	return n
}
