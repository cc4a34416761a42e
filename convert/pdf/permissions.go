package pdf

import (
	"fmt"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// Permissions are the user access permissions of an encrypted PDF (ISO
// 32000 table 22). Someone who opens the PDF with the owner password may do
// everything regardless.
type Permissions struct {
	Print     bool // print, possibly degraded (bit 3)
	Modify    bool // change the content otherwise than below (bit 4)
	Copy      bool // copy or extract text and graphics (bit 5)
	Annotate  bool // add or change annotations, fill forms (bit 6)
	Fill      bool // fill form fields, even without Annotate (bit 9)
	Extract   bool // extract text and graphics for accessibility (bit 10)
	Assemble  bool // insert, rotate or delete pages, bookmarks (bit 11)
	PrintHigh bool // print at full quality, with Print (bit 12)
}

var allPermissions = Permissions{true, true, true, true, true, true, true, true}

// ParsePermissions parses the permission levels calq offers: "none",
// "print" (Print and PrintHigh, as pdfcpu's "print") and "all".
func ParsePermissions(s string) (Permissions, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none":
		return Permissions{}, nil
	case "print":
		return Permissions{Print: true, PrintHigh: true}, nil
	case "all":
		return allPermissions, nil
	}
	return Permissions{}, fmt.Errorf("unknown permissions %q (want none, print or all)", s)
}

// String returns "none", "print" or "all" when p is one of those, and
// otherwise the list of granted permissions.
func (p Permissions) String() string {
	switch p {
	case Permissions{}:
		return "none"
	case Permissions{Print: true, PrintHigh: true}:
		return "print"
	case allPermissions:
		return "all"
	}
	var names []string
	for _, b := range permissionBits(p) {
		if b.on {
			names = append(names, b.name)
		}
	}
	return strings.Join(names, ",")
}

type permissionBit struct {
	name string
	on   bool
	flag model.PermissionFlags
}

func permissionBits(p Permissions) []permissionBit {
	return []permissionBit{
		{"print", p.Print, model.PermissionPrintRev2},
		{"modify", p.Modify, model.PermissionModify},
		{"copy", p.Copy, model.PermissionExtract},
		{"annotate", p.Annotate, model.PermissionModAnnFillForm},
		{"fill", p.Fill, model.PermissionFillRev3},
		{"extract", p.Extract, model.PermissionExtractRev3},
		{"assemble", p.Assemble, model.PermissionAssembleRev3},
		{"print-high", p.PrintHigh, model.PermissionPrintRev3},
	}
}

// flags returns p as the P entry of the encryption dictionary; the
// reserved bits are set as the standard requires (pdfcpu's PermissionsNone).
func (p Permissions) flags() model.PermissionFlags {
	f := model.PermissionsNone
	for _, b := range permissionBits(p) {
		if b.on {
			f |= b.flag
		}
	}
	return f
}

func permissionsFromFlags(pv int) Permissions {
	f := model.PermissionFlags(pv)
	on := func(b model.PermissionFlags) bool { return f&b != 0 }
	return Permissions{
		Print:     on(model.PermissionPrintRev2),
		Modify:    on(model.PermissionModify),
		Copy:      on(model.PermissionExtract),
		Annotate:  on(model.PermissionModAnnFillForm),
		Fill:      on(model.PermissionFillRev3),
		Extract:   on(model.PermissionExtractRev3),
		Assemble:  on(model.PermissionAssembleRev3),
		PrintHigh: on(model.PermissionPrintRev3),
	}
}
