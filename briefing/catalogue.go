package briefing

import (
	"bytes"
	"encoding/json"

	"loom-results/errcode"
	"loom-results/limits"
	"loom-results/results"
)

// Page is the answer of list_results (SPEC section 5).
type Page struct {
	Page    int64                `json:"page"`
	Pages   int64                `json:"pages"`
	Total   int64                `json:"total"`
	Results []results.Descriptor `json:"results"`
	Next    *int64               `json:"next"`
	Budget  *limits.Snapshot     `json:"budget,omitempty"`
	Text    string               `json:"-"`
}

// CheckPageSize validates list_results' page_size (an argument check):
// 1 to --page-size.
func (b *Briefing) CheckPageSize(size int64) *errcode.Error {
	if size < 1 || size > b.opts.Limits.PageSize {
		return errcode.New(errcode.InvalidArgument, "page_size %d outside 1-%d", size, b.opts.Limits.PageSize)
	}
	return nil
}

// ListResults returns page page of the retained results, oldest first, size
// a page (nil: --page-size). Its text content, which the lookup returns and
// is charged for, is the page as compact JSON without budget, each sha256 cut
// to 12 hex digits.
func (b *Briefing) ListResults(page int64, size *int64) (*Page, *errcode.Error) {
	n := b.opts.Limits.PageSize
	if size != nil {
		n = *size
	}
	total := int64(b.store.Len())
	pages := max(1, (total+n-1)/n)
	if page < 0 || page >= pages {
		return nil, errcode.New(errcode.InvalidRange, "page %d outside 0-%d", page, pages-1)
	}
	from, to := page*n, min(total, (page+1)*n)
	p := &Page{Page: page, Pages: pages, Total: total, Results: make([]results.Descriptor, 0, to-from)}
	for _, r := range b.store.Results()[from:to] {
		p.Results = append(p.Results, r.Listed())
	}
	if page+1 < pages {
		next := page + 1
		p.Next = &next
	}
	text := p.text()
	if _, _, err := b.budget.Charge(text); err != nil {
		return nil, err
	}
	p.Text = string(text)
	snap := b.budget.Snapshot()
	p.Budget = &snap
	return p, nil
}

// text renders the page as its text content.
func (p *Page) text() []byte {
	short := *p
	short.Results = make([]results.Descriptor, len(p.Results))
	for i, d := range p.Results {
		d.SHA256 = d.SHA256[:12]
		short.Results[i] = d
	}
	return compactJSON(short)
}

// compactJSON marshals v as compact JSON without escaping <, > and &, so
// text content shows paths and labels as they are.
func compactJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // callers pass structs of strings, numbers and bools
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
