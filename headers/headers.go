package headers

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/httpsyntax"
)

// Options configures a [Writer]. The zero Options writes every field:
// Retry-After (on denials), X-RateLimit-* and the IETF fields of
// [DraftIETF11], under their default names.
type Options struct {
	// Draft selects the shape of the IETF fields.
	Draft Draft
	// Omit is the set of fields not to write, e.g. [XRateLimit] or
	// [IETF] | [RetryAfter].
	Omit Field
	// Names renames single fields, e.g. {XRateLimitLimit: "X-Rate-Limit-Limit"}.
	// A name must be an HTTP token; it is stored in canonical form. An
	// empty name keeps the default, and the names of fields the Writer
	// does not write (omitted, or not of its draft) are ignored. Two fields
	// written by the same Writer may not share a name. A name with a
	// meaning of its own to HTTP, browsers or the servers in front is
	// refused, in any case: framing and connection fields (Content-Length,
	// Transfer-Encoding, Connection, Host, Trailer, Upgrade), every
	// Content-*, If-*, Access-Control-*, Proxy-*, Sec-*, Cross-Origin-* and
	// X-Accel-* field, Set-Cookie, Location, Refresh, Cache-Control, Vary,
	// Status, X-Sendfile and the like, and Retry-After for any field but
	// RetryAfter. A field written may not have another field's default
	// name, of any draft (X-RateLimit-Reset named "RateLimit-Reset"): the
	// readers of the default names ([Writer.HeldWait], [Wait], a Writer of
	// the default names in the same response) would read it as that
	// field, an epoch as seconds to wait.
	Names map[Field]string
	// PartitionKeySecret, when set, makes [Writer.WriteKey] add a partition
	// key parameter "pk" to every item of the draft 11 fields: the first
	// 12 bytes of HMAC-SHA-256(PartitionKeySecret, key) as an sf-binary.
	// The key itself is never written. The secret must be at least 16
	// bytes and should be random; it is only accepted with [DraftIETF11],
	// the only draft that defines pk.
	PartitionKeySecret []byte
}

// Writer writes the rate-limit fields of a [core.Result] into an
// [http.Header]. It is immutable and safe for concurrent use.
type Writer struct {
	draft Draft
	on    Field
	names [numFields]string // canonical names, "" for fields not written
	pk    *pkHasher         // nil without a partition key secret
	// policies holds what each policy written so far renders to, once.
	policies policyCache
}

// New validates opts and returns the Writer they describe. Its errors wrap
// [core.ErrInvalidConfig].
func New(opts Options) (*Writer, error) {
	if err := checkOptions(&opts); err != nil {
		return nil, err
	}
	w := &Writer{draft: opts.Draft, on: (RetryAfter | XRateLimit | opts.Draft.fields()) &^ opts.Omit}
	if err := w.setNames(opts.Names); err != nil {
		return nil, err
	}
	if opts.PartitionKeySecret != nil {
		w.pk = newPKHasher(opts.PartitionKeySecret)
	}
	return w, nil
}

// checkOptions refuses an unknown draft or field, a name that is not a
// token or is reserved (see reservedNames), and a partition key secret that
// is short (or empty) or of another draft.
func checkOptions(opts *Options) error {
	if opts.Draft > DraftIETF6 {
		return fmt.Errorf("headers: unknown draft %v: %w", opts.Draft, core.ErrInvalidConfig)
	}
	if rest := opts.Omit &^ AllFields; rest != 0 {
		return fmt.Errorf("headers: unknown fields %#x in Omit: %w", uint16(rest), core.ErrInvalidConfig)
	}
	for f, name := range opts.Names {
		if f.index() < 0 {
			return fmt.Errorf("headers: Names: %v is not a single field: %w", f, core.ErrInvalidConfig)
		}
		if name == "" {
			continue
		}
		if !httpsyntax.IsToken(name) {
			return fmt.Errorf("headers: Names: %q for %v is not a valid field name: %w", name, f, core.ErrInvalidConfig)
		}
		switch c := http.CanonicalHeaderKey(name); {
		case reserved(c):
			return fmt.Errorf("headers: Names: %q for %v is a field with a meaning of its own to HTTP, browsers or servers: %w", name, f, core.ErrInvalidConfig)
		case c == retryAfter && f != RetryAfter:
			return fmt.Errorf("headers: Names: %q for %v would have clients wait its value in seconds: %w", name, f, core.ErrInvalidConfig)
		}
	}
	if s := opts.PartitionKeySecret; s != nil {
		if opts.Draft != DraftIETF11 {
			return fmt.Errorf("headers: a partition key needs %v, not %v: %w", DraftIETF11, opts.Draft, core.ErrInvalidConfig)
		}
		if len(s) < 16 {
			return fmt.Errorf("headers: partition key secret of %d bytes, want at least 16: %w", len(s), core.ErrInvalidConfig)
		}
	}
	return nil
}

// setNames gives every field w writes its canonical name, refusing two
// fields of one name, and a field named as another's default (of any
// draft): the readers of the default names (HeldWait, Wait, a Writer of
// the default names stacked with w) would read it as that field, an
// epoch as seconds to wait.
func (w *Writer) setNames(names map[Field]string) error {
	seen := make(map[string]Field, numFields)
	for i := range numFields {
		f := Field(1 << i)
		if w.on&f == 0 {
			continue
		}
		name := names[f]
		if name == "" {
			name = defaultNames[i]
		}
		name = http.CanonicalHeaderKey(name)
		if g, dup := seen[name]; dup {
			return fmt.Errorf("headers: %v and %v are both named %q: %w", g, f, name, core.ErrInvalidConfig)
		}
		if j := slices.Index(canonicalNames[:], name); j >= 0 && j != i {
			return fmt.Errorf("headers: Names: %q for %v is %v's default name, read as that field by HeldWait, Wait and other Writers: %w",
				name, f, Field(1<<j), core.ErrInvalidConfig)
		}
		seen[name] = f
		w.names[i] = name
	}
	return nil
}

// PartitionKeys reports whether [Writer.WriteKey] adds a partition key: w
// has a PartitionKeySecret. A caller that builds the key only when asked
// for (the middleware) asks this once.
func (w *Writer) PartitionKeys() bool { return w != nil && w.pk != nil }

// Draft returns the shape of the IETF fields w writes.
func (w *Writer) Draft() Draft { return w.draft }

// Fields returns the set of fields w may write.
func (w *Writer) Fields() Field { return w.on }

// Names returns the canonical names of the fields w may write, in a fixed
// order, e.g. for an Access-Control-Expose-Headers field.
func (w *Writer) Names() []string {
	out := make([]string, 0, numFields)
	for _, n := range w.names {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Write sets the fields of r in h, replacing any values they had. It never
// deletes a field: a field it does not write this time (Retry-After on an
// admitted request, say) keeps whatever h held. A nil r or a Result without
// limits (the zero Result) writes nothing, and so does a nil Writer.
//
// Write makes one allocation, which holds the fields' value slices (each
// capped at length 1, so that a later h.Add on one field cannot overwrite
// another) and the bytes of the values rendered for r. What depends on the
// policy alone (RateLimit-Policy, the limits' quotas and names) is rendered
// once per policy and shared, as strings are, by every Write. (Values
// longer than 368 bytes in all, as with four limits of long names, cost one
// or two more.) Adding new keys to h may also grow the map, which is h's
// cost, not Write's.
func (w *Writer) Write(h http.Header, r *core.Result) { w.write(h, r, "", false) }

// WriteKey is [Writer.Write] with a partition key: when the Writer has a
// PartitionKeySecret, every item of the draft 11 fields gets the parameter
// pk, a keyed hash of key (see [Options]). Without a secret it is Write and
// key is ignored. key is typically the key r was decided for.
func (w *Writer) WriteKey(h http.Header, r *core.Result, key string) {
	w.write(h, r, key, w != nil && w.pk != nil)
}
