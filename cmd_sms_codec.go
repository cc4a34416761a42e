package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/exitcode"
	"calq/sms/pdu"
)

func smsDecodeCommand() *cli.Command {
	return &cli.Command{
		Name:      "decode",
		Usage:     "show the fields of hex PDUs as modems read and write them",
		ArgsUsage: "HEX...",
		Description: "Decodes each PDU (SMSC field first, as AT+CMGL shows and AT+CMGS takes) and\n" +
			"prints its fields, one block per PDU. The direction decides what the\n" +
			"message-type bits mean: mo reads SUBMIT, DELIVER-REPORT and COMMAND; mt reads\n" +
			"DELIVER, SUBMIT-REPORT and STATUS-REPORT; by default type 1 is read as\n" +
			"SUBMIT, 0 as DELIVER and 2 as STATUS-REPORT.\n\n" +
			"--json prints a line per PDU, {\"message_type\":\"pdu\", ...} with the fields of\n" +
			"its type: \"type\" (SUBMIT, DELIVER, ...),\n" +
			"\"smsc\" (null for none), \"mr\", \"da\"/\"oa\"/\"ra\", \"toa\", \"pid\", \"dcs\",\n" +
			"\"encoding\", \"class\", \"srr\", \"vp_seconds\", \"vp_abs\", \"scts\", \"dt\", \"st\",\n" +
			"\"concat\" {\"ref\",\"total\",\"seq\",\"bits\"}, \"udh\" (hex), \"text\", \"data\" (hex).\n\n" +
			"A PDU that cannot be decoded is reported on stderr with the field and the\n" +
			"octet offset where it broke; the others are still printed. Exit status 1\n" +
			"when no PDU could be decoded, 3 when some could not.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "direction", Usage: "`mo` (sent: SUBMIT) or mt (received: DELIVER, STATUS-REPORT)", DefaultText: "by type"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			f := &flagCheck{c: c}
			dir, err := pdu.ParseDirection(c.String("direction"))
			if err != nil {
				f.fail("direction", "%v", err)
			}
			if !c.Args().Present() {
				f.errs = append(f.errs, errors.New("no PDU given: calq sms decode HEX..."))
			}
			if len(f.errs) > 0 {
				return usageErrorf(c, "%w", errors.Join(f.errs...))
			}
			return decodePDUs(c.App.Writer, c.Args().Slice(), dir, c.Bool("json"))
		},
	}
}

// decodePDUs prints every PDU it can decode and returns the others'
// errors: plain failure when none decoded, ErrPartial when some did.
func decodePDUs(w io.Writer, hexes []string, dir pdu.Direction, asJSON bool) error {
	var errs []error
	for i, h := range hexes {
		m, err := pdu.Decode(h, dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("PDU %d: %w", i+1, err))
			continue
		}
		if asJSON {
			err = writeJSONLine(w, "pdu", m)
		} else {
			if i > len(errs) {
				fmt.Fprintln(w)
			}
			err = writeMeasures(w, fmt.Sprintf("PDU %d: %s", i+1, m.Type), messageRows(m))
		}
		if err != nil {
			return err
		}
	}
	switch {
	case len(errs) == 0:
		return nil
	case len(errs) == len(hexes):
		return errors.Join(errs...)
	}
	return errors.Join(fmt.Errorf("%w: %d of %d PDUs could not be decoded", exitcode.ErrPartial, len(errs), len(hexes)), errors.Join(errs...))
}

// messageRows are the fields of m's type, for people debugging modems.
func messageRows(m pdu.Message) []measure {
	smsc := m.SMSC
	if smsc == "" {
		smsc = "none (the modem's default)"
	}
	rows := []measure{{"smsc", smsc}, {"first octet", fmt.Sprintf("%02X", m.FirstOctet)}}
	addr := func(name, a string) measure {
		return measure{name, fmt.Sprintf("%s (TOA %02X, %s)", a, m.TOA, toaName(m.TOA))}
	}
	switch m.Type {
	case "SUBMIT", "COMMAND":
		rows = append(rows, measure{"mr", strconv.Itoa(m.MR)}, addr("da", m.DA), measure{"srr", srrText(m.SRR)})
	case "DELIVER":
		rows = append(rows, addr("oa", m.OA), measure{"scts", m.SCTS.Format(pdu.TimeLayout)})
	case "STATUS-REPORT":
		rows = append(rows, measure{"mr", strconv.Itoa(m.MR)}, addr("ra", m.RA),
			measure{"scts", m.SCTS.Format(pdu.TimeLayout)}, measure{"dt", m.DT.Format(pdu.TimeLayout)},
			measure{"st", fmt.Sprintf("%d (%s)", m.ST, statusName(m.ST))})
	case "SUBMIT-REPORT":
		rows = append(rows, measure{"scts", m.SCTS.Format(pdu.TimeLayout)})
	}
	if m.VPSeconds > 0 {
		rows = append(rows, measure{"validity", fmt.Sprintf("%v (relative, %d s)", time.Duration(m.VPSeconds)*time.Second, m.VPSeconds)})
	}
	if !m.VPAbsolute.IsZero() {
		rows = append(rows, measure{"validity", m.VPAbsolute.Format(pdu.TimeLayout) + " (absolute)"})
	}
	if m.Encoding == "" {
		return rows
	}
	class := "none"
	if m.Class >= 0 {
		class = strconv.Itoa(m.Class)
		if m.Class == 0 {
			class += " (flash)"
		}
	}
	rows = append(rows, measure{"pid", fmt.Sprintf("%02X", m.PID)},
		measure{"dcs", fmt.Sprintf("%02X (%s, class %s)", m.DCS, m.Encoding, class)})
	if m.Concat != nil {
		rows = append(rows, measure{"concat", fmt.Sprintf("part %d of %d, reference %d (%d-bit)", m.Concat.Seq, m.Concat.Total, m.Concat.Ref, m.Concat.Bits)})
	}
	if len(m.UDH) > 0 {
		rows = append(rows, measure{"udh", fmt.Sprintf("%X", m.UDH)})
	}
	if m.Encoding == "gsm7" || m.Encoding == "ucs2" {
		return append(rows, measure{"text", strconv.Quote(m.Text)})
	}
	return append(rows, measure{"data", fmt.Sprintf("%X", m.Data)})
}

func toaName(toa byte) string {
	return [...]string{"unknown", "international", "national", "network specific", "subscriber", "alphanumeric", "abbreviated", "reserved"}[toa>>4&7]
}

func statusName(st int) string {
	switch {
	case st < 32:
		return "delivered or completed"
	case st < 64:
		return "temporary error, still trying"
	case st < 128:
		return "permanent error"
	}
	return "reserved"
}

func srrText(b bool) string {
	if b {
		return "yes: status report requested"
	}
	return "no"
}

// encodeOutput is calq sms encode --json.
// partOutput is --json's line for a part.
type partOutput struct {
	Seq      int    `json:"seq"`
	Total    int    `json:"total"`
	Ref      int    `json:"ref,omitempty"`
	Encoding string `json:"encoding"`
	TPDULen  int    `json:"tpdu_length"`
	PDU      string `json:"pdu"`
	Text     string `json:"text"`
}

func smsEncodeCommand() *cli.Command {
	return &cli.Command{
		Name:      "encode",
		Usage:     "encode a text as SMS-SUBMIT PDUs and show the AT+CMGS length of each",
		ArgsUsage: "TEXT  (- reads standard input)",
		Description: "Uses GSM 7-bit when every character fits, else UCS-2; nothing is replaced\n" +
			"unless --transliterate is given, which replaces characters outside GSM 7-bit\n" +
			"(“smart quotes”, dashes, accents) only when the whole text then fits, and\n" +
			"reports each change on stderr. A long text is split into parts (153 septets\n" +
			"or 67 UCS-2 characters with an 8-bit reference) that never cut an escape pair\n" +
			"or a surrogate pair. Prints each part's AT+CMGS length and hex PDU.\n\n" +
			"--validity takes a duration (30m, 12h, 3d, 2w: rounded up to the next period a\n" +
			"PDU can carry, at most 63 weeks) or an RFC 3339 time (absolute validity).\n\n" +
			"--json prints a line per part, {\"message_type\":\"part\",\"seq\",\"total\",\"ref\",\n" +
			"\"encoding\",\"tpdu_length\",\"pdu\",\"text\"}, after a line per transliteration,\n" +
			"{\"message_type\":\"transliterated\",\"from\",\"to\",\"count\"}.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "to", Usage: "destination `NUMBER`: +4915112345678, 015112345678 or a short number (required)"},
			&cli.BoolFlag{Name: "flash", Usage: "class 0: shown at once, not stored"},
			&cli.BoolFlag{Name: "report", Usage: "request a status report"},
			&cli.StringFlag{Name: "validity", Usage: "relative `PERIOD` (3d, 12h) or absolute RFC 3339 time"},
			&cli.StringFlag{Name: "smsc", Usage: "service centre `NUMBER`; default: the modem's own"},
			&cli.BoolFlag{Name: "transliterate", Usage: "replace characters outside GSM 7-bit when that avoids UCS-2"},
			&cli.IntFlag{Name: "ref", Usage: "concatenation `REFERENCE` 1-65535; default random"},
			&cli.BoolFlag{Name: "ref16", Usage: "use a 16-bit concatenation reference"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			o, to, text, err := encodeOptions(c)
			if err != nil {
				return err
			}
			parts, changes, err := pdu.EncodeSubmit(to, text, o)
			if err != nil {
				return fmt.Errorf("sms encode: %w", err)
			}
			for _, ch := range changes {
				fmt.Fprintf(c.App.ErrWriter, "calq: transliterated %q → %q (%d×)\n", ch.From, ch.To, ch.Count)
			}
			if c.Bool("json") {
				return writeEncodeJSON(c.App.Writer, parts, changes)
			}
			return writeParts(c.App.Writer, parts)
		},
	}
}

// encodeOptions reads the flags and TEXT, naming every bad flag at once.
func encodeOptions(c *cli.Context) (pdu.SubmitOptions, string, string, error) {
	f := &flagCheck{c: c}
	o := pdu.SubmitOptions{Flash: c.Bool("flash"), Report: c.Bool("report"), SMSC: c.String("smsc"),
		Transliterate: c.Bool("transliterate"), Ref: c.Int("ref"), Force16bitRef: c.Bool("ref16")}
	to := c.String("to")
	if !c.IsSet("to") {
		f.fail("to", "required")
	} else if _, err := pdu.ParseAddress(to, false); err != nil {
		f.fail("to", "%v", err)
	}
	if o.SMSC != "" {
		if _, err := pdu.ParseAddress(o.SMSC, false); err != nil {
			f.fail("smsc", "%v", err)
		}
	}
	if c.IsSet("validity") {
		var err error
		if o.Validity, o.ValidUntil, err = parseValidity(c.String("validity")); err != nil {
			f.fail("validity", "%v", err)
		}
	}
	if o.Ref < 0 || o.Ref > 0xFFFF || c.IsSet("ref") && o.Ref == 0 {
		f.fail("ref", "%d is not between 1 and 65535", o.Ref)
	}
	var text string
	switch c.NArg() {
	case 0:
		f.errs = append(f.errs, errors.New("no TEXT given"))
	case 1:
		text = c.Args().First()
		if text == "-" {
			b, err := io.ReadAll(c.App.Reader)
			if err != nil {
				return o, "", "", fmt.Errorf("sms encode: reading standard input: %w", err)
			}
			text = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		}
		if text == "" {
			f.errs = append(f.errs, errors.New("TEXT is empty: there is nothing to send"))
		}
	default:
		f.errs = append(f.errs, fmt.Errorf("unexpected argument %q: quote TEXT as one argument", c.Args().Get(1)))
	}
	if len(f.errs) > 0 {
		return o, "", "", usageErrorf(c, "%w", errors.Join(f.errs...))
	}
	return o, to, text, nil
}

// parseValidity reads a relative period (a Go duration, or whole days
// "3d" or weeks "2w") or an absolute RFC 3339 time.
func parseValidity(s string) (time.Duration, time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		if t.Year() < 2000 || t.Year() > 2099 {
			return 0, time.Time{}, fmt.Errorf("%s is not in 2000-2099", s)
		}
		return 0, t, nil
	}
	d, err := time.ParseDuration(s)
	if n, e := strconv.Atoi(strings.TrimRight(s, "dw")); err != nil && e == nil && len(s) > 1 {
		unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]]
		d, err = time.Duration(n)*unit, nil
	}
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("%q is neither a period (30m, 12h, 3d, 2w) nor an RFC 3339 time", s)
	}
	if _, err := pdu.ValidityPeriod(d); err != nil {
		return 0, time.Time{}, err
	}
	return d, time.Time{}, nil
}

// writeEncodeJSON prints a line per transliteration, then per part.
func writeEncodeJSON(w io.Writer, parts []pdu.Part, changes []pdu.Change) error {
	for _, ch := range changes {
		if err := writeJSONLine(w, "transliterated", ch); err != nil {
			return err
		}
	}
	for _, p := range parts {
		if err := writeJSONLine(w, "part", partOutput{Seq: p.Seq, Total: p.Total, Ref: p.Ref, Encoding: p.Encoding,
			TPDULen: p.TPDULen, PDU: p.Hex, Text: p.Text}); err != nil {
			return err
		}
	}
	return nil
}

func writeParts(w io.Writer, parts []pdu.Part) error {
	title := fmt.Sprintf("%s, %d part", parts[0].Encoding, len(parts))
	if len(parts) > 1 {
		title += fmt.Sprintf("s, concatenation reference %d", parts[0].Ref)
	}
	fmt.Fprintln(w, title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "part\tAT+CMGS\tpdu")
	for _, p := range parts {
		fmt.Fprintf(tw, "%d/%d\t%d\t%s\n", p.Seq, p.Total, p.TPDULen, p.Hex)
	}
	return tw.Flush()
}
