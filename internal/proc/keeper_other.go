//go:build !linux

package proc

import (
	"context"
	"io"
)

// A Keeper runs shell command lines; elsewhere than on Linux it is
// Command, which stops only the direct child.
type Keeper struct{}

// NewKeeper returns a Keeper.
func NewKeeper() *Keeper { return &Keeper{} }

// Close does nothing.
func (k *Keeper) Close() error { return nil }

// Shell runs shell -c line as Command would.
func (k *Keeper) Shell(ctx context.Context, opts Options, shell, line string, stdout, stderr io.Writer) error {
	cmd := Command(ctx, opts, shell, "-c", line)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return cmd.Run()
}
