//go:build race

package sms

// raceEnabled: the race detector slows the pseudo-terminal I/O about
// sevenfold, so TestSendFaults sends fewer messages under it.
const raceEnabled = true
