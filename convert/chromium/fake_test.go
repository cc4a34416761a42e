package chromium

const fakeCalqEnv = "CHROMIUM_TEST_FAKE_CALQ"

func fakeCalq(dir string) int { return 0 }
