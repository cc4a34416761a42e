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

func ExampleHide() {
	// Once per command: the config file names GSM1_PIN as a modem's
	// pin_env, and the database is PostgreSQL.
	childenv.Hide("GSM1_PIN", "PGPASSWORD")
	defer childenv.Hide()
	environ := []string{"PATH=/usr/bin", "GSM1_PIN=4711", "PGPASSWORD=pw", "CALQ_DB=postgres://calq:pw@db/calq"}
	fmt.Println(childenv.Without(environ))
	// Output:
	// [PATH=/usr/bin CALQ_DB=postgres://calq@db/calq]
}
