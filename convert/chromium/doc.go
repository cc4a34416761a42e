// Package chromium converts web pages (HTML files with their assets,
// Markdown rendered to HTML, URLs) to PDF and to images with a warm pool
// of headless Chromium browsers, as convert/lo does office documents with
// LibreOffice.
//
// # Entry points
//
// [Find] locates chromium and its version without starting it. [New]
// returns a [Pool] and starts nothing: the first [Pool.PDF] or
// [Pool.Screenshot] starts a browser (within Config.StartTimeout).
// [Pool.Stats], [Pool.Check] and [Pool.Close] serve health pages and
// shutdown; Close waits until no process of the pool is left. A Pool is
// safe for concurrent use; Config.Browsers × Config.Tabs conversions run
// at once, the others wait for a tab (within their own timeout).
//
// # How a conversion runs
//
// A browser is chromium started through internal/proc's guard, with
// --remote-debugging-port=0 on loopback and a fresh --user-data-dir in a
// temporary directory (removed when it stops); calq reads the DevTools
// address from its output and drives it over chromedp's remote
// allocator. chromedp's own ExecAllocator starts the process itself,
// outside the guard, so a SIGKILLed calq would leave it running. Every
// process of the browser (zygotes, renderers, the GPU and network
// services) stays in the guard's process group, which the guard kills
// when calq dies (TestLazyStart and TestCalqKilled check both); the two
// crashpad handlers leave the group (setsid) but end with the browser
// (TestCalqKilled waits for them). --disable-crashpad-for-testing, which
// would stop them, makes Chromium 156 never answer file:// navigations.
//
// Each conversion gets a tab in a browser context of its own
// (Target.createBrowserContext), disposed of after: no cookie, cache,
// storage or service worker crosses conversions (TestIsolation). Opening
// that tab (a renderer process, and chromedp's attach) is most of a warm
// conversion's time, and depends on nothing in the request, so each
// browser keeps one tab opened in advance (a spare) for its next
// conversion; a spare is used once.
//
// Every request of the page, its main document, iframes, file://
// subresources and fetches included, is paused by the Fetch domain and
// checked by the policy (gate.allowURL); a refused one fails as
// BlockedByClient, and a refused main page fails the conversion with
// [ErrRefused] (TestIntercepted). Cross-site iframes stay in the page's
// process (site isolation off) so that the page's interception sees
// them. Requests of web and service workers are not paused (service
// workers are bypassed); the policy's connect-time check (its proxy)
// covers their network addresses, and a worker's file:// loads are
// bound by the same-origin rules of file:.
//
// The page is loaded, then the conversion waits for the load event, the
// network to be idle and almost idle (lifecycle events, unless skipped),
// the delay, window.status, the expression and the selector of [Load],
// polled every 50 ms. The failures it asks for are then errors wrapping
// this package's sentinels with their details: the main page's status
// ("404: Not Found"), each resource's ("URL - 503: Service Unavailable",
// one a line), the loading errors ("resource Image:
// net::ERR_CONNECTION_REFUSED"), the uncaught exceptions with their
// place. A PDF is printed with Page.printToPDF and streamed (IO.read, a
// MiB at a time) into a temporary file beside out, renamed once whole;
// a screenshot is written the same way. A failed conversion leaves
// nothing at out.
//
// # Lifecycle
//
// A browser is replaced after Config.RestartAfter conversions (the old
// one stops when its last conversion ends). A watch reads the
// proportional set size (Pss, from /proc/PID/smaps_rollup) of its
// process group every 0.5 s, the group's members found by a scan of all
// of /proc every 2 s (scanning and reading every smaps five times a
// second cost calq serve 160 ms of CPU per conversion under load): above
// Config.MemoryLimit the browser is
// killed and its conversions fail with [ErrMemoryLimit]. The sum of the
// processes' RSS would count the pages they share (the binary, fonts,
// shared memory) once per process: measured, about twice the Pss. The
// watch also pings it every 5 s; a browser that does not answer within
// 10 s is killed, its conversions failing with [ErrCrashed], as do those
// of a browser that dies. A conversion past its timeout fails with
// [ErrTimeout] and its tab is closed; its caller's cancellation gives the
// context's error. The next conversion after any of these starts a new
// browser.
//
// # Cost
//
// Measured on this project's machine (2 cores shared with other
// builds, load average 15-50, so every time here is an upper bound):
// a browser's process group holds about 324 MiB (Pss) after its first
// page, its spare tab included, and 358 MiB after 40 more conversions
// (BenchmarkMemory; 200 were not run). A warm one-page PDF took 0.96 s
// (BenchmarkPDF, network idle skipped) and 1.3 s of the browser's CPU,
// most of it the new renderer process of each fresh browser context;
// 0.55 s and 1.0 s at load average 4. A spare tab enables the request
// interception and the lifecycle events before its conversion: those
// round trips to a renderer still starting took 130 to 290 ms each.
//
// [DefaultBrowsers] is one browser per 4 cores: one browser already
// spreads its work over several processes (browser, renderers, GPU and
// network services) and its tabs convert in parallel, while a second
// browser costs another 300 MiB. The comparison of one browser with 4
// tabs against two with 2 on 2 cores was not measured (the machine was
// too loaded for the figure to mean anything). [DefaultTabs] is 4.
package chromium
