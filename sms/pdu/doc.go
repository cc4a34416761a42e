// Package pdu encodes and decodes SMS transfer PDUs (3GPP TS 23.040) as
// GSM modems read and write them in PDU mode (TS 27.005): hex text, the
// SMSC address field first.
//
// Entry points:
//
//   - [Decode] reads an SMS-SUBMIT, SMS-DELIVER or SMS-STATUS-REPORT (and the
//     rarer reports and COMMAND) given the direction it travelled; it never
//     panics, and a malformed PDU gives a [*DecodeError] naming the field and
//     the octet offset.
//   - [EncodeSubmit] turns a text into one or more SMS-SUBMIT PDUs: GSM 7-bit
//     (TS 23.038 default alphabet and extension table) when every character
//     fits, else UCS-2 (UTF-16, surrogate pairs kept whole); long texts are
//     split with a concatenation header, never inside an escape pair or a
//     surrogate pair. [EncodeSubmitData] does the same for 8-bit data.
//   - [EncodeDeliver] builds SMS-DELIVER PDUs, for emulators and tests.
//   - [Transliterate] replaces characters outside the GSM alphabet by close
//     ones and reports every change; nothing is ever transliterated unless asked.
//
// Every function costs time linear in the size of its input and is safe for
// concurrent use: the package has no mutable state.
package pdu
