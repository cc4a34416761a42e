package kannel

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds of a sendsms request's values.
const (
	MaxReceivers = 1000             // numbers in one to
	MaxValidity  = 63 * 7 * 24 * 60 // minutes: the longest relative validity a PDU holds (63 weeks)
	MaxDeferred  = 366 * 24 * 60    // minutes: a year
	MaxText      = 64 << 10         // bytes of text, before decoding
	senders      = "0123456789+-"   // Kannel's default sendsms-chars, besides the space
	undefined    = "-1"             // Kannel's "not set" (SMS_PARAM_UNDEFINED), which some clients send
	ignoredNames = "from smsc account binfo meta-data pid alt-dcs rpi compress"
)

// Send is one sendsms request, its parameters read and checked.
type Send struct {
	Username, Password string
	To                 []string      // the receivers, split at spaces, each once, in order
	Text               string        // UTF-8; for Coding8Bit the bytes as given
	Coding             int           // CodingNone, Coding7Bit, Coding8Bit or CodingUCS2
	Charset            string        // as given; "" none
	MClass             int           // -1 none; 0 flash; 1 to 3
	Validity           time.Duration // 0: the network's default
	Deferred           time.Duration // 0: now
	Mask               int           // dlr-mask: report types (Delivered…), 0 none
	DLRURL             string        // checked by CheckURL; "" none
	Priority           int           // 0 (Kannel's default, the lowest) to 3
	Ignored            []string      // the parameters given that calq ignores, by name
}

// Credentials returns a request's username and password (or user and
// pass, which Kannel takes too); ErrAuth when either is missing.
func Credentials(v url.Values) (username, password string, err error) {
	username, password = cmp.Or(v.Get("username"), v.Get("user")), cmp.Or(v.Get("password"), v.Get("pass"))
	if username == "" || password == "" {
		return "", "", ErrAuth
	}
	return username, password, nil
}

// ParseSend reads and checks a sendsms request's parameters (a query, a
// form, or X-Kannel headers as Params makes them). The error is an
// *Error naming the first parameter calq cannot use. It does not check
// username and password beyond Credentials.
func ParseSend(v url.Values) (Send, error) {
	var s Send
	var err error
	if s.Username, s.Password, err = Credentials(v); err != nil {
		return Send{}, err
	}
	if s.To, err = receivers(v); err != nil {
		return Send{}, err
	}
	for _, step := range []func(url.Values, *Send) error{options, reports, text} {
		if err := step(v, &s); err != nil {
			return Send{}, err
		}
	}
	for _, name := range strings.Fields(ignoredNames) {
		if v.Get(name) != "" {
			s.Ignored = append(s.Ignored, name)
		}
	}
	return s, nil
}

// receivers splits to at spaces (a "+" in a query is one) and keeps each
// number once.
func receivers(v url.Values) ([]string, error) {
	to, ok := v["to"]
	switch {
	case !ok:
		return nil, &Error{Status: http.StatusBadRequest, Reply: "Missing receiver number, rejected"}
	case len(strings.Fields(to[0])) == 0:
		return nil, &Error{Status: http.StatusBadRequest, Reply: "Empty receiver number not allowed, rejected"}
	}
	var list []string
	for _, n := range strings.Fields(to[0]) {
		if strings.Trim(n, senders) != "" {
			return nil, &Error{Status: http.StatusBadRequest, Reply: "Garbage 'to' field, rejected", Param: "to", Value: n,
				Reason: "a number holds only digits, + and -; separate numbers with spaces (a + in a URL is a space: write %2B)"}
		}
		if !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	if len(list) > MaxReceivers {
		return nil, &Error{Status: http.StatusBadRequest, Reply: "Too many receivers, rejected", Param: "to", Value: strconv.Itoa(len(list)) + " numbers",
			Reason: "calq takes at most " + strconv.Itoa(MaxReceivers) + " in one request"}
	}
	return list, nil
}

// options reads coding, mclass, priority, validity and deferred, and
// refuses mwi and udh.
func options(v url.Values, s *Send) error {
	var err error
	if s.Coding, err = integer(v, "coding", "Coding", 0, 2, CodingNone, "want 0 (GSM 7-bit), 1 (8-bit) or 2 (UCS-2)"); err != nil {
		return err
	}
	if s.MClass, err = integer(v, "mclass", "MClass", 0, 3, -1, "want 0 (flash) to 3"); err != nil {
		return err
	}
	if s.Priority, err = integer(v, "priority", "Priority", 0, 3, 0, "want 0 (the lowest) to 3"); err != nil {
		return err
	}
	validity, err := integer(v, "validity", "Validity", 0, MaxValidity, 0, "want minutes, at most "+strconv.Itoa(MaxValidity)+" (63 weeks)")
	if err != nil {
		return err
	}
	deferred, err := integer(v, "deferred", "Deferred", 0, MaxDeferred, 0, "want minutes, at most "+strconv.Itoa(MaxDeferred)+" (a year)")
	if err != nil {
		return err
	}
	s.Validity, s.Deferred = time.Duration(validity)*time.Minute, time.Duration(deferred)*time.Minute
	if m := v.Get("mwi"); m != "" && m != undefined {
		return &Error{Status: http.StatusBadRequest, Reply: "MWI field not supported, rejected", Param: "mwi", Value: m,
			Reason: "calq sends no message waiting indications"}
	}
	if u := v.Get("udh"); u != "" {
		return &Error{Status: http.StatusBadRequest, Reply: "UDH field not supported, rejected", Param: "udh", Value: u,
			Reason: "calq writes the user data headers itself (to join long messages); it sends none of a caller's, such as port numbers"}
	}
	return nil
}

// integer reads the integer parameter param, lo to hi; def when it is
// missing, empty or Kannel's -1.
func integer(v url.Values, param, name string, lo, hi, def int, want string) (int, error) {
	s := v.Get(param)
	if s == "" || s == undefined {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, misformed(name, param, s, want)
	}
	return n, nil
}

// reports reads dlr-mask and dlr-url.
func reports(v url.Values, s *Send) error {
	var err error
	if s.Mask, err = integer(v, "dlr-mask", "DLR-Mask", 0, AllTypes, 0,
		"want a sum of 1 (delivered), 2 (not delivered), 4 (queued on the SMSC), 8 (accepted by the SMSC) and 16 (rejected by it)"); err != nil {
		return err
	}
	if s.DLRURL = v.Get("dlr-url"); s.DLRURL != "" {
		if err := CheckURL(s.DLRURL); err != nil {
			return misformed("DLR-URL", "dlr-url", s.DLRURL, err.Error())
		}
	}
	return nil
}

// text reads charset and text, decoding the text.
func text(v url.Values, s *Send) error {
	raw := v.Get("text")
	s.Charset = v.Get("charset")
	switch {
	case strings.TrimSpace(raw) == "":
		return &Error{Status: http.StatusBadRequest, Reply: "Empty text not allowed, rejected", Param: "text", Value: raw,
			Reason: "calq sends no empty message"}
	case len(raw) > MaxText:
		return &Error{Status: http.StatusBadRequest, Reply: "Text field too long, rejected", Param: "text", Value: raw[:32] + "…",
			Reason: strconv.Itoa(len(raw)) + " bytes; no message of 255 parts holds more than " + strconv.Itoa(MaxText)}
	}
	t, err := Decode(raw, s.Charset, s.Coding)
	if err != nil {
		cs := s.Charset
		if cs == "" {
			cs = "UTF-8 (the default)"
			if s.Coding == CodingUCS2 {
				cs = "UTF-16BE (the default with coding 2)"
			}
		}
		return &Error{Status: http.StatusBadRequest, Reply: "Charset or body misformed, rejected", Param: "charset", Value: cs,
			Reason: "the text does not decode: " + err.Error()}
	}
	s.Text = t
	return nil
}
