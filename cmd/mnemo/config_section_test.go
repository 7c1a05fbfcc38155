package main

import (
	"errors"
	"testing"
)

// sectionCase is one case of a section's validate: a change to the
// section's defaults, and the key path its error names ("" for none).
type sectionCase[T any] struct {
	name  string
	set   func(*T)
	field string
}

// testSection runs cases over copies of def, the section's defaults.
func testSection[T any](t *testing.T, def func() T, validate func(*T) error, cases []sectionCase[T]) {
	t.Helper()
	c := def()
	if err := validate(&c); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := def()
			tc.set(&c)
			err := validate(&c)
			var ce *ConfigError
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tc.field != "" && (!errors.As(err, &ce) || ce.Field != tc.field):
				t.Fatalf("error %v, want one naming %s", err, tc.field)
			}
		})
	}
}
