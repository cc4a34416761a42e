// Package at drives GSM modems with AT commands in PDU mode (3GPP 27.005,
// 27.007), for calq sms.
//
// Entry points: Open (a serial device through go.bug.st/serial) or New (any
// io.ReadWriter) start a Modem; Init runs the session set-up and returns
// Info, handing a SIM that asks for its PIN to an Unlocker (WithPIN, or
// calq sms's, which remembers refused PINs) that may use SIMState, ICCID,
// PINTriesLeft and EnterPIN (which never spends a SIM's last try);
// SendPDU submits one SMS-SUBMIT and returns its message reference;
// List and Delete poll and clear storage; Command sends anything else; URC
// delivers unsolicited result codes. Lock serialises processes per device.
// A Modem is safe for concurrent use: commands are serialised, one in
// flight. Each command costs one round trip to the modem (SendPDU two:
// prompt, then result); nothing is retried inside the package.
//
// # Reading
//
// One goroutine reads the device and splits it into lines at CR or LF; the
// '>' prompt of AT+CMGS, which has no line ending, is recognised when it is
// the only thing left unterminated. A line equal to what was just written is
// echo and dropped, so echo may be on or off whatever ATE0 said. Lines named
// like unsolicited result codes (+CMTI, +CDSI, +CMT, +CDS, +CREG, +CEREG,
// +CUSD, RING, ^RSSI, ^BOOT, ^MODE, ...) go to the URC channel, unless the
// command in flight asked for that name: "+CREG: 0,1" answers AT+CREG?,
// while "+CREG: 1" (one field, or a quoted LAC second) is unsolicited even
// then. With no command in flight every named line is a URC.
//
// A command that times out is abandoned; lines that still come for it with
// no command in flight are logged and dropped, but a late final result that
// arrives after the next command was written is taken as that command's.
//
// # Errors
//
// Final results map to *CMSError (+CMS ERROR), *CMEError (+CME ERROR) and
// ErrCommand (plain ERROR). Timeouts are *TimeoutError. IsTransient says
// whether a later retry, maybe on another modem, may succeed. Transient
// codes; every other code, and plain ERROR, is permanent:
//
//	+CMS ERROR  27        destination out of service (24.011 E-2: temporary)
//	            41 42 47  temporary failure, congestion, resources unavailable
//	            192 194   SC busy, SC system failure
//	            212       SIM application toolkit busy
//	            304 305   invalid PDU/text mode parameter: some modems say it
//	                      while busy; the queue's retry limit ends real errors
//	            314       SIM busy
//	            331 332   no network service, network timeout
//	            500       unknown error
//	            512+      manufacturer specific ("please wait", lower layers)
//	+CME ERROR  14        SIM busy
//	            30 31     no network service, network timeout
//	            100       unknown
//
// Permanent examples: CMS 1/8/10/21/28/29/30 (subscriber, barring), 38
// (network out of order, "likely to last a relatively long period"), 50
// (facility not subscribed), 96-111 (protocol), 300-303 (ME failure, not
// allowed/supported), 310-313 and 315-318 (SIM missing, PIN/PUK, SIM
// failure), 320-322 (memory), 330 (SMSC address unknown); CME 3, 4, 10-13.
//
// After the PDU's Ctrl-Z is written, a timeout, a cancelled context or a
// vanished device returns an error wrapping ErrUnknownOutcome, never
// transient: the network may have the message.
package at
