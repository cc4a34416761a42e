package users

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// schemaV3 adds users' SMS rights: sms says whether the user may send
// (for listings), sms_rights holds SMSRights as JSON.
const schemaV3 = `
ALTER TABLE users ADD COLUMN sms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN sms_rights TEXT NOT NULL DEFAULT '{}';
`

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

// ErrSMSRights is wrapped by SetSMSRights's error for rights that cannot
// be stored (a negative rate, an empty number).
var ErrSMSRights = errors.New("invalid SMS rights")

// SMSRights returns the SMS rights of user name (none for a user never
// given any); ErrNoUser when there is no such user.
func (s *Store) SMSRights(ctx context.Context, name string) (SMSRights, error) {
	var text string
	u, err := s.userRow(ctx, userSelect+`, u.sms_rights FROM users u WHERE u.name = ?`, name, &text)
	if err == nil && u.Name == "" {
		err = ErrNoUser
	}
	var r SMSRights
	if err == nil {
		err = json.Unmarshal([]byte(text), &r)
	}
	if err != nil {
		return SMSRights{}, fmt.Errorf("SMS rights of user %q: %w", name, err)
	}
	r.Allowed = u.SMS // the column is the truth; the JSON keeps the rest
	return r, nil
}

// SetSMSRights replaces the SMS rights of user name.
func (s *Store) SetSMSRights(ctx context.Context, name string, r SMSRights) error {
	err := checkSMSRights(r)
	var text []byte
	if err == nil {
		text, err = json.Marshal(r)
	}
	if err == nil {
		err = s.update(ctx, `UPDATE users SET sms = ?, sms_rights = ? WHERE name = ?`, r.Allowed, string(text), name)
	}
	if err != nil {
		return fmt.Errorf("set SMS rights of user %q: %w", name, err)
	}
	return nil
}

func checkSMSRights(r SMSRights) error {
	switch {
	case r.Rate < 0:
		return fmt.Errorf("%w: rate %d is negative", ErrSMSRights, r.Rate)
	case r.Quota < 0:
		return fmt.Errorf("%w: quota %d is negative", ErrSMSRights, r.Quota)
	}
	for _, n := range r.Numbers {
		if strings.TrimSpace(n) == "" {
			return fmt.Errorf("%w: a number is empty", ErrSMSRights)
		}
	}
	return nil
}
