package sms

import (
	"context"
	"errors"

	"calq/sms/at"
)

// ReceiveFrom dials the modems of specs (see Dial), runs Receive on those
// that answered and closes them. A modem that cannot be dialled is
// reported in the error and the others still run; with no specs at all
// Receive hands out only what the journal holds.
func ReceiveFrom(ctx context.Context, specs []ModemSpec, ao at.Options, j Store, o RecvOptions) (out []Inbound, err error) {
	var conns []*Conn
	var errs []error
	for _, s := range withPINs(specs, j) {
		c, err := Dial(ctx, s, ao)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		conns = append(conns, c)
	}
	defer func() {
		for _, c := range conns {
			err = errors.Join(err, c.Close())
		}
	}()
	out, err = Receive(ctx, conns, j, o)
	return out, errors.Join(append(errs, err)...)
}
