// Package smscmd is calq sms: send, recv, status, daemon, modems,
// encode, decode, emulate and bench, over calq/sms and its stores. It
// also owns the modem flags and config (ModemFlags, ModemSpecs), which
// calq worker --kinds sms shares: the one tie between two groups.
// Command is the group; one file per leaf.
package smscmd
