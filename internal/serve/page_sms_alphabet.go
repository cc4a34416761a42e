package serve

import (
	"encoding/json"
	"sync"

	"calq/sms/pdu"
)

// gsmAlphabet is the GSM 7-bit alphabet as the SMS page's counter reads
// it (data attributes of its text box): JSON arrays of the code points
// that cost one septet (the default table) and two (the extension
// table, after an escape). Any other character makes the text UCS-2.
// It comes from package pdu, which encodes the messages, so that the
// page counts parts as sms.Compose makes them.
type gsmAlphabet struct {
	Basic, Extension string
	// The septets (GSM 7-bit) or UTF-16 code units (UCS-2) of one
	// message alone and of each part of a longer one, with the 8-bit
	// concatenation reference sms.Compose uses; MaxParts is the most a
	// message may take (pdu.ErrTooLong beyond).
	GSMSingle, GSMPart, UCS2Single, UCS2Part, MaxParts int
}

var gsmAlphabetOnce = sync.OnceValue(func() gsmAlphabet {
	var one, two []rune
	for r := rune(0); r < 0x10000; r++ {
		switch pdu.GSMSeptets(r) {
		case 1:
			one = append(one, r)
		case 2:
			two = append(two, r)
		}
	}
	b1, _ := json.Marshal(one)
	b2, _ := json.Marshal(two)
	return gsmAlphabet{Basic: string(b1), Extension: string(b2),
		GSMSingle: 160, GSMPart: 153, UCS2Single: 70, UCS2Part: 67, MaxParts: 255}
})
