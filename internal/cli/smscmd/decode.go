package smscmd

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/exitcode"
	"calq/sms/pdu"
)

func decodeCommand() *cli.Command {
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
			base.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			var f base.FlagErrors
			dir, err := pdu.ParseDirection(c.String("direction"))
			if err != nil {
				f.Failf("direction", "%v", err)
			}
			if !c.Args().Present() {
				f.Errorf("no PDU given: calq sms decode HEX...")
			}
			if err := f.Err(c); err != nil {
				return err
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
			err = base.WriteJSONLine(w, "pdu", m)
		} else {
			if i > len(errs) {
				fmt.Fprintln(w)
			}
			err = base.WriteMeasures(w, fmt.Sprintf("PDU %d: %s", i+1, m.Type), messageRows(m))
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
func messageRows(m pdu.Message) []base.Measure {
	smsc := m.SMSC
	if smsc == "" {
		smsc = "none (the modem's default)"
	}
	rows := []base.Measure{{Name: "smsc", Value: smsc}, {Name: "first octet", Value: fmt.Sprintf("%02X", m.FirstOctet)}}
	addr := func(name, a string) base.Measure {
		return base.Measure{Name: name, Value: fmt.Sprintf("%s (TOA %02X, %s)", a, m.TOA, toaName(m.TOA))}
	}
	switch m.Type {
	case "SUBMIT", "COMMAND":
		rows = append(rows, base.Measure{Name: "mr", Value: strconv.Itoa(m.MR)}, addr("da", m.DA), base.Measure{Name: "srr", Value: srrText(m.SRR)})
	case "DELIVER":
		rows = append(rows, addr("oa", m.OA), base.Measure{Name: "scts", Value: m.SCTS.Format(pdu.TimeLayout)})
	case "STATUS-REPORT":
		rows = append(rows, base.Measure{Name: "mr", Value: strconv.Itoa(m.MR)}, addr("ra", m.RA),
			base.Measure{Name: "scts", Value: m.SCTS.Format(pdu.TimeLayout)}, base.Measure{Name: "dt", Value: m.DT.Format(pdu.TimeLayout)},
			base.Measure{Name: "st", Value: fmt.Sprintf("%d (%s)", m.ST, statusName(m.ST))})
	case "SUBMIT-REPORT":
		rows = append(rows, base.Measure{Name: "scts", Value: m.SCTS.Format(pdu.TimeLayout)})
	}
	if m.VPSeconds > 0 {
		rows = append(rows, base.Measure{Name: "validity", Value: fmt.Sprintf("%v (relative, %d s)", time.Duration(m.VPSeconds)*time.Second, m.VPSeconds)})
	}
	if !m.VPAbsolute.IsZero() {
		rows = append(rows, base.Measure{Name: "validity", Value: m.VPAbsolute.Format(pdu.TimeLayout) + " (absolute)"})
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
	rows = append(rows, base.Measure{Name: "pid", Value: fmt.Sprintf("%02X", m.PID)},
		base.Measure{Name: "dcs", Value: fmt.Sprintf("%02X (%s, class %s)", m.DCS, m.Encoding, class)})
	if m.Concat != nil {
		rows = append(rows, base.Measure{Name: "concat", Value: fmt.Sprintf("part %d of %d, reference %d (%d-bit)", m.Concat.Seq, m.Concat.Total, m.Concat.Ref, m.Concat.Bits)})
	}
	if len(m.UDH) > 0 {
		rows = append(rows, base.Measure{Name: "udh", Value: fmt.Sprintf("%X", m.UDH)})
	}
	if m.Encoding == "gsm7" || m.Encoding == "ucs2" {
		return append(rows, base.Measure{Name: "text", Value: strconv.Quote(m.Text)})
	}
	return append(rows, base.Measure{Name: "data", Value: fmt.Sprintf("%X", m.Data)})
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
