package emu

import (
	"fmt"
	"strconv"
	"strings"
)

// handlers are the extended commands a modem knows. Each runs with m.mu
// held.
var handlers map[string]handler

func init() {
	ident := func(f func(m *modem) string) handler {
		return handler{fn: func(m *modem, op string, _ []string) ([]string, error) {
			if op == "=?" {
				return nil, nil
			}
			return []string{f(m)}, nil
		}}
	}
	maker := ident(func(*modem) string { return "calq" })
	model := ident(func(*modem) string { return "calq-emu" })
	rev := ident(func(*modem) string { return "calq-emu 1.0" })
	imei := ident(func(m *modem) string { return imei(m.index) })
	handlers = map[string]handler{
		"+CGMI": maker, "+GMI": maker,
		"+CGMM": model, "+GMM": model,
		"+CGMR": rev, "+GMR": rev,
		"+CGSN": imei, "+GSN": imei,
		"+CIMI": {fn: func(m *modem, _ string, _ []string) ([]string, error) {
			return []string{fmt.Sprintf("26201%010d", m.index)}, nil
		}, needsSIM: true},
		"+CMEE":  {fn: intSetting("+CMEE", 2, func(m *modem) *int { return &m.cmee })},
		"+CREG":  {fn: intSetting("+CREG", 2, func(m *modem) *int { return &m.creg[0] })},
		"+CEREG": {fn: intSetting("+CEREG", 2, func(m *modem) *int { return &m.creg[1] })},
		"+CGREG": {fn: intSetting("+CGREG", 2, func(m *modem) *int { return &m.creg[2] })},
		"+CPIN":  {fn: cpin},
		"+CPINR": {fn: cpinr},
		"+CCID":  {fn: ccid},
		"+CSQ":   {fn: csq},
		"+CFUN":  {fn: cfun},
		"+CSCS":  {fn: cscs},
		"+CMGF":  {fn: cmgf, sms: true},
		"+CSCA":  {fn: csca, needsSIM: true, sms: true},
		"+CPMS":  {fn: cpms, needsSIM: true, sms: true},
		"+CNMI":  {fn: cnmi, sms: true},
		"+CMGL":  {fn: cmgl, needsSIM: true, sms: true},
		"+CMGR":  {fn: cmgr, needsSIM: true, sms: true},
		"+CMGD":  {fn: cmgd, needsSIM: true, sms: true},
	}
}

// imei is a valid 15-digit IMEI (Luhn check digit) per modem.
func imei(i int) string {
	s := fmt.Sprintf("35699900%06d", i)
	sum := 0
	for k := range len(s) {
		d := int(s[len(s)-1-k] - '0')
		if k%2 == 0 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return s + strconv.Itoa((10-sum%10)%10)
}

// intSetting serves a command with one integer setting 0..max; its read
// form adds the registration status (home network) for CREG and kin.
func intSetting(name string, max int, field func(*modem) *int) func(*modem, string, []string) ([]string, error) {
	return func(m *modem, op string, args []string) ([]string, error) {
		p := field(m)
		switch op {
		case "?":
			if strings.HasSuffix(name, "REG") {
				return []string{fmt.Sprintf("%s: %d,1", name, *p)}, nil
			}
			return []string{fmt.Sprintf("%s: %d", name, *p)}, nil
		case "=?":
			return []string{fmt.Sprintf("%s: (0-%d)", name, max)}, nil
		case "=":
			n, err := intArg(args, 0, 0)
			if err != nil || n < 0 || n > max {
				return nil, cmeErr(4)
			}
			*p = n
			return nil, nil
		}
		return nil, nil
	}
}

func csq(_ *modem, op string, _ []string) ([]string, error) {
	if op == "=?" {
		return []string{"+CSQ: (0-31,99),(0-7,99)"}, nil
	}
	return []string{"+CSQ: 20,99"}, nil
}

func cfun(_ *modem, op string, _ []string) ([]string, error) {
	switch op {
	case "?":
		return []string{"+CFUN: 1"}, nil
	case "=?":
		return []string{"+CFUN: (0,1,4),(0,1)"}, nil
	}
	return nil, nil
}

var charsets = []string{"GSM", "IRA", "UCS2"}

func cscs(m *modem, op string, args []string) ([]string, error) {
	switch op {
	case "?":
		return []string{fmt.Sprintf("+CSCS: %q", m.cscs)}, nil
	case "=?":
		return []string{`+CSCS: ("GSM","IRA","UCS2")`}, nil
	case "=":
		for _, c := range charsets {
			if strings.EqualFold(args[0], c) {
				m.cscs = c
				return nil, nil
			}
		}
		return nil, cmeErr(4)
	}
	return nil, nil
}

// cmgf knows PDU mode only, like many modules' firmware; text mode is
// refused with +CMS ERROR: 303 (operation not supported).
func cmgf(_ *modem, op string, args []string) ([]string, error) {
	switch op {
	case "?":
		return []string{"+CMGF: 0"}, nil
	case "=?":
		return []string{"+CMGF: (0)"}, nil
	case "=":
		if len(args) > 0 && args[0] != "0" && args[0] != "" {
			return nil, cmsErr(303)
		}
	}
	return nil, nil
}

func csca(m *modem, op string, args []string) ([]string, error) {
	switch op {
	case "?":
		toa := 129
		if strings.HasPrefix(m.csca, "+") {
			toa = 145
		}
		return []string{fmt.Sprintf("+CSCA: %q,%d", m.csca, toa)}, nil
	case "=":
		m.csca = args[0]
	}
	return nil, nil
}

func (m *modem) used() int {
	n := 0
	for _, s := range m.slots {
		if s.used {
			n++
		}
	}
	return n
}

// cpms offers the SIM ("SM") only.
func cpms(m *modem, op string, args []string) ([]string, error) {
	u, t := m.used(), len(m.slots)
	switch op {
	case "?":
		return []string{fmt.Sprintf(`+CPMS: "SM",%d,%d,"SM",%d,%d,"SM",%d,%d`, u, t, u, t, u, t)}, nil
	case "=?":
		return []string{`+CPMS: ("SM"),("SM"),("SM")`}, nil
	case "=":
		for _, a := range args {
			if !strings.EqualFold(a, "SM") {
				return nil, cmsErr(302)
			}
		}
		return []string{fmt.Sprintf("+CPMS: %d,%d,%d,%d,%d,%d", u, t, u, t, u, t)}, nil
	}
	return nil, errUnknown
}

func cnmi(m *modem, op string, args []string) ([]string, error) {
	switch op {
	case "?":
		c := m.cnmi
		return []string{fmt.Sprintf("+CNMI: %d,%d,%d,%d,%d", c[0], c[1], c[2], c[3], c[4])}, nil
	case "=?":
		if m.opts.CDSOnly {
			return []string{"+CNMI: (0-2),(0-3),(0-3),(0,1),(0,1)"}, nil
		}
		return []string{"+CNMI: (0-2),(0-3),(0-3),(0-2),(0,1)"}, nil
	case "=":
		var c [5]int
		for i := range c {
			n, err := intArg(args, i, 0)
			if err != nil || n < 0 || n > 3 || i == 3 && n == 2 && m.opts.CDSOnly {
				return nil, cmsErr(303)
			}
			c[i] = n
		}
		m.cnmi = c
	}
	return nil, nil
}
