package convert

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
	"time"

	"calq/convert/lo"
	"calq/convert/sniff"
	"calq/sched"
)

// TestClassifyFileSystem: errors of the file system that a retry meets
// again (no permission, a read-only or missing directory, a path too
// long) are permanent, on every route; a full disk or an I/O error may
// pass and is retried.
func TestClassifyFileSystem(t *testing.T) {
	pathErr := func(op string, errno syscall.Errno) error {
		return fmt.Errorf("write the PDF: %w", &fs.PathError{Op: op, Path: "/out/a.pdf", Err: errno})
	}
	tests := []struct {
		name      string
		kind      sniff.Kind
		err       error
		permanent bool
	}{
		{"EACCES", sniff.Office, pathErr("open", syscall.EACCES), true},
		{"EPERM", sniff.Image, pathErr("chmod", syscall.EPERM), true},
		{"ENOENT", sniff.Office, pathErr("open", syscall.ENOENT), true},
		{"EROFS rename", sniff.PDF, &os.LinkError{Op: "rename", Old: "/out/.a.tmp", New: "/out/a.pdf", Err: syscall.EROFS}, true},
		{"ENOTDIR", sniff.Office, pathErr("open", syscall.ENOTDIR), true},
		{"EISDIR", sniff.Office, pathErr("open", syscall.EISDIR), true},
		{"ENAMETOOLONG", sniff.Office, pathErr("open", syscall.ENAMETOOLONG), true},
		{"LibreOffice's output EACCES", sniff.Office, &lo.ConvertError{Input: "a.docx", Reason: lo.ReasonOutput, Err: pathErr("open", syscall.EACCES)}, true},
		{"ENOSPC", sniff.Office, pathErr("write", syscall.ENOSPC), false},
		{"EIO", sniff.Image, pathErr("read", syscall.EIO), false},
		{"LibreOffice's output ENOSPC", sniff.Office, &lo.ConvertError{Input: "a.docx", Reason: lo.ReasonOutput, Err: pathErr("write", syscall.ENOSPC)}, false},
		{"instance died", sniff.Office, &lo.ConvertError{Input: "a.docx", Reason: lo.ReasonInstanceDied, Err: errors.New("exit status 1")}, false},
		{"instance stopped (SIGSTOP) past the deadline", sniff.Office, &lo.ConvertError{Input: "a.docx", Reason: lo.ReasonStopped, Err: lo.ErrInstanceStopped}, false},
		{"LibreOffice state directory unusable", sniff.Office, &lo.ConvertError{Input: "a.docx", Reason: lo.ReasonStartFailed, Err: pathErr("open", syscall.EROFS)}, false},
	}
	for _, tt := range tests {
		got := classify(context.Background(), tt.kind, tt.err, time.Minute)
		if p := sched.IsPermanent(got); p != tt.permanent {
			t.Errorf("%s: classify(%v) permanent %v, want %v", tt.name, tt.err, p, tt.permanent)
		}
		if !errors.Is(got, tt.err) {
			t.Errorf("%s: classify lost the error: %v", tt.name, got)
		}
	}
}
