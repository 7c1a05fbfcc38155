package eventseg

import "testing"

func TestParseInt(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "42": 42, "-7": -7, "9223372036854775807": 1<<63 - 1, "-9223372036854775808": -1 << 63} {
		if got, ok := parseInt([]byte(in)); !ok || got != want {
			t.Errorf("parseInt(%q) = %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "-", "1x", "9223372036854775808", "-9223372036854775809", "12345678901234567890", " 1"} {
		if _, ok := parseInt([]byte(in)); ok {
			t.Errorf("parseInt(%q) accepted", in)
		}
	}
}
