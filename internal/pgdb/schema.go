package pgdb

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Tx is what Migrate needs of a transaction; pgqueue and sms/store adapt
// pgx's and database/sql's. Statements use $N parameters.
type Tx interface {
	Exec(ctx context.Context, sql string, args ...any) error
	QueryRow(ctx context.Context, sql string, args ...any) interface{ Scan(dest ...any) error }
}

// Migrate brings component's tables in schema to the last of migrations
// and records the version in schema's calq_schema, under an advisory lock
// so that processes starting together migrate once. It creates schema
// when missing; the connection's search_path must start with it (see
// Configure), since migrations name their tables unqualified. A version
// newer than len(migrations) is refused.
//
// Before calq had a schema of its own its tables were in public: when
// schema has no version of component and public's calq_schema has one,
// Migrate moves the tables, sequences and views those migrations created
// into schema first, so an existing database keeps its jobs and messages.
func Migrate(ctx context.Context, tx Tx, schema, component string, migrations []string) error {
	if err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('calq_schema'))`); err != nil {
		return fmt.Errorf("lock schema: %w", err)
	}
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
		return fmt.Errorf("look for schema %s: %w", schema, err)
	}
	s := pgx.Identifier{schema}.Sanitize()
	if !exists {
		// Only when missing: CREATE SCHEMA IF NOT EXISTS needs the right
		// to create one even when it exists.
		if err := tx.Exec(ctx, `CREATE SCHEMA `+s); err != nil {
			return fmt.Errorf("create schema %s: %w", schema, err)
		}
	}
	if err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+s+`.calq_schema
		(component text PRIMARY KEY, version integer NOT NULL)`); err != nil {
		return fmt.Errorf("create calq_schema: %w", err)
	}
	v, err := version(ctx, tx, s, component)
	if err != nil {
		return err
	}
	if v == 0 && schema != "public" {
		if v, err = adopt(ctx, tx, schema, component, migrations); err != nil {
			return err
		}
	}
	if v > len(migrations) {
		return fmt.Errorf("%s schema version %d is newer than this calq's (%d)", component, v, len(migrations))
	}
	for n := v; n < len(migrations); n++ {
		if err := tx.Exec(ctx, migrations[n]); err != nil {
			return fmt.Errorf("migrate %s schema to version %d: %w", component, n+1, err)
		}
	}
	if err := tx.Exec(ctx, `INSERT INTO `+s+`.calq_schema VALUES ($1, $2)
		ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version`, component, len(migrations)); err != nil {
		return fmt.Errorf("record %s schema version: %w", component, err)
	}
	return nil
}

func version(ctx context.Context, tx Tx, table, component string) (int, error) {
	var v int
	err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+table+`.calq_schema WHERE component = $1`, component).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("read %s schema version: %w", component, err)
	}
	return v, nil
}

// adopt moves component's objects from public, where calq before its own
// schema created them, into schema, and returns their version (0 when
// public has none).
func adopt(ctx context.Context, tx Tx, schema, component string, migrations []string) (int, error) {
	var legacy bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass('public.calq_schema') IS NOT NULL`).Scan(&legacy); err != nil {
		return 0, fmt.Errorf("look for calq's tables in public: %w", err)
	}
	if !legacy {
		return 0, nil
	}
	v, err := version(ctx, tx, "public", component)
	if err != nil || v == 0 {
		return 0, err
	}
	s := pgx.Identifier{schema}.Sanitize()
	for _, o := range Objects(migrations[:min(v, len(migrations))]) {
		var there bool
		if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, "public."+o.Name).Scan(&there); err != nil {
			return 0, fmt.Errorf("look for public.%s: %w", o.Name, err)
		}
		if !there {
			continue
		}
		if err := tx.Exec(ctx, `ALTER `+o.Kind+` public.`+pgx.Identifier{o.Name}.Sanitize()+` SET SCHEMA `+s); err != nil {
			return 0, fmt.Errorf("move %s's %s %s from public to schema %s: %w", component, strings.ToLower(o.Kind), o.Name, schema, err)
		}
	}
	if err := tx.Exec(ctx, `DELETE FROM public.calq_schema WHERE component = $1`, component); err != nil {
		return 0, fmt.Errorf("forget %s's version in public: %w", component, err)
	}
	if err := tx.Exec(ctx, `DO $$ BEGIN
		IF NOT EXISTS (SELECT FROM public.calq_schema) THEN DROP TABLE public.calq_schema; END IF; END $$`); err != nil {
		return 0, fmt.Errorf("drop public.calq_schema: %w", err)
	}
	return v, nil
}

// Object is a table, sequence or view a migration creates.
type Object struct {
	Kind string // TABLE, SEQUENCE or VIEW
	Name string
}

var createRE = regexp.MustCompile(`(?i)\bCREATE\s+(TABLE|SEQUENCE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)`)

// Objects lists the tables, sequences and views that migrations create,
// in order. Indexes and the sequences of serial columns move with their
// tables, so they are not listed.
func Objects(migrations []string) []Object {
	var os []Object
	for _, m := range migrations {
		for _, g := range createRE.FindAllStringSubmatch(m, -1) {
			os = append(os, Object{Kind: strings.ToUpper(g[1]), Name: strings.ToLower(g[2])})
		}
	}
	return os
}
