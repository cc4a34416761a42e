package form

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
)

// Meta is what a request's headers ask of the reply.
type Meta struct {
	// OutputFilename is Gotenberg-Output-Filename's last path segment,
	// without control characters or double quotes; "" when absent. The server
	// adds the extension.
	OutputFilename string
	// Trace is Gotenberg-Trace, echoed in the reply; a random UUID when
	// absent.
	Trace string
}

// maxTrace bounds a client's Gotenberg-Trace.
const maxTrace = 128

// TraceHeader is Gotenberg's trace header, echoed in every reply.
const TraceHeader = "Gotenberg-Trace"

// TraceOf is the request's Gotenberg-Trace and true when the client sent a
// usable one (at most 128 bytes of printable ASCII), else a new random
// UUID and false.
func TraceOf(h http.Header) (string, bool) {
	t := h.Get(TraceHeader)
	if t == "" || !validTrace(t) {
		return newUUID(), false
	}
	return t, true
}

func validTrace(t string) bool {
	return len(t) <= maxTrace && strings.IndexFunc(t, func(r rune) bool { return r < 0x20 || r > 0x7e }) < 0
}

// Headers reads Gotenberg-Output-Filename and Gotenberg-Trace. A trace over
// 128 bytes or with other than printable ASCII is a 400 *Error, since it is
// echoed in a header.
func Headers(h http.Header) (Meta, error) {
	m := Meta{Trace: h.Get(TraceHeader)}
	if name := h.Get("Gotenberg-Output-Filename"); name != "" {
		m.OutputFilename = outputName(name)
	}
	if m.Trace == "" {
		m.Trace = newUUID()
		return m, nil
	}
	if !validTrace(m.Trace) {
		return m, &Error{Status: http.StatusBadRequest,
			Msg: fmt.Sprintf("Invalid 'Gotenberg-Trace' header value: want at most %d printable ASCII characters", maxTrace)}
	}
	return m, nil
}

// outputName keeps a requested output name's last segment, without double quotes;
// "" when nothing usable is left.
func outputName(s string) string {
	return cleanName(strings.ReplaceAll(s, `"`, ""))
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails since Go 1.24
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
