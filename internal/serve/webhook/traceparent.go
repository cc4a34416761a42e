package webhook

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"strings"
)

// HeaderTraceParent is W3C Trace Context's header: Gotenberg passes the
// caller's trace on to its webhooks, so that a tracing system joins the
// request and its delivery.
const HeaderTraceParent = "Traceparent"

// traceParent is a version-00 traceparent: trace id, parent id, flags, in
// lower-case hex.
var traceParent = regexp.MustCompile(`^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$`)

// parseTraceParent keeps a well-formed traceparent, "" for any other: a
// malformed one, as W3C Trace Context says, is ignored rather than
// refused.
func parseTraceParent(v string) string {
	m := traceParent.FindStringSubmatch(v)
	if m == nil || strings.HasPrefix(v, "ff") || m[1] == strings.Repeat("0", 32) || m[2] == strings.Repeat("0", 16) {
		return ""
	}
	return v
}

// childTraceParent is the traceparent of a delivery for the request's
// parent: its trace id and flags with a new parent id, calq's delivery
// being a span of its own; "" when parent is.
func childTraceParent(parent string) string {
	m := traceParent.FindStringSubmatch(parent)
	if m == nil {
		return ""
	}
	var span [8]byte
	rand.Read(span[:]) // never fails since Go 1.24
	if span == [8]byte{} {
		span[7] = 1 // an all-zero parent id is invalid
	}
	return "00-" + m[1] + "-" + hex.EncodeToString(span[:]) + "-" + m[3]
}
