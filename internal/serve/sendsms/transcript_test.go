package sendsms

import (
	"strings"
	"testing"

	"calq/internal/serve/throttle"
)

const q = "/cgi-bin/sendsms?"

// TestTranscript runs sendsms exchanges through a real server and
// compares them with testdata/transcript.txt: Kannel's replies, and the
// smsapi requests calq makes of them.
func TestTranscript(t *testing.T) {
	f := newFixture(t, throttle.Options{Free: 100})
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	xs := []exchange{
		{name: "GET, one number", method: "GET", target: q + "username=bob&password={bob}&to=%2B41791234567&text=Hello+world"},
		{name: "several numbers, + and %20, one twice", method: "GET", target: q + "username=bob&password={bob}&to=0791234567+0797654321%200791234567&text=hi"},
		{name: "a careless + is a space: a national number", method: "GET", target: q + "username=bob&password={bob}&to=+41791234567&text=hi"},
		{name: "every option", method: "GET", target: q + "username=bob&password={bob}&to=%2B41791234567&text=caf%E9&charset=ISO-8859-1&coding=2&mclass=0" +
			"&validity=1440&priority=3&dlr-mask=3&dlr-url=https%3A%2F%2Fapp.example%2Fdlr%3Fid%3D7%26s%3D%25d%26a%3D%25A%26t%3D%25t&from=CALQ&smsc=gsm1&account=acme"},
		{name: "coding 0 transliterates", method: "GET", target: q + "username=bob&password={bob}&to=079&text=%E2%80%9Cquoted%E2%80%9D&coding=0&priority=1"},
		{name: "coding 1 is 8-bit data", method: "GET", target: q + "username=bob&password={bob}&to=079&text=%00%01%FF&coding=1"},
		{name: "mclass 2 is sent without a class", method: "GET", target: q + "username=bob&password={bob}&to=079&text=hi&mclass=2"},
		{name: "SMSC acknowledgements only: no network report", method: "GET", target: q + "username=bob&password={bob}&to=079&text=hi&dlr-mask=24&dlr-url=http%3A%2F%2Fh%2F%3Fd%3D%25d"},
		{name: "dlr-url without dlr-mask: no push", method: "GET", target: q + "username=bob&password={bob}&to=079&text=hi&dlr-url=http%3A%2F%2Fh%2F%3Fd%3D%25d"},
		{name: "deferred", method: "GET", target: q + "username=bob&password={bob}&to=079&text=later&deferred=90"},
		{name: "POST form", method: "POST", target: "/cgi-bin/sendsms", header: form,
			body: "username=bob&password={bob}&to=%2B41791234567+0797654321&text=from+a+form&dlr-mask=1&dlr-url=http%3A%2F%2Fh%2F%25I%2F%25d"},
		{name: "POST form, query too", method: "POST", target: q + "username=bob&password={bob}", header: form, body: "to=079&text=mixed"},
		{name: "POST with X-Kannel headers", method: "POST", target: "/cgi-bin/sendsms",
			header: map[string]string{"Content-Type": "text/plain; charset=UTF-8", "X-Kannel-Username": "bob", "X-Kannel-Password": "{bob}",
				"X-Kannel-To": "+41791234567", "X-Kannel-Coding": "2", "X-Kannel-DLR-Mask": "2", "X-Kannel-DLR-Url": "http://h/?d=%d"},
			body: "Grüße from the body"},
		{name: "HEAD sends nothing", method: "HEAD", target: q + "username=bob&password={bob}&to=079&text=hi"},
		{name: "no credentials", method: "GET", target: q + "to=079&text=hi"},
		{name: "a wrong key", method: "GET", target: q + "username=bob&password=calq_nope&to=079&text=hi"},
		{name: "another user's key", method: "GET", target: q + "username=bob&password={alice}&to=079&text=hi"},
		{name: "a disabled user", method: "GET", target: q + "username=carol&password={carol}&to=079&text=hi"},
		{name: "a bad parameter after a wrong key: 403 first", method: "GET", target: q + "username=bob&password=x&to=079&text=hi&coding=9"},
		{name: "no receiver", method: "GET", target: q + "username=bob&password={bob}&text=hi"},
		{name: "empty receiver", method: "GET", target: q + "username=bob&password={bob}&to=&text=hi"},
		{name: "garbage receiver", method: "GET", target: q + "username=bob&password={bob}&to=bob%40example.com&text=hi"},
		{name: "a number the Service refuses", method: "GET", target: q + "username=bob&password={bob}&to=079+12&text=hi"},
		{name: "bad coding", method: "GET", target: q + "username=bob&password={bob}&to=079&text=hi&coding=4"},
		{name: "unknown escape code", method: "GET", target: q + "username=bob&password={bob}&to=079&text=hi&dlr-mask=1&dlr-url=http%3A%2F%2Fh%2F%3Fd%3D%25d%26x%3D%25z"},
		{name: "a plain URL escape must be doubled", method: "GET", target: q + "username=bob&password={bob}&to=079&text=hi&dlr-mask=1&dlr-url=http%3A%2F%2Fh%2Fa%2520b"},
		{name: "charset that does not decode", method: "GET", target: q + "username=bob&password={bob}&to=079&text=caf%E9&charset=UTF-8"},
		{name: "unknown charset", method: "GET", target: q + "username=bob&password={bob}&to=079&text=hi&charset=EBCDIC-XX"},
		{name: "udh", method: "GET", target: q + "username=bob&password={bob}&to=079&text=hi&udh=%06%05%04%0B%84%23%F0"},
		{name: "a user who may not send SMS", method: "GET", target: q + "username=mallory&password={mallory}&to=079&text=hi"},
		{name: "over the rate", method: "GET", target: q + "username=quinn&password={quinn}&to=079&text=hi"},
		{name: "the outbox fails", method: "GET", target: q + "username=bob&password={bob}&to=079&text=the+outbox+fails"},
		{name: "a body too large", method: "POST", target: "/cgi-bin/sendsms", header: form,
			body: "username=bob&password={bob}&to=079&text=" + strings.Repeat("a", maxBody)},
	}
	var b strings.Builder
	for _, x := range xs {
		f.do(t, &b, x)
	}
	golden(t, "transcript.txt", strings.ReplaceAll(b.String(), strings.Repeat("a", maxBody), "a×maxBody"))
}

// TestThrottle checks that wrong passwords from one address are slowed
// down after the throttle's free failures, with Retry-After, a right one
// included meanwhile, and that only the address is charged.
func TestThrottle(t *testing.T) {
	f := newFixture(t, throttle.Options{Free: 2})
	wrong := exchange{name: "wrong", method: "GET", target: q + "username=bob&password=calq_guess&to=079&text=hi"}
	right := exchange{name: "right", method: "GET", target: q + "username=bob&password={bob}&to=079&text=hi"}
	var b strings.Builder
	for _, x := range []exchange{right, wrong, wrong, right, wrong, right} {
		f.do(t, &b, x)
	}
	golden(t, "throttle.txt", b.String())
	if w := f.lim.Wait(throttle.UserKey("bob")); w != 0 {
		t.Errorf("Wait(user bob) = %v, want 0: only the address is charged", w)
	}
}
