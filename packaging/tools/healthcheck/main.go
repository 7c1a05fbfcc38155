// Command mnemo-healthcheck is the container image's health check: the
// image has no shell and no HTTP client, so the check is this small static
// program. It exits 0 when a GET of its URL (by default mnemo serve's
// /healthz on the image's default address) answers 200 within 3 seconds,
// and 1 otherwise, saying why on standard error.
//
//	mnemo-healthcheck [URL]
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

func main() {
	url := "http://127.0.0.1:7077/healthz"
	if len(os.Args) > 1 {
		url = os.Args[1]
	}
	if err := check(url); err != nil {
		fmt.Fprintln(os.Stderr, "mnemo-healthcheck:", err)
		os.Exit(1)
	}
}

func check(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}
