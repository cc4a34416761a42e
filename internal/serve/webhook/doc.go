// Package webhook delivers the results of calq serve's asynchronous requests the way Gotenberg's webhook
// module does, without letting a client aim the server at its own network.
//
// Entry points:
//
//   - [ParseHeaders] reads Gotenberg's Gotenberg-Webhook-* request headers into a [Request] (cheap, pure).
//   - [NewPolicy] builds the [Policy] that decides which targets may be reached: public addresses, plus what
//     --webhook-allow lists. [Policy.Check] refuses literal private addresses and localhost up front;
//     [Policy.DialContext] refuses them again at connect time, on the address the name resolved to, so DNS
//     rebinding cannot get around the check.
//   - [NewSender] builds a [Sender] whose [Sender.Deliver] uploads a result (or reports a failure) with
//     retries, exponential backoff and jitter. Deliver blocks until done, up to MaxAttempts attempts of
//     AttemptTimeout each per target plus the waits between them, or until ctx ends.
//
// Policy and Sender are safe for concurrent use once built.
package webhook
