package userscmd

import (
	"fmt"
	"io"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestReadSMS: set's SMS flags, as argument lines, give the change they
// say, or a usage error naming the flag.
func TestReadSMS(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // the change, or the error
	}{
		{"none", nil, "{allowed:false rate:false quota:false numbers:false inbound:false r:{Allowed:false Rate:0 Quota:0 Numbers:[] InboundURL:}}"},
		{"grant", []string{"--sms"}, "{allowed:true rate:false quota:false numbers:false inbound:false r:{Allowed:true Rate:0 Quota:0 Numbers:[] InboundURL:}}"},
		{"revoke", []string{"--no-sms"}, "{allowed:true rate:false quota:false numbers:false inbound:false r:{Allowed:false Rate:0 Quota:0 Numbers:[] InboundURL:}}"},
		{"limits", []string{"--sms-rate", "5", "--sms-quota", "0"}, "{allowed:false rate:true quota:true numbers:false inbound:false r:{Allowed:false Rate:5 Quota:0 Numbers:[] InboundURL:}}"},
		{"numbers", []string{"--sms-number", "gsm0", "--sms-number", " +4917 "}, "{allowed:false rate:false quota:false numbers:true inbound:false r:{Allowed:false Rate:0 Quota:0 Numbers:[gsm0 +4917] InboundURL:}}"},
		{"no numbers", []string{"--sms-number", ""}, "{allowed:false rate:false quota:false numbers:true inbound:false r:{Allowed:false Rate:0 Quota:0 Numbers:[] InboundURL:}}"},
		{"inbound", []string{"--sms-inbound-url", "https://example.com/in"}, "{allowed:false rate:false quota:false numbers:false inbound:true r:{Allowed:false Rate:0 Quota:0 Numbers:[] InboundURL:https://example.com/in}}"},
		{"no inbound", []string{"--sms-inbound-url", ""}, "{allowed:false rate:false quota:false numbers:false inbound:true r:{Allowed:false Rate:0 Quota:0 Numbers:[] InboundURL:}}"},
		{"both", []string{"--sms", "--no-sms"}, "--sms and --no-sms exclude each other"},
		{"negative rate", []string{"--sms-rate", "-1"}, "--sms-rate -1: want 0 or more"},
		{"inbound not http", []string{"--sms-inbound-url", "mailto:x@example.com"}, `--sms-inbound-url "mailto:x@example.com": want an absolute http or https URL`},
		{"inbound relative", []string{"--sms-inbound-url", "/in"}, `--sms-inbound-url "/in": want an absolute http or https URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			app := &cli.App{Name: "calq", Writer: io.Discard, ErrWriter: io.Discard, Flags: smsFlags(),
				Action: func(c *cli.Context) error {
					ch, err := readSMS(c)
					if err != nil {
						return err
					}
					got = fmt.Sprintf("%+v", ch)
					return nil
				}}
			if err := app.Run(append([]string{"calq"}, tt.args...)); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("calq %v:\n got %s\nwant %s", tt.args, got, tt.want)
			}
		})
	}
}
