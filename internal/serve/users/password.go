package users

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Password length limits: MinPasswordLen in characters, MaxPasswordLen in
// bytes (argon2 hashes any length, but a megabyte "password" is a way to
// make the server work).
const (
	MinPasswordLen = 8
	MaxPasswordLen = 1024
)

// The argon2id parameters of new hashes: OWASP's minimum (19 MiB, one
// pass, one lane), some 20 ms on a server core, so that a sign-in stays
// cheap and tests fast. A hash keeps its parameters, so raising them
// later leaves old hashes valid.
const (
	argonTime    = 1
	argonMemory  = 19 * 1024 // KiB
	argonThreads = 1
	argonSalt    = 16
	argonKey     = 32
)

// ValidatePassword checks a new password: MinPasswordLen characters or
// more, MaxPasswordLen bytes or fewer, UTF-8 text without control
// characters (a NUL or a newline is a paste gone wrong more often than a
// choice). Its errors wrap ErrInvalidPassword and never quote the
// password.
func ValidatePassword(pw string) error {
	var what string
	switch {
	case len(pw) > MaxPasswordLen:
		what = fmt.Sprintf("is longer than %d bytes", MaxPasswordLen)
	case !utf8.ValidString(pw):
		what = "is not UTF-8 text"
	case strings.ContainsFunc(pw, unicode.IsControl):
		what = "contains a control character"
	case utf8.RuneCountInString(pw) < MinPasswordLen:
		what = fmt.Sprintf("is shorter than %d characters", MinPasswordLen)
	default:
		return nil
	}
	return fmt.Errorf("%w: the password %s", ErrInvalidPassword, what)
}

// argonParams are what a PHC string says of its hash.
type argonParams struct {
	memory  uint32 // KiB
	time    uint32
	threads uint8
}

var newParams = argonParams{argonMemory, argonTime, argonThreads}

// hashPassword returns pw's argon2id hash with a new random salt, in PHC
// string form: $argon2id$v=19$m=19456,t=1,p=1$SALT$HASH (unpadded
// standard base64).
func hashPassword(pw string) (string, error) {
	salt := make([]byte, argonSalt)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("make a salt: %w", err)
	}
	return formatPHC(newParams, salt, argonHash(pw, newParams, salt, argonKey)), nil
}

func argonHash(pw string, p argonParams, salt []byte, n int) []byte {
	return argon2.IDKey([]byte(pw), salt, p.time, p.memory, p.threads, uint32(n))
}

func formatPHC(p argonParams, salt, key []byte) string {
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.memory, p.time, p.threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// verifyPassword says whether pw is the password whose PHC string is phc,
// comparing the hashes in constant time. An error is a phc that is not
// an argon2id hash this package would make.
func verifyPassword(phc, pw string) (bool, error) {
	p, salt, key, err := parsePHC(phc)
	if err != nil {
		return false, err
	}
	got := argonHash(pw, p, salt, len(key))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// dummyHash is what an unknown user's or a password-less user's sign-in
// is checked against, so that it costs what a real one does and its time
// does not tell whether the name exists.
var dummyHash = sync.OnceValue(func() string {
	h, err := hashPassword("no one's password")
	if err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return h
})

// errPHC is a stored password hash that cannot be read.
var errPHC = errors.New("not an argon2id PHC string")

// parsePHC reads a PHC string strictly: the fields formatPHC writes, in
// its order, numbers in canonical decimal, unpadded base64, and
// parameters within bounds that keep a check cheap (memory at most 1 GiB,
// at most 16 passes).
func parsePHC(phc string) (argonParams, []byte, []byte, error) {
	fail := func(what string) (argonParams, []byte, []byte, error) {
		return argonParams{}, nil, nil, fmt.Errorf("%w: %s", errPHC, what)
	}
	f := strings.Split(phc, "$")
	if len(f) != 6 || f[0] != "" || f[1] != "argon2id" {
		return fail("want $argon2id$v=..$m=..,t=..,p=..$salt$hash")
	}
	if f[2] != "v="+strconv.Itoa(argon2.Version) {
		return fail("unknown version " + strconv.Quote(f[2]))
	}
	kvs := strings.Split(f[3], ",")
	if len(kvs) != 3 {
		return fail("bad parameters " + strconv.Quote(f[3]))
	}
	var n [3]uint64
	for i, kv := range kvs {
		v, ok := strings.CutPrefix(kv, "mtp"[i:i+1]+"=")
		x, err := strconv.ParseUint(v, 10, 32)
		if !ok || err != nil || strconv.FormatUint(x, 10) != v {
			return fail("bad parameters " + strconv.Quote(f[3]))
		}
		n[i] = x
	}
	p := argonParams{memory: uint32(n[0]), time: uint32(n[1]), threads: uint8(n[2])}
	if n[2] < 1 || n[2] > 255 || n[1] < 1 || n[1] > 16 || n[0] < 8*n[2] || n[0] > 1<<20 {
		return fail("parameters out of bounds " + strconv.Quote(f[3]))
	}
	b64 := base64.RawStdEncoding.Strict()
	salt, err1 := b64.DecodeString(f[4])
	key, err2 := b64.DecodeString(f[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(salt) > 64 || len(key) < 16 || len(key) > 64 {
		return fail("bad salt or hash")
	}
	return p, salt, key, nil
}
