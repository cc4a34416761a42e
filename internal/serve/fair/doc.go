// Package fair is calq serve's back-pressure: a fair semaphore over the c
// warm LibreOffice instances, bounds on how much may wait, and a
// prediction of how long a new request would take.
//
// Entry points: New builds a Gate; Gate.Acquire waits for a server and
// returns a Slot (Slot.Server is the instance to convert on, Slot.Release
// frees it and records the service time, Slot.ReleaseCut for a service
// that timed out or was cancelled); Gate.Reserve counts a whole request
// of n files against the bounds before it is accepted, and
// Reservation.Acquire spends one unit of it per file; Gate.PredictWait and
// Gate.RetryAfter estimate from an M/M/c model over the estimated service
// rate, and Gate.Drain how long n files take to leave a full gate;
// Gate.Stats reports the gate's state.
//
// Admission, as calq serve is meant to use it: RetryAfter(user, class, n,
// limit) first (a wait: 429 with Retry-After that wait, rounded up to
// seconds); then Reserve(user, n) (ErrTooLarge: 413, the request could
// never be queued under the bounds; ErrFull or ErrUserFull: 429 with
// Retry-After Drain(n)); then one Reservation.Acquire per file, and Done
// at the end. Only the bounds refuse for good: a prediction is an
// estimate, so it may delay a request, never refuse it.
//
// The service time the prediction assumes resists outliers: a cut
// service counts as at most four typical ones, the prior
// (Options.DefaultService) stays in the mean as one sample, and measured
// times weigh less as they age (Options.HalfLife), so that the estimate
// goes back to the prior when nothing is measured (see estimate).
//
// Order. Users share the servers by start-time fair queueing (Goyal, Vin
// and Cheng's SFQ), one file at a time: each user has a virtual start tag,
// the free server goes to the waiting user with the smallest tag, and a
// grant moves that user's tag on by 1/weight. A user who starts waiting
// begins at the gate's virtual time (the tag of the last grant), at or
// before every waiting user's tag, so one user's 1,000 waiting files do
// not hold back another user's single file that comes after them: it is
// granted next, or after the few users whose tags tie with it. Within one user, files go strictly by
// priority class (P0, P1, P2, P3), first come first served inside a class.
//
// Cost. Acquire, Release and Reserve are O(log u) for u waiting users
// (a heap of users) plus an amortized O(1) sweep; ReleaseCut adds
// O(w log w) for the median of a window of w service times; Stats,
// PredictWait and RetryAfter are O(r + w) for r user records, Drain O(w).
// The gate keeps one small record per user while its tag matters (it has
// files waiting or reserved, or was served ahead of the virtual time),
// and forgets all but those with reservations whenever it is idle. A Gate
// is safe for concurrent use.
// The package does no I/O.
package fair
