package phone

import (
	"fmt"
	"testing"
)

// TestNormalize: separators people write are dropped; letters, a second
// "+" and too few or many digits are refused, with the input named.
func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{"international", "+4915112345678", "+4915112345678", ""},
		{"spaces and dash", "+49 151 2345-678", "+491512345678", ""},
		{"parentheses and dots", "(0151) 234.56.78", "01512345678", ""},
		{"slash", "0151/2345678", "01512345678", ""},
		{"no-break space", "0151\u00a02345678", "01512345678", ""},
		{"short code", " 4711 ", "4711", ""},
		{"too short", "12", "", `"12" is not a phone number: 2 digits, want 3 to 20`},
		{"letters", "+49 151 CALL-ME", "", `"+49 151 CALL-ME" is not a phone number: 'C' is not a digit`},
		{"two plus", "++4915112345678", "", `"++4915112345678" is not a phone number: '+' is not a digit`},
		{"plus inside", "49+151", "", `"49+151" is not a phone number: '+' is not a digit`},
		{"empty", "", "", `"" is not a phone number: 0 digits, want 3 to 20`},
		{"too long", "123456789012345678901", "", `"123456789012345678901" is not a phone number: 21 digits, want 3 to 20`},
		{"CJK", "電話", "", `"電話" is not a phone number: '電' is not a digit`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if got != tt.want || gotErr != tt.err {
				t.Errorf("Normalize(%q) = %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.err)
			}
		})
	}
}

func ExampleNormalize() {
	n, err := Normalize("+49 (151) 2345-678")
	fmt.Println(n, err)
	_, err = Normalize("call me")
	fmt.Println(err)
	// Output:
	// +491512345678 <nil>
	// "call me" is not a phone number: 'c' is not a digit
}
