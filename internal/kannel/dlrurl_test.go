package kannel

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

var report = DLR{
	Type:      Delivered,
	SMSCReply: "id:42 stat:DELIVRD",
	From:      "0041791234567",
	To:        "+41797654321",
	Time:      time.Date(2026, 11, 29, 19, 53, 7, 0, time.FixedZone("CET", 3600)),
	ID:        "17",
	ForeignID: "42",
	SMSCID:    "modem-1",
	Text:      "FOO bar a*b 50% c&d=é",
	Coding:    2,
	MClass:    -1,
	Charset:   "UTF-8",
	User:      "bob",
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name, tmpl, want string
		d                DLR
	}{
		{"no codes", "https://example.com/dlr?x=1", "https://example.com/dlr?x=1", report},
		{"type and reply", "http://h/d?type=%d&reply=%A", "http://h/d?type=1&reply=id%3A42+stat%3ADELIVRD", report},
		{"numbers", "http://h/?p=%p&P=%P&q=%q&Q=%Q", "http://h/?p=0041791234567&P=%2B41797654321&q=%2B41791234567&Q=%2B41797654321", report},
		{"time in UTC and UNIX", "http://h/?t=%t&T=%T", "http://h/?t=2026-11-29+18%3A53&T=1795978387", report},
		{"zero time", "http://h/?t=%t&T=%T", "http://h/?t=&T=", DLR{MClass: -1}},
		{"ids", "http://h/?i=%i&I=%I&F=%F&n=%n", "http://h/?i=modem-1&I=17&F=42&n=bob", report},
		{"coding, mclass, charset", "http://h/?c=%c&m=%m&C=%C", "http://h/?c=2&m=&C=UTF-8", report},
		{"flash", "http://h/?m=%m", "http://h/?m=0", DLR{MClass: 0}},
		{"codes without a value", "http://h/?M=%M&u=%u&B=%B&o=%o&O=%O&f=%f&D=%D&x=%x", "http://h/?M=&u=&B=&o=&O=&f=&D=&x=", report},
		{"keyword and words", "http://h/?k=%k&s1=%s&s2=%s&r=%r", "http://h/?k=FOO&s1=bar&s2=a%2Ab&r=50%25+c%26d%3D%C3%A9", report},
		{"all words and the text", "http://h/?a=%a&b=%b", "http://h/?a=FOO+bar+a%2Ab+50%25+c%26d%3D%C3%A9&b=FOO+bar+a%2Ab+50%25+c%26d%3D%C3%A9", report},
		{"S unescaped, * to ~", "http://h/%S/%S", "http://h/bar/a~b", report},
		{"S escapes what no URL holds", "http://h/?w=%s%s%S%S", "http://h/?w=bara%2Ab50%25c&d=%C3%A9", report},
		{"words run out", "http://h/%s/%s/%s/%s/%s/%s/%r", "http://h/bar/a%2Ab/50%25/c%26d%3D%C3%A9///", report},
		{"no text", "http://h/?k=%k&s=%s&a=%a", "http://h/?k=&s=&a=", DLR{}},
		{"literal percent", "http://h/a%%20b?x=100%%25", "http://h/a%20b?x=100%25", report},
		{"many spaces", "http://h/?a=%a", "http://h/?a=x+y", DLR{Text: "  x \t\n y  "}},
		{"unknown kept", "http://h/?z=%z", "http://h/?z=%z", report},
		{"lone percent kept", "http://h/%", "http://h/%", report},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Expand(tt.tmpl, tt.d); got != tt.want {
				t.Errorf("Expand(%q) = %q, want %q", tt.tmpl, got, tt.want)
			}
		})
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		name, tmpl string
		want       string // a part of the error; "" none
	}{
		{"plain", "https://example.com/dlr", ""},
		{"every code", "http://example.com/?" + everyCode(), ""},
		{"upper-case scheme", "HTTPS://example.com/x?d=%d", ""},
		{"port and user", "http://u:p@example.com:8080/x?d=%d", ""},
		{"codes in the path and fragment", "http://h/%I/%d#%A", ""},
		{"literal percent escapes", "http://h/a%%20b?x=%%2F", ""},
		{"unknown code", "http://h/?x=%d&y=%z", `unknown escape code "%z" at byte 17`},
		{"R is unknown", "http://h/?x=%R", `unknown escape code "%R"`},
		{"a plain escape", "http://h/a%20b", `unknown escape code "%2" at byte 10`},
		{"non-ASCII after %", "http://h/%é", `unknown escape code "%é"`},
		{"lone % at the end", "http://h/?d=%d%", "a lone % at its end (byte 14)"},
		{"%% starting no escape", "http://h/?x=%%zz", "%% at byte 12 starts no escape"},
		{"%% before a code", "http://h/?x=%%%d", "starts no escape"},
		{"%% at the end", "http://h/?x=%%", "starts no escape"},
		{"code in the host", "http://%i.example.com/", "in its scheme or host"},
		{"code in the port", "http://h:%d/", "in its scheme or host"},
		{"no path, a code", "http://h%d", "in its scheme or host"},
		{"relative", "/dlr?d=%d", "absolute http:// or https://"},
		{"ftp", "ftp://h/x", "absolute http:// or https://"},
		{"no host", "http:///x?d=%d", "no host"},
		{"empty", "", "absolute"},
		{"control character", "http://h/a\x01b", "not a URL"},
		{"too long", "http://h/" + strings.Repeat("a", MaxURL), "longer than the 4096"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckURL(tt.tmpl)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckURL(%q) = %v, want nil", tt.tmpl, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckURL(%q) = %v, want an error with %q", tt.tmpl, err, tt.want)
			}
		})
	}
}

// everyCode is a query naming each code once.
func everyCode() string {
	var q []string
	for _, c := range Codes {
		q = append(q, string(c)+"=%"+string(c))
	}
	return strings.Join(q, "&")
}

// TestExpandEveryCode checks that Expand replaces every code CheckURL
// takes: nothing of a checked template is left as "%" and a letter.
func TestExpandEveryCode(t *testing.T) {
	tmpl := "http://example.com/?" + everyCode()
	got := Expand(tmpl, report)
	u, err := url.Parse(got)
	if err != nil {
		t.Fatalf("Expand(%q) = %q, which does not parse: %v", tmpl, got, err)
	}
	for _, c := range Codes {
		if v := u.Query()[string(c)]; len(v) != 1 {
			t.Errorf("Expand(...) query %q = %q, want one value", string(c), v)
		}
	}
}

func TestTarget(t *testing.T) {
	u, err := Target("https://user@app.example:8443/dlr/%I?d=%d#%A")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := u.String(), "https://user@app.example:8443/dlr/x?d=x#x"; got != want {
		t.Errorf("Target() = %s, want %s", got, want)
	}
	if _, err := Target("http://h/?x=%z"); err == nil {
		t.Error("Target(unknown code) = nil error, want one")
	}
}
