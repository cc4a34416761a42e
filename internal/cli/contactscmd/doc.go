// Package contactscmd is calq contacts: the address book calq convert
// --mail resolves names with (add, list, remove), kept in the journal by
// calq/convert/contacts. Command is the group; one file per leaf.
package contactscmd
