// Package analyze is calq's queueing calculator: exact M/M/c, M/M/c/K and
// M/M/1/N measures, Erlang B and C, staffing, and waiting-time tails. Its
// functions are pure and safe for concurrent use.
//
// Entry points: ErlangB and ErlangC (O(c) by recurrence, no factorials, so
// exact to c = 10^6 and beyond); MMc (the M/M/c measures, with P0 in log
// space and the waiting-time tail); MMcK and MM1N (finite capacity, from
// normalised state weights, so exact near and above ρ = 1).
package analyze
