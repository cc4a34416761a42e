package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// InboxFilter selects inbox entries for InboxEntries.
type InboxFilter struct {
	Kind   string // KindMessage or KindReport; "" both
	After  int64  // ids above this one (a reader's cursor), oldest first
	Before int64  // ids below this one (a page's end), newest first; 0: no bound
	Limit  int    // 0: no limit
}

// InboxEntries returns the entries f selects, delivered or not: oldest
// first from After, or newest first when Before is set (and After 0).
// Unlike NewInboxEntries it marks nothing: readers that keep a cursor
// (calq serve's pushes, its inbox pages) never take an entry from calq
// sms recv --exec, nor it from them.
func (s *Store) InboxEntries(ctx context.Context, f InboxFilter) ([]InboxEntry, error) {
	where := []string{"id > ?"}
	args := []any{f.After}
	if f.Kind != "" {
		where, args = append(where, "kind = ?"), append(args, f.Kind)
	}
	if f.Before > 0 {
		where, args = append(where, "id < ?"), append(args, f.Before)
	}
	q := "WHERE " + strings.Join(where, " AND ") + " ORDER BY id"
	if f.newest() {
		q += " DESC"
	}
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	es, err := inboxEntries(ctx, readQuerier{s.db}, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list inbox entries: %w", err)
	}
	return es, nil
}

func (f InboxFilter) newest() bool { return f.Before > 0 && f.After == 0 }

// InboxEntries implements Store.InboxEntries.
func (m *Mem) InboxEntries(_ context.Context, f InboxFilter) ([]InboxEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var es []InboxEntry
	for _, e := range m.entries {
		if e.ID > f.After && (f.Kind == "" || e.Kind == f.Kind) && (f.Before <= 0 || e.ID < f.Before) {
			es = append(es, *e)
		}
	}
	if f.newest() {
		slices.Reverse(es)
	}
	if f.Limit > 0 && len(es) > f.Limit {
		es = es[:f.Limit]
	}
	return es, nil
}
