package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"calq/convert/chromium"
	"calq/convert/pdf"
)

// secretsFile holds, in a job's directory (0700, like all of --data),
// the passwords its request gave: the one that opens its source and
// those that encrypt its result, and a Chromium page's cookies and extra
// headers. They never go to the journal, whose
// rows outlive the job and which calq history and backups read; the file
// is removed when the job ends, and with the directory by --keep.
const secretsFile = "secrets.json"

// secrets are a task's passwords.
type secrets struct {
	Source  string          `json:"source,omitempty"`
	Encrypt *pdf.Encryption `json:"encrypt,omitempty"`
	// Cookies and Headers are a Chromium page's cookies and extra HTTP
	// headers: sessions and authorizations.
	Cookies []chromium.Cookie `json:"cookies,omitempty"`
	Headers []chromium.Header `json:"headers,omitempty"`
}

// takeSecrets moves t's passwords out of it: what is left may be
// recorded.
func (t *Task) takeSecrets() secrets {
	sec := secrets{Source: t.Export.Password}
	t.Export.Password = ""
	if e := t.Post.Encrypt; e != nil {
		sec.Encrypt = &pdf.Encryption{UserPassword: e.UserPassword, OwnerPassword: e.OwnerPassword}
		t.Post.Encrypt = &pdf.Encryption{Permissions: e.Permissions}
	}
	if c := t.Chromium; c != nil {
		sec.Cookies, sec.Headers = c.Load.Cookies, c.Load.ExtraHTTPHeaders
		c.Load.Cookies, c.Load.ExtraHTTPHeaders = nil, nil
	}
	return sec
}

// putSecrets puts back into t the passwords takeSecrets took.
func (t *Task) putSecrets(sec secrets) {
	t.Export.Password = sec.Source
	if sec.Encrypt != nil && t.Post.Encrypt != nil {
		t.Post.Encrypt.UserPassword, t.Post.Encrypt.OwnerPassword = sec.Encrypt.UserPassword, sec.Encrypt.OwnerPassword
	}
	if t.Chromium != nil {
		t.Chromium.Load.Cookies, t.Chromium.Load.ExtraHTTPHeaders = sec.Cookies, sec.Headers
	}
}

func (sec secrets) empty() bool {
	return sec.Source == "" && sec.Encrypt == nil && len(sec.Cookies) == 0 && len(sec.Headers) == 0
}

// writeSecrets keeps a job's passwords in its directory, if it has any.
func writeSecrets(dir string, sec secrets) error {
	if sec.empty() {
		return nil
	}
	b, err := json.Marshal(sec)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, secretsFile), b, 0o600); err != nil {
		return fmt.Errorf("keep the job's passwords: %w", err)
	}
	return nil
}

// readSecrets reads what writeSecrets kept; none when there is no file.
func readSecrets(dir string) (secrets, error) {
	var sec secrets
	b, err := os.ReadFile(filepath.Join(dir, secretsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return sec, nil
	}
	if err != nil {
		return sec, fmt.Errorf("read the job's passwords: %w", err)
	}
	return sec, json.Unmarshal(b, &sec)
}
