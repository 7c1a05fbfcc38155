package events_test

import "github.com/mnemo-dev/mnemo/internal/testkit"

// The shared test helpers, by their short names.
type clock = testkit.Clock

var (
	newClock        = testkit.NewClock
	tptr            = testkit.Tptr
	draft           = testkit.Draft
	alice           = testkit.Alice
	bob             = testkit.Bob
	newSemantic     = testkit.NewSemantic
	newEventService = testkit.NewEventService
	ev              = testkit.Event
	mustAppend      = testkit.MustAppend
)
