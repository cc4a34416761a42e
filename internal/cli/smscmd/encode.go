package smscmd

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"calq/internal/cli/base"
	"calq/internal/fsio"
	"calq/sms/pdu"
)

// encodeOutput is calq sms encode --json.
// partOutput is --json's line for a part.
type partOutput struct {
	Seq        int    `json:"seq"`
	Total      int    `json:"total"`
	Ref        int    `json:"ref,omitempty"`
	Encoding   string `json:"encoding"`
	TPDULength int    `json:"tpdu_length"`
	PDU        string `json:"pdu"`
	Text       string `json:"text"`
}

func encodeCommand() *cli.Command {
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
			base.JSONFlag(),
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
	var f base.FlagErrors
	o := pdu.SubmitOptions{Flash: c.Bool("flash"), Report: c.Bool("report"), SMSC: c.String("smsc"),
		Transliterate: c.Bool("transliterate"), Ref: c.Int("ref"), Force16bitRef: c.Bool("ref16")}
	to := c.String("to")
	if !c.IsSet("to") {
		f.Failf("to", "required")
	} else if _, err := pdu.ParseAddress(to, false); err != nil {
		f.Failf("to", "%v", err)
	}
	if o.SMSC != "" {
		if _, err := pdu.ParseAddress(o.SMSC, false); err != nil {
			f.Failf("smsc", "%v", err)
		}
	}
	if c.IsSet("validity") {
		var err error
		if o.Validity, o.ValidUntil, err = parseValidity(c.String("validity")); err != nil {
			f.Failf("validity", "%v", err)
		}
	}
	if o.Ref < 0 || o.Ref > 0xFFFF || c.IsSet("ref") && o.Ref == 0 {
		f.Failf("ref", "%d is not between 1 and 65535", o.Ref)
	}
	var text string
	switch c.NArg() {
	case 0:
		f.Errorf("no TEXT given")
	case 1:
		text = c.Args().First()
		if text == "-" {
			b, err := fsio.ReadAll(c.App.Reader, "standard input", fsio.TextLimit)
			var tl *fsio.TooLargeError
			if errors.As(err, &tl) {
				return o, "", "", base.Usagef(c, "TEXT on %w (an SMS of 255 parts holds less)", err)
			}
			if err != nil {
				return o, "", "", fmt.Errorf("sms encode: reading standard input: %w", err)
			}
			text = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		}
		if text == "" {
			f.Errorf("TEXT is empty: there is nothing to send")
		}
	default:
		f.Errorf("unexpected argument %q: quote TEXT as one argument", c.Args().Get(1))
	}
	if err := f.Err(c); err != nil {
		return o, "", "", err
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
		if n > int(math.MaxInt64/unit) { // would wrap round: too long anyway
			d = math.MaxInt64
		}
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
	if err := base.WriteJSONLines(w, "transliterated", changes); err != nil {
		return err
	}
	for _, p := range parts {
		if err := base.WriteJSONLine(w, "part", partOutput{Seq: p.Seq, Total: p.Total, Ref: p.Ref, Encoding: p.Encoding,
			TPDULength: p.TPDULength, PDU: p.Hex, Text: p.Text}); err != nil {
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
		fmt.Fprintf(tw, "%d/%d\t%d\t%s\n", p.Seq, p.Total, p.TPDULength, p.Hex)
	}
	return tw.Flush()
}
