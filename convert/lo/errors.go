package lo

import (
	"errors"
	"fmt"
	"strings"
)

// installHint is the command that installs what calq needs of LibreOffice.
const installHint = "apt-get install libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui"

// hintError is an error that knows how to fix itself.
type hintError struct{ msg, hint string }

func (e *hintError) Error() string { return e.msg }

// Hint says how to fix the error.
func (e *hintError) Hint() string { return e.hint }

// ErrNotInstalled says soffice could not be found. It has a method
// Hint() string giving the command that installs LibreOffice; errors
// wrapping it reach it with errors.As.
var ErrNotInstalled error = &hintError{msg: "LibreOffice is not installed", hint: installHint}

// ErrClosed is the error of a conversion on a closed pool.
var ErrClosed = errors.New("the LibreOffice pool is closed")

// Reasons of a ConvertError.
const (
	ReasonLoadFailed   = "load failed"      // no output while the instance lived: unreadable, password, unsupported
	ReasonTimeout      = "timeout"          // the context's deadline passed; the instance was killed
	ReasonCanceled     = "canceled"         // the context was canceled; the instance was killed
	ReasonInstanceDied = "instance died"    // the instance exited during the conversion
	ReasonStartFailed  = "start failed"     // the instance could not be started
	ReasonBadOutput    = "bad output"       // the output is empty or not a PDF
	ReasonInput        = "input"            // the input could not be read
	ReasonOutput       = "output"           // the result could not be written to its place
	ReasonMemoryLimit  = "memory limit"     // the instance grew over Options.MemoryLimit; it was killed
	ReasonClosed       = "pool closed"      // the pool was closed
	ReasonOptions      = "bad options"      // ConvertOptions out of range
	ReasonStopped      = "instance stopped" // the deadline passed while the instance was stopped (SIGSTOP); it was killed
	ReasonPassword     = "wrong password"   // Export.Password does not open the document (it is password-protected)
	// ReasonEncryption: a password was given, and LibreOffice failed to
	// load the document without asking for one: it does not know the
	// document's encryption, so no password can open it here, the right
	// one included. (A document it can decrypt asks, and a wrong password
	// is ReasonPassword.)
	ReasonEncryption = "unknown encryption"
	ReasonExport     = "export failed" // the document opened but LibreOffice could not write it as PDF
)

// sentences are the reasons for people: a clerk's words, no calq or
// LibreOffice terms (see ConvertError.Explain).
var sentences = map[string]string{
	ReasonLoadFailed:   "LibreOffice cannot open it: the file is damaged, or not a kind of document LibreOffice reads",
	ReasonTimeout:      "converting it took too long, so it was stopped",
	ReasonCanceled:     "the conversion was cancelled",
	ReasonInstanceDied: "LibreOffice stopped working while converting it",
	ReasonStartFailed:  "LibreOffice could not be started",
	ReasonBadOutput:    "LibreOffice made no usable PDF of it",
	ReasonInput:        "the file could not be read",
	ReasonOutput:       "the PDF could not be saved",
	ReasonMemoryLimit:  "converting it needed too much memory, so it was stopped",
	ReasonClosed:       "the converter was shutting down",
	ReasonOptions:      "the conversion's settings cannot be used",
	ReasonStopped:      "LibreOffice was paused while converting it, so it was stopped",
	ReasonPassword:     "the password does not open the document",
	ReasonEncryption:   "the document is encrypted in a way LibreOffice cannot open, whatever the password",
	ReasonExport:       "LibreOffice opened it but could not make a PDF of it",
}

// ErrWrongPassword is the error of a ConvertError with ReasonPassword.
var ErrWrongPassword = errors.New("the password does not open the document")

// errClientExport is the error of a conversion by client soffice (no
// python3-uno) asked for what only the UNO helper can do.
var errClientExport = errors.New("landscape, a source password and updating indexes need python3-uno (the UNO helper); soffice --convert-to cannot change the document or take a password")

// ErrInstanceStopped is the error of a ConvertError with ReasonStopped:
// the instance, not the document, used up the time; another try may
// succeed.
var ErrInstanceStopped = errors.New("LibreOffice was stopped (SIGSTOP or a debugger) during the conversion; it was killed and restarts")

// ConvertError is the error of Instance.Convert.
type ConvertError struct {
	Input  string // the input as the caller named it
	Reason string // one of the Reason constants
	Detail string // what LibreOffice said, when it said something; may be empty
	Err    error  // the underlying error, if any (context.DeadlineExceeded for a timeout)
}

func (e *ConvertError) Error() string {
	s := fmt.Sprintf("convert %s: %s", e.Input, e.Reason)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ConvertError) Unwrap() error { return e.Err }

// Explain is the failure in a sentence for people, without the input's
// name (the caller shows it beside) or what LibreOffice said (Detail,
// for logs): Error is for those. The underlying error is added when it
// tells a person more (the memory used, the page range that failed).
func (e *ConvertError) Explain() string {
	s, ok := sentences[e.Reason]
	if !ok {
		return e.Error()
	}
	switch {
	case e.Reason == ReasonMemoryLimit && e.Err != nil:
		s += " (" + e.Err.Error() + ")"
	case e.Reason == ReasonExport && strings.Contains(e.Detail, "does the page range"):
		// The UNO helper asks whether the range names a page, then quotes
		// LibreOffice's exception (paths, source lines): the question only.
		_, q, _ := strings.Cut(e.Detail, "does the page range")
		q, _, _ = strings.Cut(q, "?")
		s += ": does the page range" + q + "?"
	case e.Reason == ReasonOptions && e.Err != nil:
		s += ": " + e.Err.Error()
	}
	return s
}
