package kannel_test

import (
	"fmt"
	"time"

	"calq/internal/kannel"
)

func ExampleExpand() {
	tmpl := "https://app.example/dlr?id=42&status=%d&reply=%A&at=%t"
	if err := kannel.CheckURL(tmpl); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(kannel.Expand(tmpl, kannel.DLR{
		Type:      kannel.Delivered,
		SMSCReply: "delivered",
		Time:      time.Date(2026, 11, 29, 20, 15, 0, 0, time.UTC),
	}))
	fmt.Println(kannel.CheckURL("https://app.example/dlr?status=%d&x=%z"))
	// Output:
	// https://app.example/dlr?id=42&status=1&reply=delivered&at=2026-11-29+20%3A15
	// unknown escape code "%z" at byte 36: Kannel's are %k %s %S %r %a %b %t %T %p %P %q %Q %i %I %d %A %F %n %c %m %M %C %u %B %o %O %f %D %x; write %% for a literal %
}
