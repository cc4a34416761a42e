package smsapi

import (
	"context"
	"errors"

	"calq/internal/serve/users"
)

// Allowed says whether u may send: the right an administrator gives
// (calq users set NAME --sms), as Send checks it. The SMS page and its
// menu entry are for such users (serve.SMSPages).
func (s *Service) Allowed(ctx context.Context, u users.User) (bool, error) {
	_, err := s.allowed(ctx, u)
	if errors.Is(err, ErrNotAllowed) {
		return false, nil
	}
	return err == nil, err
}
