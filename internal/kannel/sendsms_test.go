package kannel

import (
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

const auth = "username=bob&password=calq_k&"

func TestParseSend(t *testing.T) {
	base := Send{Username: "bob", Password: "calq_k", To: []string{"+41791234567"}, Text: "hi", Coding: CodingNone, MClass: -1}
	with := func(f func(*Send)) Send { s := base; f(&s); return s }
	tests := []struct {
		name, query string
		want        Send
	}{
		{"least", "to=%2B41791234567&text=hi", base},
		{"several, + and %20", "to=0791234567+0797654321%200041791234567&text=hi",
			with(func(s *Send) { s.To = []string{"0791234567", "0797654321", "0041791234567"} })},
		{"a careless + is a space", "to=+41791234567&text=hi", with(func(s *Send) { s.To = []string{"41791234567"} })},
		{"each number once", "to=079+079+%2B41+079&text=hi", with(func(s *Send) { s.To = []string{"079", "+41"} })},
		{"dashes kept", "to=079-123-45&text=hi", with(func(s *Send) { s.To = []string{"079-123-45"} })},
		{"text with + and %2B", "to=%2B41791234567&text=1+%2B+1", with(func(s *Send) { s.Text = "1 + 1" })},
		{"latin1", "to=%2B41791234567&text=caf%E9&charset=ISO-8859-1", with(func(s *Send) { s.Text = "café"; s.Charset = "ISO-8859-1" })},
		{"latin1 alias, any case", "to=%2B41791234567&text=caf%E9&charset=Latin1", with(func(s *Send) { s.Text = "café"; s.Charset = "Latin1" })},
		{"windows-1252 euro", "to=%2B41791234567&text=%805&charset=windows-1252", with(func(s *Send) { s.Text = "€5"; s.Charset = "windows-1252" })},
		{"UTF-8 text", "to=%2B41791234567&text=%E2%82%AC5", with(func(s *Send) { s.Text = "€5" })},
		{"coding 2 defaults to UTF-16BE", "to=%2B41791234567&text=%00h%00i&coding=2", with(func(s *Send) { s.Coding = CodingUCS2 })},
		{"coding 2 with UTF-8", "to=%2B41791234567&text=hi&coding=2&charset=utf-8", with(func(s *Send) { s.Coding = CodingUCS2; s.Charset = "utf-8" })},
		{"UCS-2", "to=%2B41791234567&text=%D8%3D%DE%00&charset=UCS-2", with(func(s *Send) { s.Text = "😀"; s.Charset = "UCS-2" })},
		{"UTF-16 little-endian BOM", "to=%2B41791234567&text=%FF%FEh%00i%00&charset=UTF-16", with(func(s *Send) { s.Charset = "UTF-16" })},
		{"coding 1 keeps bytes", "to=%2B41791234567&text=%00%FF&coding=1&charset=UTF-8", with(func(s *Send) { s.Text = "\x00\xff"; s.Coding = Coding8Bit; s.Charset = "UTF-8" })},
		{"coding 0", "to=%2B41791234567&text=hi&coding=0", with(func(s *Send) { s.Coding = Coding7Bit })},
		{"flash", "to=%2B41791234567&text=hi&mclass=0", with(func(s *Send) { s.MClass = 0 })},
		{"mclass 3", "to=%2B41791234567&text=hi&mclass=3", with(func(s *Send) { s.MClass = 3 })},
		{"Kannel's undefined", "to=%2B41791234567&text=hi&mclass=-1&coding=-1&validity=-1&deferred=-1&dlr-mask=-1&priority=-1&mwi=-1", base},
		{"validity and deferred", "to=%2B41791234567&text=hi&validity=1440&deferred=30",
			with(func(s *Send) { s.Validity = 24 * time.Hour; s.Deferred = 30 * time.Minute })},
		{"reports", "to=%2B41791234567&text=hi&dlr-mask=31&dlr-url=" + url.QueryEscape("https://app.example/dlr?id=7&s=%d&a=%A&t=%t"),
			with(func(s *Send) { s.Mask = 31; s.DLRURL = "https://app.example/dlr?id=7&s=%d&a=%A&t=%t" })},
		{"priority", "to=%2B41791234567&text=hi&priority=3", with(func(s *Send) { s.Priority = 3 })},
		{"ignored", "to=%2B41791234567&text=hi&from=calq&smsc=gsm1&account=x&binfo=y&meta-data=%3Fsmpp%3Fa%3Db&pid=0&alt-dcs=1&rpi=0&compress=0",
			with(func(s *Send) {
				s.Ignored = []string{"from", "smsc", "account", "binfo", "meta-data", "pid", "alt-dcs", "rpi", "compress"}
			})},
		{"unknown parameters", "to=%2B41791234567&text=hi&foo=bar", base},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := url.ParseQuery(auth + tt.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseSend(v)
			if err != nil {
				t.Fatalf("ParseSend(%q) = %v", tt.query, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSend(%q) =\n%+v, want\n%+v", tt.query, got, tt.want)
			}
		})
	}
}

func TestParseSendRefuses(t *testing.T) {
	tests := []struct {
		name, query string
		status      int
		want        string // a part of the reply
	}{
		{"no username", "password=k&to=1&text=hi", 403, "Authorization failed for sendsms"},
		{"no password", "username=bob&to=1&text=hi", 403, "Authorization failed for sendsms"},
		{"no to", auth + "text=hi", 400, "Missing receiver number, rejected"},
		{"empty to", auth + "to=&text=hi", 400, "Empty receiver number not allowed, rejected"},
		{"only spaces", auth + "to=+++&text=hi", 400, "Empty receiver number not allowed, rejected"},
		{"a name", auth + "to=alice&text=hi", 400, `Garbage 'to' field, rejected: to "alice": a number holds only digits`},
		{"a comma", auth + "to=079,078&text=hi", 400, `Garbage 'to' field, rejected: to "079,078"`},
		{"too many", auth + "to=" + manyNumbers(MaxReceivers+1) + "&text=hi", 400, `Too many receivers, rejected: to "1001 numbers"`},
		{"no text", auth + "to=079", 400, "Empty text not allowed, rejected"},
		{"blank text", auth + "to=079&text=+%0A", 400, "Empty text not allowed, rejected"},
		{"text too long", auth + "to=079&text=" + strings.Repeat("a", MaxText+1), 400, "Text field too long, rejected"},
		{"coding 3", auth + "to=079&text=hi&coding=3", 400, `Coding field misformed, rejected: coding "3": want 0 (GSM 7-bit), 1 (8-bit) or 2 (UCS-2)`},
		{"coding word", auth + "to=079&text=hi&coding=ucs2", 400, `Coding field misformed, rejected: coding "ucs2"`},
		{"mclass 4", auth + "to=079&text=hi&mclass=4", 400, `MClass field misformed, rejected: mclass "4"`},
		{"mwi", auth + "to=079&text=hi&mwi=0", 400, `MWI field not supported, rejected: mwi "0"`},
		{"udh", auth + "to=079&text=hi&udh=%06%05%04%0B%84%23%F0", 400, "UDH field not supported, rejected"},
		{"validity 0 minutes? negative", auth + "to=079&text=hi&validity=-5", 400, `Validity field misformed, rejected: validity "-5"`},
		{"validity too long", auth + "to=079&text=hi&validity=635041", 400, "Validity field misformed"},
		{"validity not a number", auth + "to=079&text=hi&validity=1h", 400, `Validity field misformed, rejected: validity "1h"`},
		{"deferred too far", auth + "to=079&text=hi&deferred=527041", 400, `Deferred field misformed, rejected: deferred "527041"`},
		{"priority 4", auth + "to=079&text=hi&priority=4", 400, `Priority field misformed, rejected: priority "4"`},
		{"dlr-mask 32", auth + "to=079&text=hi&dlr-mask=32", 400, `DLR-Mask field misformed, rejected: dlr-mask "32"`},
		{"dlr-mask word", auth + "to=079&text=hi&dlr-mask=all", 400, "DLR-Mask field misformed"},
		{"dlr-url unknown code", auth + "to=079&text=hi&dlr-mask=3&dlr-url=" + url.QueryEscape("http://h/?x=%z"), 400,
			`DLR-URL field misformed, rejected: dlr-url "http://h/?x=%z": unknown escape code "%z" at byte 12`},
		{"dlr-url relative", auth + "to=079&text=hi&dlr-url=%2Fdlr", 400, "DLR-URL field misformed"},
		{"not UTF-8", auth + "to=079&text=caf%E9", 400, `Charset or body misformed, rejected: charset "UTF-8 (the default)": the text does not decode: byte 0xE9 at 3 is not UTF-8`},
		{"unknown charset", auth + "to=079&text=hi&charset=klingon", 400, `Charset or body misformed, rejected: charset "klingon": the text does not decode: "klingon" is not a charset calq knows`},
		{"coding 2 with UTF-8 text", auth + "to=079&text=abc&coding=2", 400, `charset "UTF-16BE (the default with coding 2)": the text does not decode: 3 bytes, an odd number`},
		{"lone surrogate", auth + "to=079&text=%D8%3Dab&charset=UTF-16BE", 400, "a lone surrogate 0xD83D at byte 0"},
		{"windows-1252 hole", auth + "to=079&text=a%81&charset=windows-1252", 400, "byte 0x81 at 1: undefined in the charset"},
		{"Shift_JIS broken", auth + "to=079&text=%82&charset=Shift_JIS", 400, "undefined in the charset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseSend(v)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("ParseSend(%q) = %v, want an *Error", tt.query, err)
			}
			if e.Status != tt.status || !strings.Contains(e.Error(), tt.want) {
				t.Errorf("ParseSend(%q) = %d %q, want %d %q…", tt.query, e.Status, e.Error(), tt.status, tt.want)
			}
		})
	}
}

func manyNumbers(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("+0" + strings.Repeat("1", 3) + string(rune('0'+i%10)) + string(rune('0'+i/10%10)) + string(rune('0'+i/100%10)) + string(rune('0'+i/1000%10)))
	}
	return strings.TrimPrefix(b.String(), "+")
}

func TestHeaderParams(t *testing.T) {
	h := http.Header{}
	h.Set("X-Kannel-Username", "bob")
	h.Set("X-Kannel-Password", "calq_k")
	h.Set("X-Kannel-To", "+41791234567 0797654321")
	h.Set("X-Kannel-DLR-Mask", "3")
	h.Set("X-Kannel-DLR-Url", "http://h/?d=%d")
	h.Set("Content-Type", "text/plain; charset=ISO-8859-1")
	if !HasHeaders(h) {
		t.Fatal("HasHeaders() = false, want true")
	}
	got, err := ParseSend(HeaderParams(h, "caf\xe9"))
	if err != nil {
		t.Fatal(err)
	}
	want := Send{Username: "bob", Password: "calq_k", To: []string{"+41791234567", "0797654321"}, Text: "café",
		Coding: CodingNone, MClass: -1, Charset: "ISO-8859-1", Mask: 3, DLRURL: "http://h/?d=%d"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseSend(HeaderParams()) =\n%+v, want\n%+v", got, want)
	}
	if HasHeaders(http.Header{"Content-Type": {"text/plain"}}) {
		t.Error("HasHeaders(Content-Type only) = true, want false")
	}
}

func TestCredentials(t *testing.T) {
	tests := []struct{ query, user, pass string }{
		{"username=bob&password=k1", "bob", "k1"},
		{"user=ann&pass=k2", "ann", "k2"},
		{"username=bob&user=ann&password=k1&pass=k2", "bob", "k1"},
		{"user=ann", "", ""},
		{"pass=k2", "", ""},
		{"username=&password=k1", "", ""},
	}
	for _, tt := range tests {
		v, _ := url.ParseQuery(tt.query)
		user, pass, err := Credentials(v)
		if user != tt.user || pass != tt.pass || (tt.user == "") != (err == ErrAuth) {
			t.Errorf("Credentials(%q) = %q, %q, %v, want %q, %q", tt.query, user, pass, err, tt.user, tt.pass)
		}
	}
}
