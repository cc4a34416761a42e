package users

import "context"

type ctxKey struct{}

// WithUser returns ctx carrying u, the user calq serve authenticated for
// a request (its key or its browser session).
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, ctxKey{}, u)
}

// FromContext returns the user WithUser put in ctx; false when the
// request has none (a server without users, or before authentication).
func FromContext(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(ctxKey{}).(User)
	return u, ok
}
