package sms

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/scrypt"

	"calq/sms/at"
	"calq/sms/store"
)

// PINStore remembers the PINs a SIM refused, so that calq never enters one
// twice by itself. *store.Store implements it.
type PINStore interface {
	PINRejection(ctx context.Context, sim string) (store.PINRejection, bool, error)
	RecordPINRejection(ctx context.Context, r store.PINRejection) error
	ClearPINRejection(ctx context.Context, sim string) error
}

// ErrPINRejected is wrapped by Dial's error when the SIM refused the
// modem's PIN, now (at.ErrPINRejected) or in an earlier run.
var ErrPINRejected = errors.New("pin rejected")

// PINRejectedError says that the SIM refused this PIN, and since when.
// Earlier is true when calq did not enter it now: the journal says the
// SIM refused the same PIN source before.
type PINRejectedError struct {
	Modem, SIM string
	Since      time.Time
	Earlier    bool
	Err        error // the modem's answer, when it refused it now
}

func (e *PINRejectedError) Error() string {
	if e.Earlier {
		return fmt.Sprintf("%v: SIM %s refused this PIN at %s; calq will not enter it again", ErrPINRejected, e.SIM,
			e.Since.Local().Format(time.DateTime))
	}
	return fmt.Sprintf("%v: SIM %s refused the PIN (%v); calq will not enter it again", ErrPINRejected, e.SIM, e.Err)
}

func (e *PINRejectedError) Unwrap() []error { return []error{ErrPINRejected, e.Err} }

// Hint says how to go on.
func (e *PINRejectedError) Hint() string {
	return fmt.Sprintf("correct the modem's pin_file or pin_env (a changed PIN is tried once), or run 'calq sms modems --retry-pin %s' to enter the same PIN once more", e.Modem)
}

// unlocker is the at.Unlocker of s: it enters s.PIN unless s.PINs
// recorded that this SIM refused the same PIN (by fingerprint) and
// s.RetryPIN is not set, and records a refusal. The SIM is known by its
// ICCID where the modem gives one, else by the device.
func (s ModemSpec) unlocker() at.Unlocker {
	if s.PIN == "" {
		return nil
	}
	return func(ctx context.Context, m *at.Modem) error {
		if s.PINs == nil {
			return m.EnterPIN(ctx, s.PIN)
		}
		sim := "device:" + s.Device
		if id := m.ICCID(ctx); id != "" {
			sim = "iccid:" + id
		}
		rej, found, err := s.PINs.PINRejection(ctx, sim)
		if err != nil {
			return err
		}
		if found && !s.RetryPIN {
			same, err := samePIN(s.PIN, rej)
			if err != nil || same {
				return errors.Join(err, &PINRejectedError{Modem: s.Name, SIM: sim, Since: rej.Rejected, Earlier: true})
			}
		}
		return s.enterPIN(ctx, m, sim, found)
	}
}

// enterPIN enters the PIN and records the outcome: a refusal, or that an
// earlier refusal no longer holds.
func (s ModemSpec) enterPIN(ctx context.Context, m *at.Modem, sim string, found bool) error {
	err := m.EnterPIN(ctx, s.PIN)
	// Recorded whatever becomes of ctx: the try is spent.
	rctx := context.WithoutCancel(ctx)
	switch {
	case errors.Is(err, at.ErrPINRejected):
		r := store.PINRejection{SIM: sim, Modem: s.Name, Reason: err.Error()}
		var herr error
		if r.Salt, r.Fingerprint, herr = newPINFingerprint(s.PIN); herr == nil {
			herr = s.PINs.RecordPINRejection(rctx, r)
		}
		return errors.Join(&PINRejectedError{Modem: s.Name, SIM: sim, Since: time.Now(), Err: err}, herr)
	case err == nil && found:
		return s.PINs.ClearPINRejection(rctx, sim)
	}
	return err
}

// scrypt's cost: N 2^15, r 8, p 1, about 0.1 s and 32 MiB per hash. A PIN
// has few digits, so no hash makes guessing it offline impossible; a slow
// one makes the journal a poor oracle, and it is computed only when a SIM
// refused a PIN.
const (
	scryptN, scryptR, scryptP, scryptLen = 1 << 15, 8, 1, 32
	saltLen                              = 16
)

func pinHash(pin string, salt []byte) ([]byte, error) {
	k, err := scrypt.Key([]byte(pin), salt, scryptN, scryptR, scryptP, scryptLen)
	if err != nil {
		return nil, fmt.Errorf("hash the PIN: %w", err)
	}
	return k, nil
}

// newPINFingerprint returns a fresh salt and the PIN's hash under it.
func newPINFingerprint(pin string) (salt, sum []byte, err error) {
	salt = make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return nil, nil, fmt.Errorf("salt the PIN's hash: %w", err)
	}
	sum, err = pinHash(pin, salt)
	return salt, sum, err
}

// samePIN reports whether pin is the PIN r records as refused.
func samePIN(pin string, r store.PINRejection) (bool, error) {
	sum, err := pinHash(pin, r.Salt)
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(sum, r.Fingerprint) == 1, nil
}
