// Package profiles keeps the conversion profiles of calq serve's users,
// which each user adds, changes and removes in the browser. A user's
// profiles are a file in calq's config format, DIR/USER.toml, holding
// [profiles.NAME] tables and nothing else, so that
// `calq convert --config DIR/USER.toml --profile NAME` reads the same
// records; internal/config loads and checks them.
//
// A user's profile names no file on the server (watermark_image,
// owner_password_file, user_password_file, out): a user must not make
// the server read or write its files. Encryption passwords are typed in
// the convert form, never stored: a profile with encrypt = true says to
// encrypt, the form gives the passwords.
//
// Open returns the Store; List, Get, Put, Delete and DeleteUser read and
// change one user's profiles. A file is replaced at once, durably
// (fsio.WriteFile), 0600 in a 0700 directory. A Store is safe for
// concurrent use; two Stores (two processes) on one directory are not:
// their changes of one user's file at the same moment may lose one.
package profiles

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"calq/internal/config"
	"calq/internal/debris"
	"calq/internal/fsio"
	"calq/internal/serve/users"
)

// MaxNameLen is the longest profile name, in bytes (all ASCII).
const MaxNameLen = 64

// ErrNoProfile is returned for a profile the user does not have.
var ErrNoProfile = errors.New("no such profile")

// ErrInvalid is wrapped by the errors of a user name, profile name or
// profile that the Store refuses: what to show the user who typed them.
var ErrInvalid = errors.New("invalid")

// Named is a profile and its name.
type Named struct {
	Name    string
	Profile config.Profile
}

// Store is the profiles of calq serve's users, a file per user in one
// directory.
type Store struct {
	dir string
	mu  sync.Mutex // held while a user's file is read, changed and written
}

// Open returns the store in dir, creating dir (0700) when missing and
// making it 0700 when not, and removing the temporary files of writes a
// dead process left.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open the profiles: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open the profiles: %w", err)
	}
	if _, err := debris.Sweep(dir, "write"); err != nil {
		return nil, fmt.Errorf("open the profiles: %w", err)
	}
	return &Store{dir: dir}, nil
}

// Path is the file of user's profiles, which calq convert --config
// reads; an error for a name users.CheckName refuses.
func (s *Store) Path(user string) (string, error) {
	if err := users.CheckName(user); err != nil {
		return "", fmt.Errorf("%w: user %w", ErrInvalid, err)
	}
	return filepath.Join(s.dir, user+".toml"), nil
}

// List returns user's profiles sorted by name; none when the user has no
// file.
func (s *Store) List(user string) ([]Named, error) {
	ps, err := s.load(user)
	if err != nil {
		return nil, fmt.Errorf("list the profiles of %s: %w", user, err)
	}
	named := make([]Named, 0, len(ps))
	for name, p := range ps {
		named = append(named, Named{name, p})
	}
	slices.SortFunc(named, func(a, b Named) int { return strings.Compare(a.Name, b.Name) })
	return named, nil
}

// Get returns user's profile name; ErrNoProfile when there is none.
func (s *Store) Get(user, name string) (config.Profile, error) {
	ps, err := s.load(user)
	if err == nil {
		var ok bool
		var p config.Profile
		if p, ok = ps[name]; ok {
			return p, nil
		}
		err = ErrNoProfile
	}
	return config.Profile{}, fmt.Errorf("get the profile %q of %s: %w", name, user, err)
}

// Put records p as user's profile name, replacing the profile of that
// name. name is 1 to MaxNameLen ASCII letters, digits and '-', '_', '.';
// p passes config's checks and names no file. An empty MailTo is stored
// as none.
func (s *Store) Put(user, name string, p config.Profile) error {
	err := checkName(name)
	if err == nil {
		err = Check(name, p)
	}
	if err == nil {
		err = s.change(user, func(ps map[string]config.Profile) error {
			ps[name] = p
			return nil
		})
	}
	if err != nil {
		return fmt.Errorf("put the profile %q of %s: %w", name, user, err)
	}
	return nil
}

// Delete removes user's profile name; ErrNoProfile when there is none.
func (s *Store) Delete(user, name string) error {
	err := s.change(user, func(ps map[string]config.Profile) error {
		if _, ok := ps[name]; !ok {
			return ErrNoProfile
		}
		delete(ps, name)
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete the profile %q of %s: %w", name, user, err)
	}
	return nil
}

// DeleteUser removes all of user's profiles (the user was removed); a
// user without any is no error.
func (s *Store) DeleteUser(user string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	path, err := s.Path(user)
	if err == nil {
		if err = os.Remove(path); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	if err == nil {
		err = fsio.SyncDir(s.dir)
	}
	if err != nil {
		return fmt.Errorf("delete the profiles of %s: %w", user, err)
	}
	return nil
}

// Check returns an error wrapping ErrInvalid when p cannot be a user's
// profile name: config's checks of a [profiles.NAME], and no file named.
func Check(name string, p config.Profile) error {
	if err := errors.Join(p.Check(name), checkFiles(name, p)); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

// checkFiles returns an error naming the keys of p that name files.
func checkFiles(name string, p config.Profile) error {
	var keys []string
	for _, f := range []struct{ key, value string }{
		{"watermark_image", p.WatermarkImage},
		{"owner_password_file", p.OwnerPasswordFile},
		{"user_password_file", p.UserPasswordFile},
		{"out", p.Out},
	} {
		if f.value != "" {
			keys = append(keys, f.key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return fmt.Errorf("profiles.%s: %s: a profile of calq serve names no file on the server", name, strings.Join(keys, ", "))
}

// validName is a profile's name: see Put.
var validName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,` + strconv.Itoa(MaxNameLen) + `}$`)

// checkName checks a profile's name.
func checkName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("%w: name %q: a profile's name is 1 to %d letters a-z and A-Z, digits and - _ .",
			ErrInvalid, name, MaxNameLen)
	}
	return nil
}

// file is what a user's file holds.
type file struct {
	Profiles map[string]config.Profile `toml:"profiles"`
}

// load reads user's profiles: none when the file is missing. A file that
// holds more than profiles, or a profile naming files (written by hand),
// is an error.
func (s *Store) load(user string) (map[string]config.Profile, error) {
	path, err := s.Path(user)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]config.Profile{}, nil
	}
	if err != nil {
		return nil, err
	}
	if cfg.SMTP != (config.SMTP{}) || len(cfg.SMS.Modems) > 0 {
		return nil, fmt.Errorf("%s: holds more than [profiles.NAME] tables", path)
	}
	for name, p := range cfg.Profiles {
		if err := checkFiles(name, p); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if cfg.Profiles == nil {
		cfg.Profiles = map[string]config.Profile{}
	}
	return cfg.Profiles, nil
}

// change applies fn to user's profiles and writes them back (removes the
// file when none are left), under the store's lock.
func (s *Store) change(user string, fn func(map[string]config.Profile) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps, err := s.load(user)
	if err != nil {
		return err
	}
	if err := fn(ps); err != nil {
		return err
	}
	path, _ := s.Path(user) // load checked user
	if len(ps) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return fsio.SyncDir(s.dir)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# The conversion profiles of calq serve's user %s, which they change in the browser:\n"+
		"# calq convert --config %s --profile NAME uses them too.\n\n", user, path)
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(file{ps}); err != nil {
		return err
	}
	if buf.Len() > fsio.ConfigLimit {
		return fmt.Errorf("%w: the profiles would take %s, more than a config file holds (%s)",
			ErrInvalid, fsio.Size(int64(buf.Len())), fsio.Size(fsio.ConfigLimit))
	}
	return fsio.WriteFile(path, buf.Bytes(), 0o600)
}
