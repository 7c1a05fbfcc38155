package service_test

import "github.com/mnemo-dev/mnemo/internal/testkit"

// The shared test helpers, by their short names.

var (
	newClock          = testkit.NewClock
	str               = testkit.Str
	draft             = testkit.Draft
	alice             = testkit.Alice
	newEventService   = testkit.NewEventService
	ev                = testkit.Event
	mustAppend        = testkit.MustAppend
	wantCode          = testkit.WantCode
	newContextService = testkit.NewContextService
)
