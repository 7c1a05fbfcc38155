package agentcontext_test

import "github.com/mnemo-dev/mnemo/internal/testkit"

// The shared test helpers, by their short names.
type clock = testkit.Clock

var (
	newClock          = testkit.NewClock
	str               = testkit.Str
	tptr              = testkit.Tptr
	draft             = testkit.Draft
	alice             = testkit.Alice
	bob               = testkit.Bob
	newCorpus         = testkit.NewCorpus
	benchScope        = testkit.BenchScope
	keptStore         = testkit.KeptStore
	openCopy          = testkit.OpenCopy
	reportPercentiles = testkit.ReportPercentiles
	wantCode          = testkit.WantCode
	newContextService = testkit.NewContextService
)
