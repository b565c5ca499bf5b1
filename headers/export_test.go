package headers

import (
	"net/http"

	"github.com/floodgate-go/floodgate/core"
)

// WriteOneAndAll writes r with w through writeOne and through writeAll,
// each into a header of its own, and reports whether write takes writeOne
// for r (a draft 11 Writer, a Result of one limit whose name fits; no
// partition key). one is nil when it does not.
func WriteOneAndAll(w *Writer, r *core.Result) (one, all http.Header) {
	judged := func() *decision {
		d := &decision{r: r, pr: w.policies.get(r, w.draft)}
		if r.NumLimits() > 1 {
			d.ls = r.Limits()
		}
		d.judge()
		return d
	}
	if d := judged(); d.ls == nil && w.draft == DraftIETF11 && len(d.pr.rateHead[0]) <= oneHead {
		one = http.Header{}
		w.writeOne(one, d)
	}
	all = http.Header{}
	w.writeAll(all, judged())
	return one, all
}
