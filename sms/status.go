package sms

import (
	"context"

	"calq/sms/store"
)

// Status reads the outbox: message id with the status reports received
// for its parts, or, with id 0, the messages f selects, newest first.
func Status(ctx context.Context, jn Store, id int64, f store.SMSFilter) ([]store.SMSMessage, []PartReport, error) {
	if id <= 0 {
		ms, err := jn.ListSMS(ctx, f)
		return ms, nil, err
	}
	m, err := jn.SMS(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	reports, err := Reports(ctx, jn, m)
	return []store.SMSMessage{m}, reports, err
}
