package serve

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"

	"calq/internal/debris"
	"calq/internal/serve/jobs"
)

// sweepLeftovers removes from --data what a server killed with SIGKILL
// left there and the journal does not account for, before Start resumes
// the pending jobs:
//
//   - a job directory without a record: an upload cut before its job was
//     recorded (its uploads, perhaps its passwords' file);
//   - in a pending job's directory, the partial files of its run (a zip
//     being written, calq's temporaries of the dead process), which would
//     stand in the way of its run again;
//   - what a finished job's end had still to remove: a done job's uploads
//     and passwords, a failed, cancelled or expired job's directory.
//
// It runs before the server takes requests: no upload is under way, so a
// directory without a record can only be a dead one's. It logs what it
// removed; a failure is logged and skipped.
func (s *Server) sweepLeftovers(ctx context.Context) {
	root := filepath.Join(s.opts.Data, "jobs")
	entries, err := os.ReadDir(root)
	if err != nil {
		s.opts.Log.Error("sweep the data directory", "err", err)
		return
	}
	removed := 0
	for _, e := range entries {
		if !e.IsDir() || !isJobID(e.Name()) {
			continue // not calq's: left alone
		}
		j, err := s.opts.Jobs.Get(ctx, "*", e.Name())
		switch {
		case errors.Is(err, jobs.ErrNotFound):
			removed += s.removeLeft(filepath.Join(root, e.Name()))
		case err != nil:
			s.opts.Log.Error("sweep the data directory", "job", e.Name(), "err", err)
		default:
			removed += s.sweepJob(&j)
		}
	}
	if removed > 0 {
		s.opts.Log.Info("removed what a crash left in the data directory", "count", removed)
	}
}

// sweepJob removes from a known job's directory what its state says
// should not be there, and returns how many entries went.
func (s *Server) sweepJob(j *jobs.Job) int {
	dir := s.jobDir(j.ID)
	if j.Expired || j.State == jobs.Failed || j.State == jobs.Cancelled {
		return s.removeLeft(dir) // end and retention keep nothing of these
	}
	var left []string
	if j.State == jobs.Done {
		left = append(left, filepath.Join(dir, inputDirName), filepath.Join(dir, secretsFile))
	}
	parts, _ := filepath.Glob(filepath.Join(dir, "*.part"))
	n := 0
	for _, p := range append(left, parts...) {
		n += s.removeLeft(p)
	}
	for _, d := range []string{dir, filepath.Join(dir, resultDirName)} {
		gone, _ := debris.Sweep(d)
		n += len(gone)
	}
	return n
}

// removeLeft removes path, if it is there, and returns 1 if it was.
func (s *Server) removeLeft(path string) int {
	if _, err := os.Lstat(path); err != nil {
		return 0
	}
	if err := os.RemoveAll(path); err != nil {
		s.opts.Log.Error("sweep the data directory", "err", err)
		return 0
	}
	return 1
}

// isJobID says whether name is a job's id as newID makes them: 32
// lower-case hexadecimal digits.
func isJobID(name string) bool {
	b, err := hex.DecodeString(name)
	return err == nil && len(b) == 16 && hex.EncodeToString(b) == name
}
