package memory_test

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
	newService        = testkit.NewService
	newFuzzService    = testkit.NewFuzzService
	newSemantic       = testkit.NewSemantic
	newEventService   = testkit.NewEventService
	ev                = testkit.Event
	mustAppend        = testkit.MustAppend
	newCorpus         = testkit.NewCorpus
	benchScope        = testkit.BenchScope
	keptStore         = testkit.KeptStore
	openCopy          = testkit.OpenCopy
	reportPercentiles = testkit.ReportPercentiles
)
