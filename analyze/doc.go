// Package analyze is calq's queueing calculator: exact M/M/c, M/M/c/K and
// M/M/1/N measures, Erlang B and C, staffing, waiting-time tails, Poisson
// tables, the calendar queue's resize predictions, a discrete-event
// simulator and the analysis of a run's history. Its functions are pure
// (Simulate reads a trace file only if asked) and safe for concurrent use.
//
// Every entry point takes a context first and returns ctx.Err() within
// 2^14 steps of a cancel, and checks its inputs against the limits of
// limits.go (MaxServers, MaxCapacity, MinRate and MaxRate, MaxLoad, the
// Poisson and simulation bounds) before it starts, with errors wrapping
// ErrInput: time and memory are bounded whatever it is asked, and within
// the limits every measure is finite.
//
// Entry points: ErlangB and ErlangC (O(c) by recurrence, no factorials, so
// exact to c = 10^6 and beyond) and LogErlangB (ln B where B underflows);
// MMc (the M/M/c measures, with P0 in log space and the waiting-time tail);
// MMcK and MM1N (finite capacity, from normalised state weights, so exact
// near and above ρ = 1); Engset (finite sources, loss or delay: Engset's
// recurrence, O(min(c, N)), or the machine-repair chain's rescaled sums,
// O(K) and no array) and MMInf (M/M/∞, with the Poisson percentiles of
// the number in service); Size (staffing, linear in c); Poisson;
// MG1 and MG1Dist (Pollaczek–Khinchine, exact, O(1)); GGc (Allen–Cunneen
// and Kingman, approximations, O(c) through MMc);
// ErlangA and SizeErlangA (M/M/c+M, callers who give up: exact through
// the incomplete gamma function's series, O(c + √(cμ/θ)));
// Priority (M/M/c with priority classes, non-preemptive and
// preemptive-resume, exact; O(c), or O(K·c) preemptive) and
// PriorityHistory (per-class λ and μ from the journal against strict
// priority);
// OpenNetwork and ClosedNetwork with ParseNetwork (open Jackson networks,
// O(K³); closed networks by exact MVA, 2^m·N·Σ(1+min(c,N)) steps for m
// multi-server stations);
// PredictResize (sched's own PRAM functions and the M/M/1/N chain's first
// passage); Simulate with ParseArrivals, ParseService and ParsePatience (a
// discrete-event simulation on sched's calendar queue, with abandonment and
// priority classes); History (rates, confidence
// intervals and staffing from the journal's jobs).
package analyze
