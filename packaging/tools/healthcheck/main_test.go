package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCheck checks that the health check passes on 200 alone and fails on
// another status or when nothing listens.
func TestCheck(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
	defer srv.Close()
	if err := check(srv.URL); err != nil {
		t.Errorf("200: %v", err)
	}
	status = http.StatusServiceUnavailable
	if err := check(srv.URL); err == nil {
		t.Error("503: no error")
	}
	srv.Close()
	if err := check(srv.URL); err == nil {
		t.Error("nothing listening: no error")
	}
}
