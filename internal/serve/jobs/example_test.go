package jobs_test

import (
	"os"
	"time"

	"calq/internal/serve/jobs"
)

// The administrator's log export, a row per file: a file name that a
// spreadsheet would run as a formula is defused with an apostrophe.
func ExampleWriteCSV() {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	jobs.WriteCSV(os.Stdout, []jobs.Job{{ID: "j1", Owner: "ann", Route: "libreoffice/convert", State: jobs.Done,
		Created: t0, Started: t0, Finished: t0.Add(1500 * time.Millisecond),
		Files: []jobs.FileState{{Name: "=cmd.docx", State: jobs.FileDone},
			{Name: "scan.tif", State: jobs.FileFailed, Reason: "the image is damaged"}}}})
	// Output:
	// id,owner,route,state,created,started,finished,seconds,file,file_state,file_reason,failed_files,error,expired
	// j1,ann,libreoffice/convert,done,2026-03-01T09:00:00Z,2026-03-01T09:00:00Z,2026-03-01T09:00:01.5Z,1.500,'=cmd.docx,done,,1,,false
	// j1,ann,libreoffice/convert,done,2026-03-01T09:00:00Z,2026-03-01T09:00:00Z,2026-03-01T09:00:01.5Z,1.500,scan.tif,failed,the image is damaged,1,,false
}
