package emu

import (
	"encoding/json"
	"io"
	"sync"
)

// Record is one line of the log: a PDU a modem accepted.
type Record struct {
	Device string `json:"device"`
	MR     int    `json:"mr"`
	PDU    string `json:"pdu"` // hex, SMSC field first, as the client wrote it (upper case)
}

// logWriter is the one writer of Options.Log, shared by the modems.
type logWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// write appends r (a Record or a SIMRecord) as one line with one Write call, then flushes a
// buffered writer, so that a line is complete before the modem answers.
func (l *logWriter) write(r any) error {
	if l.w == nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(append(b, '\n')); err != nil {
		return err
	}
	if f, ok := l.w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}
