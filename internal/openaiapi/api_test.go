package openaiapi

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"0", 0},
		{"-1", 0},
		{"soon", 0},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.in); got != tt.want {
			t.Errorf("RetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if got := RetryAfter(time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)); got < 59*time.Minute {
		t.Errorf("RetryAfter(date in an hour) = %v", got)
	}
}

func TestBackoff(t *testing.T) {
	c, err := New(Config{BaseURL: "http://x", RetryDelay: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for attempt, base := range []time.Duration{100, 200, 400, 800} {
		base *= time.Millisecond
		for range 20 {
			if d := c.Backoff(attempt); d < base/2 || d > base {
				t.Fatalf("Backoff(%d) = %v, want in [%v, %v]", attempt, d, base/2, base)
			}
		}
	}
	if d := c.Backoff(60); d > MaxRetryDelay {
		t.Errorf("Backoff(60) = %v, over the cap %v", d, MaxRetryDelay)
	}
}

func TestBadBaseURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x", "localhost:11434", "http://"} {
		if _, err := New(Config{BaseURL: u}); err == nil {
			t.Errorf("New(%q) accepted", u)
		}
	}
}
