// Package sms sends and receives SMS through GSM modems: a durable outbox
// and inbox, a pool of modems with load sharing, and a daemon that serves
// both for other processes.
//
// # Entry points
//
//   - Send records the messages in the outbox (Compose splits a text into
//     PDUs; Enqueue records them) before any AT traffic, then sends them on
//     a sched engine with one backend per modem, or hands them to a daemon
//     that holds the modems. Status reads the outbox and the status
//     reports that match it.
//   - Receive and ReceiveFrom list each modem's memory, record every PDU
//     before deleting it from the modem, reassemble long messages and file
//     status reports; RunExec hands each entry to a command.
//   - Daemon holds modems for hours: it sends what the outbox has due and
//     receives what arrives, at once when a modem announces it (+CMTI,
//     +CDSI, +CMT, +CDS) and every PollEvery. DaemonHolds, DaemonModems and SpecsOfDaemon
//     let other processes find it through the journal, with each modem's
//     circuit breaker as the daemon records it (ModemStatus.Breaker).
//   - Open opens what SMS keeps at a database (Stores): a journal file,
//     or a shared PostgreSQL outbox plus this machine's journal for it
//     (StatePath), forwarding what Spool kept while the server was down.
//     Stores.Daemon runs Daemon on them; DaemonBeside runs it beside
//     other work (calq worker's other kinds), the first to fail stopping
//     the other.
//   - Specs, Dial, OpenPool and Survey open and describe modems; a SIM PIN
//     a SIM refused is never entered again by itself (pin.go).
//
// The packages beside it: sms/at speaks AT commands over a serial port,
// sms/pdu encodes and decodes PDUs, sms/store keeps the outbox, the inbox
// and the PIN rejections in the journal's file (store.Mem in memory, for
// tests), sms/emu emulates modems for dry runs and tests, and
// sms/smsbench measures the pool. sms defines the small interfaces it
// needs of the store where it uses them: Outbox, Inbox, PINStore.
//
// # Cost and concurrency
//
// A modem takes 3 to 10 seconds per part; calq's own time per message
// (codec, outbox, dispatch) is under a millisecond (`calq sms bench`). A
// modem does one command at a time, so each has one worker goroutine; the
// engine gives each message to the modem with the greatest marginal
// service rate, pins the other parts of a long message to the modem that
// took the first, and moves a failing modem's queue to the others. A
// modem is held by one process at a time (a lock on its device); the
// outbox and inbox are shared through the journal, whose claims make each
// message go out through one process only.
//
// # Reading the code
//
// Start with send.go (Send), send_dispatch.go and pool.go (the engine,
// and the modem worker that records each part's state around AT+CMGS),
// then recv.go and inbox.go for receiving and daemon.go for the daemon.
package sms
