package briefing

import (
	"strconv"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
)

// Page is the answer of list_results (SPEC section 5).
type Page struct {
	Page    int64                `json:"page"`
	Pages   int64                `json:"pages"`
	Total   int64                `json:"total"`
	Results []results.Descriptor `json:"results"`
	Next    *int64               `json:"next"`
	Budget  limits.Snapshot      `json:"budget"`
	Text    string               `json:"-"`
}

// AppendJSON appends the page's JSON form as json.Marshal writes it (its
// Text is not a member), except that a lone surrogate kept in its 3-byte
// form is written back as its escape (results.Descriptor.AppendJSON). A nil
// Page is null.
func (p *Page) AppendJSON(dst []byte) []byte {
	if p == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"page":`...)
	dst = strconv.AppendInt(dst, p.Page, 10)
	dst = append(dst, `,"pages":`...)
	dst = strconv.AppendInt(dst, p.Pages, 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, p.Total, 10)
	dst = append(dst, `,"results":`...)
	if p.Results == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range p.Results {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = p.Results[i].AppendJSON(dst)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"next":`...)
	if p.Next == nil {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendInt(dst, *p.Next, 10)
	}
	dst = append(dst, `,"budget":`...)
	dst = p.Budget.AppendJSON(dst)
	return append(dst, '}')
}

// TextContent is the page's lines, the answer's text content.
func (p *Page) TextContent() string { return p.Text }

// checkPageSize validates list_results' page_size (an argument check):
// 1 to --page-size.
func (b *Briefing) checkPageSize(size int64) *errcode.Error {
	if size < 1 || size > b.opts.Limits.PageSize {
		return errcode.New(errcode.InvalidArgument, "page_size %d outside 1-%d", size, b.opts.Limits.PageSize)
	}
	return nil
}

// listResults returns page page of the retained results, oldest first, size
// a page (nil: --page-size). Its text content, which the lookup returns and
// is charged for, is a header line per result and the page line (Page.text).
func (b *Briefing) listResults(page int64, size *int64) (*Page, *errcode.Error) {
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
	listed := b.store.Results()[from:to]
	for _, r := range listed {
		p.Results = append(p.Results, r.Listed())
	}
	if page+1 < pages {
		next := page + 1
		p.Next = &next
	}
	text := p.text(listed, b.opts.Header)
	sized := limits.Selected{
		What: "page " + strconv.FormatInt(page, 10) + " (" + strconv.FormatInt(to-from, 10) + " results) is",
		Less: "ask for a smaller page_size",
	}
	if err := b.budget.ChargeSelected(sized, int64(len(text)), limits.EscapedSize(text)); err != nil {
		return nil, err
	}
	p.Text = string(text)
	p.Budget = b.budget.Snapshot()
	return p, nil
}

// text renders the page as its text content (SPEC section 5): each
// result's descriptor header line (Options.Header), then, when more pages
// follow, the line "page P of N: page P+1 holds the next" (pages counted
// from 0, N the number of pages); an empty catalogue is the line
// "no results".
func (p *Page) text(rs []*results.Result, header func(results.Descriptor) string) []byte {
	if p.Total == 0 {
		return []byte("no results\n")
	}
	var b []byte
	for _, r := range rs {
		if header != nil {
			b = append(b, header(r.Listed())...)
		} else {
			b = append(append(b, r.ID...), '\n')
		}
	}
	if p.Next != nil {
		b = append(b, "page "...)
		b = strconv.AppendInt(b, p.Page, 10)
		b = append(b, " of "...)
		b = strconv.AppendInt(b, p.Pages, 10)
		b = append(b, ": page "...)
		b = strconv.AppendInt(b, *p.Next, 10)
		b = append(b, " holds the next\n"...)
	}
	return b
}
