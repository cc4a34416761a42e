package users

import (
	"context"
	"errors"
)

// SMSRights is what a user may do with SMS through calq serve.
type SMSRights struct {
	Allowed bool     `json:"allowed"` // may send (calq users set NAME --sms)
	Rate    int      `json:"rate"`    // messages a minute; 0: the server's default
	Quota   int      `json:"quota"`   // messages a day (UTC); 0: the server's default
	Numbers []string `json:"numbers"` // the modems (names or numbers) whose received messages are the user's
	// InboundURL receives each message that arrives for the user (a
	// JSON POST); "" none.
	InboundURL string `json:"inbound_url,omitempty"`
}

// SMSRights returns the SMS rights of user name (none for a user never
// given any); ErrNoUser when there is no such user.
func (s *Store) SMSRights(ctx context.Context, name string) (SMSRights, error) {
	return SMSRights{}, errors.New("users: SMS rights not built yet")
}

// SetSMSRights replaces the SMS rights of user name.
func (s *Store) SetSMSRights(ctx context.Context, name string, r SMSRights) error {
	return errors.New("users: SMS rights not built yet")
}
