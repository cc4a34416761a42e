package emu

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"calq/internal/tooltest"
	"calq/sms/pdu"
)

// gammu runs gammu with a gammurc for device and returns its stdout. On
// failure the test shows gammu's debug log, which has every AT command.
func gammu(t *testing.T, device string, args ...string) string {
	t.Helper()
	bin := tooltest.Require(t, "gammu")
	dir := t.TempDir()
	rc, logf := filepath.Join(dir, "gammurc"), filepath.Join(dir, "gammu.log")
	conf := fmt.Sprintf("[gammu]\ndevice = %s\nconnection = at\nlogfile = %s\nlogformat = textall\n", device, logf)
	if err := os.WriteFile(rc, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// A deadline so that a hang fails the test; nothing is timed.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-c", rc}, args...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	out, err := cmd.Output()
	if err != nil {
		debug, _ := os.ReadFile(logf)
		t.Fatalf("gammu %s: %v\nstdout:\n%s\ngammu log:\n%s", strings.Join(args, " "), err, out, debug)
	}
	return string(out)
}

// TestGammuSendSMS has gammu send texts through an emulated modem and
// checks that calq's decoder reads back from the log exactly the text.
func TestGammuSendSMS(t *testing.T) {
	tooltest.Require(t, "gammu")
	long := strings.Repeat("abcdefghij", 40)
	for _, tc := range []struct {
		name, text string
		flags      []string
		want       string // the text decoded from the logged PDUs
		enc        string
		parts      int
	}{
		{"plain", "Hello", nil, "Hello", "gsm7", 1},
		{"accented in the GSM alphabet", "Grüße àèéìòù ÄÖÑÜ äöñü", nil, "Grüße àèéìòù ÄÖÑÜ äöñü", "gsm7", 1},
		// gammu silently transliterates what the GSM alphabet lacks
		// (î → i) unless told -unicode; calq must not (issue 6).
		{"accented, transliterated by gammu", "Grüße àéî", nil, "Grüße àéi", "gsm7", 1},
		{"accented, unicode", "Grüße àéî", []string{"-unicode"}, "Grüße àéî", "ucs2", 1},
		{"extension table", `€ [x] {y} ~ ^ \ |`, nil, `€ [x] {y} ~ ^ \ |`, "gsm7", 1},
		{"unicode", "Привет 世界 😀", []string{"-unicode"}, "Привет 世界 😀", "ucs2", 1},
		{"multipart", long, []string{"-len", "400"}, long, "gsm7", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // gammu spends seconds in its own pauses
			e, log := start(t, Options{})
			args := append([]string{"sendsms", "TEXT", "+4915112345678"}, tc.flags...)
			gammu(t, e.Devices()[0], append(args, "-text", tc.text)...)
			recs := log.records(t)
			if len(recs) != tc.parts {
				t.Fatalf("%d PDUs logged, want %d: %v", len(recs), tc.parts, recs)
			}
			got := decodeParts(t, recs, tc.enc)
			if got != tc.want {
				t.Errorf("decoded %q, want %q", got, tc.want)
			}
		})
	}
}

// decodeParts decodes logged SUBMITs, checks their encoding and
// concatenation header and joins their text in sequence order.
func decodeParts(t *testing.T, recs []Record, enc string) string {
	t.Helper()
	var msgs []pdu.Message
	for i, r := range recs {
		m, err := pdu.Decode(r.PDU, pdu.MO)
		if err != nil {
			t.Fatalf("decode %s: %v", r.PDU, err)
		}
		if m.Type != "SUBMIT" || m.DA != "+4915112345678" || m.Encoding != enc || m.MR != 0 && r.MR != i {
			t.Errorf("part %d: type %s, da %s, encoding %s, mr %d; want SUBMIT to +4915112345678 in %s",
				i, m.Type, m.DA, m.Encoding, r.MR, enc)
		}
		if len(recs) > 1 && (m.Concat == nil || m.Concat.Total != len(recs) || m.Concat.Ref != msgs0(msgs, m).Concat.Ref) {
			t.Errorf("part %d: concat %+v, want %d parts with one reference", i, m.Concat, len(recs))
		}
		msgs = append(msgs, m)
	}
	slices.SortFunc(msgs, func(a, b pdu.Message) int {
		if a.Concat == nil || b.Concat == nil {
			return 0
		}
		return a.Concat.Seq - b.Concat.Seq
	})
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Text)
	}
	return b.String()
}

// msgs0 is the first part decoded so far, or m itself.
func msgs0(msgs []pdu.Message, m pdu.Message) pdu.Message {
	if len(msgs) > 0 && msgs[0].Concat != nil {
		return msgs[0]
	}
	return m
}

// TestGammuGetAllSMS plants DELIVER PDUs, encoded by calq and taken from
// other projects' test suites, and checks that gammu getallsms shows
// their text.
func TestGammuGetAllSMS(t *testing.T) {
	tooltest.Require(t, "gammu")
	inbox, texts := vectorDelivers(t)
	scts := time.Date(2024, 5, 1, 12, 30, 0, 0, time.FixedZone("", 2*3600))
	for _, text := range []string{"Hello from calq", "Grüße àèéìòù ÄÖÑÜ", `€ [x] {y} ~ ^ \ |`, "Привет 世界 😀"} {
		hexes, err := pdu.EncodeDeliver("+4915112345678", text, scts, pdu.DeliverOptions{SMSC: "+491710760000"})
		if err != nil || len(hexes) != 1 {
			t.Fatalf("EncodeDeliver(%q) = %v, %v; want one PDU", text, hexes, err)
		}
		inbox, texts = append(inbox, hexes[0]), append(texts, text)
	}
	e, _ := start(t, Options{Inbox: inbox})
	out := gammu(t, e.Devices()[0], "getallsms")
	for _, text := range texts {
		if !strings.Contains(out, text) {
			t.Errorf("gammu getallsms does not show %q:\n%s", text, out)
		}
	}
	if want := fmt.Sprintf("%d SMS parts", len(inbox)); !strings.Contains(out, want) {
		t.Errorf("gammu getallsms does not say %q:\n%s", want, out)
	}
}

// vectorDelivers reads the single-part DELIVER rows of
// ../testdata/pdu-vectors.tsv: their hex and text.
func vectorDelivers(t *testing.T) (hexes, texts []string) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "pdu-vectors.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		col := strings.Split(sc.Text(), "\t")
		if len(col) < 5 || col[1] != "mt" {
			continue
		}
		var want struct {
			Type   string          `json:"type"`
			Text   string          `json:"text"`
			Concat json.RawMessage `json:"concat"`
		}
		if err := json.Unmarshal([]byte(col[4]), &want); err != nil {
			t.Fatalf("%s: %v", col[0], err)
		}
		if want.Type == "DELIVER" && want.Concat == nil {
			hexes, texts = append(hexes, col[3]), append(texts, want.Text)
		}
	}
	if len(hexes) == 0 {
		t.Fatal("no DELIVER vectors")
	}
	return hexes, texts
}

// TestGammuStatusReport: gammu sends a text asking for a delivery
// report; the emulator stores the report (AT+CNMI as gammu leaves it) and
// gammu getallsms shows it, delivered or failed as the fail rate says.
func TestGammuStatusReport(t *testing.T) {
	tooltest.Require(t, "gammu")
	for _, tc := range []struct {
		name string
		rate float64
		want string
	}{
		{"delivered", 0, "Delivery status      : Delivered"},
		{"failed", 1, "Details              : Permanent error, Remote procedure error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // gammu spends seconds in its own pauses
			e, log := start(t, Options{ReportFailRate: tc.rate, Seed: 1})
			gammu(t, e.Devices()[0], "sendsms", "TEXT", "+4915112345678", "-report", "-text", "report me")
			recs := log.records(t)
			if len(recs) != 1 {
				t.Fatalf("%d PDUs logged, want 1", len(recs))
			}
			if m, err := pdu.Decode(recs[0].PDU, pdu.MO); err != nil || !m.SRR {
				t.Fatalf("gammu's SUBMIT %s: %+v, %v; want TP-SRR set", recs[0].PDU, m, err)
			}
			out := gammu(t, e.Devices()[0], "getallsms")
			for _, want := range []string{"SMS status report", `Remote number        : "+4915112345678"`, tc.want} {
				if !strings.Contains(out, want) {
					t.Errorf("gammu getallsms does not show %q:\n%s", want, out)
				}
			}
		})
	}
}
