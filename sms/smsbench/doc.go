// Package smsbench is `calq sms bench`: it sends one-part messages through
// the modem emulator (sms/emu) with sms's public API, for several pool
// sizes, and reports the throughput against one modem's measured in the
// same run, and calq's own time per message. Nothing in calq's production
// packages imports it.
package smsbench
