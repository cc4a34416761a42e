package at

import (
	"context"
	"fmt"

	"go.bug.st/serial"
)

// DefaultBaud is used when Open is given a baud rate of 0.
const DefaultBaud = 115200

// Open opens a serial device (8N1, no flow control) and starts a session on
// it; the first Options, if given, tune it. Modem-status lines are left
// alone (Mode.InitialStatusBits nil), which pseudo-terminals require. Open
// does not talk to the modem: call Init. Take Lock(ctx, device) first so
// that two processes never interleave AT commands on one device.
func Open(ctx context.Context, device string, baud int, o ...Options) (*Modem, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if baud <= 0 {
		baud = DefaultBaud
	}
	port, err := serial.Open(device, &serial.Mode{BaudRate: baud, DataBits: 8})
	if err != nil {
		return nil, fmt.Errorf("at: open %s: %w", device, err)
	}
	// Bytes left over from an earlier session would be read as answers.
	if err := port.ResetInputBuffer(); err != nil {
		port.Close()
		return nil, fmt.Errorf("at: open %s: %w", device, err)
	}
	var opt Options
	if len(o) > 0 {
		opt = o[0]
	}
	return New(port, opt), nil
}
