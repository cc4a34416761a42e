package jobs

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"

	"calq/sched/journal"
)

// TestMigrateFiles: a file written by a calq that knew versions 1 and 2
// only gets version 3 with the names and, where the job's state tells
// them, the files' states filled from the requests.
func TestMigrateFiles(t *testing.T) {
	ctx := context.Background()
	j, err := journal.Open(ctx, filepath.Join(t.TempDir(), "calq.db"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Migrate(ctx, "serve/jobs", []string{schema, deliveriesSchema}); err != nil {
		t.Fatal(err)
	}
	rows := []struct{ id, state, request string }{
		{"done", "done", `{"files":[{"name":"a.docx","stored":"0001.docx","size":1},{"name":"b_1 \"é\".xlsx","stored":"0002.xlsx","size":2}]}`},
		{"queued", "queued", `{"files":[{"name":"q.odt","stored":"0001.odt","size":1}]}`},
		{"running", "running", `{"files":[{"name":"r.odt","stored":"0001.odt","size":1}]}`},
		{"failed", "failed", `{"files":[{"name":"x.doc","stored":"0001.doc","size":1},{"name":"y.doc","stored":"0002.doc","size":1}]}`},
		{"nofiles", "done", `{"files":null}`},
		{"empty", "done", `{"files":[]}`},
	}
	err = j.Update(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for i, r := range rows {
			if _, err := tx.ExecContext(ctx, `INSERT INTO serve_jobs (id, owner, route, class, state, sync, created, request)
				VALUES (?, 'u', 'libreoffice/convert', 0, ?, 0, ?, ?)`, r.id, r.state,
				"2026-01-0"+string(rune('1'+i))+" 00:00:00.000000", r.request); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, j)
	if err != nil {
		t.Fatalf("Open (migrating to v3): %v", err)
	}
	var version int
	if err := j.QueryRow(ctx, `SELECT version FROM schema_versions WHERE package = 'serve/jobs'`).Scan(&version); err != nil || version != 4 {
		t.Fatalf("version = %d, %v, want 4 (the latest)", version, err)
	}
	tests := []struct {
		id    string
		names string
		files []FileState
	}{
		{"done", "a.docx\nb_1 \"é\".xlsx", []FileState{{Name: "a.docx", State: FileDone}, {Name: "b_1 \"é\".xlsx", State: FileDone}}},
		{"queued", "q.odt", []FileState{{Name: "q.odt", State: FileQueued}}},
		{"running", "r.odt", []FileState{{Name: "r.odt", State: FileQueued}}},
		{"failed", "x.doc\ny.doc", nil}, // which file failed is not known
		{"nofiles", "", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			var names string
			if err := j.QueryRow(ctx, `SELECT names FROM serve_jobs WHERE id = ?`, tt.id).Scan(&names); err != nil {
				t.Fatal(err)
			}
			if names != tt.names {
				t.Errorf("names = %q, want %q", names, tt.names)
			}
			got, err := s.Get(ctx, "u", tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Files, tt.files) || got.Expired {
				t.Errorf("Files = %+v, Expired = %v; want %+v, false", got.Files, got.Expired, tt.files)
			}
		})
	}
	// The backfilled names are searched like a new job's.
	p, err := s.Query(ctx, Query{Owner: "u", Text: "B_1"})
	if err != nil || p.Total != 1 || len(p.Jobs) != 1 || p.Jobs[0].ID != "done" {
		t.Errorf("Query(Text B_1) after migrating = %+v, %v; want job done", p, err)
	}
}
