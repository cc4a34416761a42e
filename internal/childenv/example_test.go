package childenv_test

import (
	"fmt"

	"calq/internal/childenv"
)

func Example() {
	environ := []string{"PATH=/usr/bin", "LANG=C.UTF-8", "DISPLAY=:0", "CALQ_OWNER_PASSWORD=s3cret", "CALQ_DB=/tmp/calq.db"}
	fmt.Println(childenv.Allowed(environ)) // for LibreOffice
	fmt.Println(childenv.Without(environ)) // for a job the user runs
	// Output:
	// [PATH=/usr/bin LANG=C.UTF-8]
	// [PATH=/usr/bin LANG=C.UTF-8 DISPLAY=:0 CALQ_DB=/tmp/calq.db]
}
