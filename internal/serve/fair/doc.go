// Package fair is calq serve's back-pressure: a fair semaphore over the c
// warm LibreOffice instances, bounds on how much may wait, and a
// prediction of how long a new request would take.
//
// Entry points: New builds a Gate; Gate.Acquire waits for a server and
// returns a Slot (Slot.Server is the instance to convert on, Slot.Release
// frees it and records the service time); Gate.Reserve counts a whole
// request of n files against the bounds before it is accepted, and
// Reservation.Acquire spends one unit of it per file; Gate.PredictWait and
// Gate.RetryAfter estimate from an M/M/c model over the measured service
// rate; Gate.Stats reports the gate's state.
//
// Order. Users share the servers by start-time fair queueing (Goyal, Vin
// and Cheng's SFQ), one file at a time: each user has a virtual start tag,
// the free server goes to the waiting user with the smallest tag, and a
// grant moves that user's tag on by 1/weight. A user who starts waiting
// begins at the gate's virtual time (the tag of the last grant), so 1,000
// waiting files of one user do not hold back another user's single file by
// more than one grant per server. Within one user, files go strictly by
// priority class (P0, P1, P2, P3), first come first served inside a class.
//
// Cost. Acquire, Release and Reserve are O(log u) for u waiting users
// (a heap of users) plus an amortized O(1) sweep; Stats, PredictWait and
// RetryAfter are O(r) for r user records. The gate keeps one small record
// per user while its tag matters (it has files waiting or reserved, or
// was served ahead of the virtual time), and forgets all but those with
// reservations whenever it is idle. A Gate is safe for concurrent use.
// The package does no I/O.
package fair
