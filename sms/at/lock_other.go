//go:build !unix

package at

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// LockPath is the lock file of device (unused where the OS already opens
// serial ports exclusively).
func LockPath(device string) string {
	name := strings.Trim(strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(device), "_")
	return filepath.Join(os.TempDir(), "calq-sms-"+name+".lock")
}

// Lock is a no-op here: Windows opens COM ports exclusively, so a second
// process fails in Open instead of interleaving commands.
func Lock(ctx context.Context, device string) (unlock func(), err error) {
	return func() {}, ctx.Err()
}

// LockFile is a no-op here, like Lock.
func LockFile(ctx context.Context, path string) (unlock func(), err error) {
	return func() {}, ctx.Err()
}
