package memlimit

// Shared pools: a server runs many statements at once, and a bound per
// statement does not bound the process (32 statements of 256MB each are
// 8GB). A Child pool is one statement's pool drawing from a shared parent
// (the server's budget): its reservations past the grant it was admitted
// with are reserved in the parent too, so a statement's growth is refused,
// and its operators spill or fail with ErrResourceExhausted, when either
// its own limit or the shared budget is spent.

// NewBudget returns a pool of limit bytes shared by many statements (see
// Child): a server's memory budget. Its refusals name it so.
func NewBudget(limit int64) *Pool { return &Pool{limit: limit, what: "server memory budget"} }

// Child returns a statement pool of limit bytes (<= 0: bounded by p
// only) that draws from p. grant is the part of p the caller already
// reserved for the statement (admission's minimum, see Pool.TryReserve):
// reservations up to it cost p nothing more; past it each byte is
// reserved in p as well. Close gives the grant and whatever is still
// reserved back to p. A nil p is a plain NewPool(limit).
func (p *Pool) Child(limit, grant int64) *Pool {
	if p == nil {
		return NewPool(limit)
	}
	return &Pool{limit: limit, parent: p, grant: max(grant, 0)}
}

// TryReserve reserves n bytes of p outright (no reservation object): an
// admission grant or an upload's buffer, given back with Release. It
// fails with ErrResourceExhausted when p's limit would be passed.
func (p *Pool) TryReserve(consumer string, n int64) error {
	if n <= 0 {
		return nil
	}
	return p.tryGrow(consumer, n)
}

// Release gives back n bytes of a TryReserve.
func (p *Pool) Release(n int64) {
	if p == nil || n <= 0 {
		return
	}
	p.reserved.Add(-n)
}

// Close ends a Child pool: its grant and every byte its reservations
// still hold past the grant go back to the parent (operators normally
// Free theirs first). Reservations shrunk after Close change only the
// child. Close of a pool without a parent, or a second Close, does
// nothing.
func (p *Pool) Close() {
	if p == nil || p.parent == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	p.parent.Release(p.grant + max(p.reserved.Load()-p.grant, 0))
	if p.atClose != nil {
		p.atClose()
	}
}

// AtClose makes Close of a Child pool call f once, after it gave its
// memory back (an admission's count of running statements).
func (p *Pool) AtClose(f func()) {
	p.mu.Lock()
	p.atClose = f
	p.mu.Unlock()
}

// beyond is the part of n reserved bytes a child holds past its grant.
func (p *Pool) beyond(n int64) int64 { return max(n-p.grant, 0) }

// childTryGrow is tryGrow of a child pool: its own limit first, then the
// part past the grant from the parent. The mutex keeps the child's count
// and the parent's share of it in step.
func (p *Pool) childTryGrow(consumer string, n int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	cur := p.reserved.Load()
	if p.limit > 0 && cur+n > p.limit {
		p.refusals.Add(1)
		return p.exhausted(consumer, n, cur, p.limit)
	}
	if more := p.beyond(cur+n) - p.beyond(cur); more > 0 && !p.closed {
		if err := p.parent.tryGrow(consumer, more); err != nil {
			p.refusals.Add(1)
			return err
		}
	}
	p.reserved.Store(cur + n)
	raise(&p.peakRes, cur+n)
	return nil
}

// childAdd is add (n > 0, forced) or a shrink (n < 0) of a child pool.
func (p *Pool) childAdd(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cur := p.reserved.Load()
	if d := p.beyond(cur+n) - p.beyond(cur); d != 0 && !p.closed {
		p.parent.add(d)
	}
	p.reserved.Store(cur + n)
	raise(&p.peakRes, cur+n)
}
