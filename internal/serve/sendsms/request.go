package sendsms

import (
	"errors"
	"net/http"
	"time"

	"calq/internal/kannel"
	"calq/internal/serve/smsapi"
	"calq/internal/serve/users"
)

// priorities maps Kannel's priority (0, its default and lowest, to 3)
// to calq's classes: its default is calq's (P2), each step up one class
// more urgent, 2 and 3 both calq's most urgent. P3 (background) is not
// reachable from sendsms.
var priorities = [4]string{"P2", "P1", "P0", "P0"}

// codings maps Kannel's coding to smsapi.Request.Coding.
var codings = map[int]string{kannel.CodingNone: "", kannel.Coding7Bit: "gsm7", kannel.Coding8Bit: "8bit", kannel.CodingUCS2: "ucs2"}

// request is the smsapi request of s, at now. mclass 0 is a flash
// message; 1 to 3 are sent without a class (phones store such a
// message as class 1). Coding 0 (GSM 7-bit) turns what GSM 7-bit lacks
// into look-alikes and is refused when some remain. The network's
// reports are asked for when the mask has a type only they give;
// dlr-url is pushed to when the mask has any.
func request(s kannel.Send, now time.Time) smsapi.Request {
	r := smsapi.Request{
		To:            s.To,
		Text:          s.Text,
		Flash:         s.MClass == 0,
		Validity:      s.Validity,
		Priority:      priorities[s.Priority],
		Coding:        codings[s.Coding],
		Transliterate: s.Coding == kannel.Coding7Bit,
		Report:        s.Mask&kannel.NetworkTypes != 0,
	}
	if s.Deferred > 0 {
		r.At = now.Add(s.Deferred)
	}
	if s.Mask != 0 && s.DLRURL != "" {
		r.Push = smsapi.Push{Kind: smsapi.PushKannel, URL: s.DLRURL, Mask: s.Mask}
	}
	return r
}

// params names smsapi's request fields as sendsms's parameters.
var paramNames = map[string][2]string{
	"to":        {"to", "To"},
	"text":      {"text", "Text"},
	"reportUrl": {"dlr-url", "DLR-URL"},
	"dlr-url":   {"dlr-url", "DLR-URL"},
	"push":      {"dlr-url", "DLR-URL"},
	"validity":  {"validity", "Validity"},
	"at":        {"deferred", "Deferred"},
	"coding":    {"coding", "Coding"},
	"priority":  {"priority", "Priority"},
}

// sendError is the reply to a Send's error: 400 for a field calq cannot
// use, 403 for a user who may not send SMS, 429 (with Retry-After) over
// the user's rate or daily quota, which Kannel has no code for; anything
// else is 503, Kannel's "Sending failed.".
func (h *Handler) sendError(u users.User, err error) error {
	if e, ok := errors.AsType[*smsapi.InputError](err); ok {
		n, ok := paramNames[e.Field]
		if !ok {
			n = [2]string{e.Field, e.Field}
		}
		return &kannel.Error{Status: http.StatusBadRequest, Reply: n[1] + " field misformed, rejected", Param: n[0], Value: e.Value, Reason: e.Err.Error()}
	}
	if e, ok := errors.AsType[*smsapi.QuotaError](err); ok {
		return &kannel.Error{Status: http.StatusTooManyRequests, Reply: "Too many messages, rejected", Reason: e.Error(),
			RetryAfter: max(time.Second, e.Reset.Sub(h.now()))}
	}
	if errors.Is(err, smsapi.ErrNotAllowed) {
		return &kannel.Error{Status: http.StatusForbidden, Reply: kannel.ErrAuth.Reply,
			Reason: "user " + u.Name + " may not send SMS: an administrator allows it with calq users set " + u.Name + " --sms"}
	}
	return err
}
