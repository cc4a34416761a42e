package smscmd

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/sched"
	"calq/sms"
)

// parseSend reads the options of calq sms send from args and stdin as
// smsSendAction does, without opening a store or a modem.
func parseSend(t *testing.T, args []string, stdin string) (sms.SendOptions, error) {
	t.Helper()
	var (
		got sms.SendOptions
		err error
	)
	runLeaf(t, sendCommand(), args, stdin, func(c *cli.Context) { got, err = smsSendOptions(c) })
	return got, err
}

// runLeaf runs cmd's flag parsing on args and stdin with read as its
// Action, in place of the real one, and fails the test unless read ran.
func runLeaf(t *testing.T, cmd *cli.Command, args []string, stdin string, read func(*cli.Context)) {
	t.Helper()
	ran := false
	cmd.Action = func(c *cli.Context) error {
		read(c)
		ran = true
		return nil
	}
	app := &cli.App{Name: "calq", Commands: []*cli.Command{cmd}, Reader: strings.NewReader(stdin),
		Writer: io.Discard, ErrWriter: io.Discard}
	if err := app.Run(append([]string{"calq", cmd.Name}, args...)); err != nil {
		t.Fatalf("calq %s %q: %v", cmd.Name, args, err)
	}
	if !ran {
		t.Fatalf("calq %s %q: the Action did not run", cmd.Name, args)
	}
}

// TestSendOptions: each argument line gives the sms.SendOptions Send runs
// with (the flag parsing of calq sms send, apart from sending).
func TestSendOptions(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(conf, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CALQ_CONFIG", conf) // no [[sms.modem]]: no modems unless --device
	p0, err := sched.ParseClass("P0")
	if err != nil {
		t.Fatal(err)
	}
	p2, err := sched.ParseClass("P2")
	if err != nil {
		t.Fatal(err)
	}
	const retries = sched.DefaultRetries
	for _, tc := range []struct {
		name    string
		args    []string
		stdin   string
		want    sms.SendOptions
		devices []string // of want.Modems
	}{
		{"number and text", []string{"+491701234567", "hello"}, "",
			sms.SendOptions{To: []string{"+491701234567"}, Text: "hello", Priority: p2, Retries: retries}, nil},
		{"numbers as people write them", []string{"+49 170 123-4567", "(0151) 234.56.78", "hi there"}, "",
			sms.SendOptions{To: []string{"+491701234567", "01512345678"}, Text: "hi there", Priority: p2, Retries: retries}, nil},
		{"text from stdin with -", []string{"+491701234567", "-"}, "from stdin\n",
			sms.SendOptions{To: []string{"+491701234567"}, Text: "from stdin", Priority: p2, Retries: retries}, nil},
		{"a number last reads stdin", []string{"+491701234567", "4711"}, "two\nlines\n",
			sms.SendOptions{To: []string{"+491701234567", "4711"}, Text: "two\nlines", Priority: p2, Retries: retries}, nil},
		{"flash, report, validity, no-wait", []string{"--flash", "--report", "--validity", "24h", "--no-wait", "+491701234567", "hi"}, "",
			sms.SendOptions{To: []string{"+491701234567"}, Text: "hi", Flash: true, Report: true, Validity: 24 * time.Hour,
				NoWait: true, Priority: p2, Retries: retries}, nil},
		{"--wait=false is --no-wait", []string{"--wait=false", "+491701234567", "hi"}, "",
			sms.SendOptions{To: []string{"+491701234567"}, Text: "hi", NoWait: true, Priority: p2, Retries: retries}, nil},
		{"priority, timeout, duplicates, transliterate", []string{"-p", "P0", "--timeout", "30s", "--allow-duplicates", "--transliterate",
			"+491701234567", "hi"}, "",
			sms.SendOptions{To: []string{"+491701234567"}, Text: "hi", Priority: p0, Timeout: 30 * time.Second,
				AllowDuplicates: true, Transliterate: true, Retries: retries}, nil},
		{"--retries 0 means none", []string{"--retries", "0", "+491701234567", "hi"}, "",
			sms.SendOptions{To: []string{"+491701234567"}, Text: "hi", Priority: p2, Retries: -1}, nil},
		{"--device", []string{"--device", os.DevNull, "+491701234567", "hi"}, "",
			sms.SendOptions{To: []string{"+491701234567"}, Text: "hi", Priority: p2, Retries: retries}, []string{os.DevNull}},
		{"--queued", []string{"--queued", "--timeout", "1m", "--retries", "2"}, "",
			sms.SendOptions{Queued: true, Timeout: time.Minute, Retries: 2}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSend(t, tc.args, tc.stdin)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got.Warn == nil {
				t.Errorf("got no Warn, want calq's warnings on stderr")
			}
			var devices []string
			for _, m := range got.Modems {
				devices = append(devices, m.Device)
			}
			if !reflect.DeepEqual(devices, tc.devices) {
				t.Errorf("got modems %q, want %q", devices, tc.devices)
			}
			got.Warn, got.Modems, got.AT = nil, nil, tc.want.AT
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v,\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestSendOptionsAt: --at holds the message until then.
func TestSendOptionsAt(t *testing.T) {
	before := time.Now()
	got, err := parseSend(t, []string{"--no-wait", "--at", "+10m", "+491701234567", "hi"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := before.Add(10*time.Minute), time.Now().Add(10*time.Minute); got.At.Before(lo) || got.At.After(hi) {
		t.Errorf("got At %v, want between %v and %v", got.At, lo, hi)
	}
}

// TestSendOptionsUsage: argument lines calq sms send refuses, with exit
// status 2 (a *base.UsageError) and their message.
func TestSendOptionsUsage(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"nothing", nil, "", "no recipients (or --queued, to send what earlier runs left queued)"},
		{"text only", []string{"hello"}, "", "no recipients"},
		{"a word as recipient", []string{"hello", "world"}, "", `recipient "hello" is not a phone number: 'h' is not a digit`},
		{"letters in a number", []string{"+49 170 CALL-ME", "hi"}, "", `recipient "+49 170 CALL-ME" is not a phone number: 'C' is not a digit`},
		{"too short", []string{"12", "hi"}, "", `recipient "12" is not a phone number: 2 digits, want 3 to 20`},
		{"blank text", []string{"+491701234567", " "}, "", "the text is empty: nothing to send (give TEXT, or pipe it in)"},
		{"empty stdin", []string{"+491701234567", "-"}, "", "the text is empty: nothing to send (give TEXT, or pipe it in)"},
		{"priority", []string{"--priority", "P9", "+491701234567", "hi"}, "",
			`--priority: priority "P9": want P0..P3 (or realtime, interactive, normal, background)`},
		{"negative validity", []string{"--validity", "-1h", "+491701234567", "hi"}, "", "--validity: -1h0m0s is negative"},
		{"negative retries", []string{"--retries", "-1", "+491701234567", "hi"}, "", "--retries: -1 is negative"},
		{"--device with --no-wait", []string{"--no-wait", "--device", os.DevNull, "+491701234567", "hi"}, "",
			"--device: not with --no-wait (a calq sms daemon, or calq sms send --queued, sends the message through its own modems)"},
		{"no such device", []string{"--device", "/nonexistent/ttyUSB9", "+491701234567", "hi"}, "",
			"--device /nonexistent/ttyUSB9: no such device"},
		{"--queued with a recipient", []string{"--queued", "+491701234567"}, "",
			`--queued sends the queued messages: no TO or TEXT (got "+491701234567")`},
		{"--queued with --flash and --no-wait", []string{"--queued", "--flash", "--no-wait"}, "",
			"--flash: not with --queued (it applies to new messages)\n--no-wait: not with --queued (it applies to new messages)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSend(t, tc.args, tc.stdin)
			var ue *base.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("got error %v, want a usage error", err)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
