package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestDataDefault checks where the store is when nothing chooses it: the
// user's data directory, the same from every working directory; then the
// environment and the flag, which win over it.
func TestDataDefault(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Linux paths (XDG)")
	}
	for _, tt := range []struct {
		env     map[string]string
		flag    string
		want    string
		wantErr bool
	}{
		{env: map[string]string{"HOME": "/home/ana"}, want: "/home/ana/.local/share/mnemo"},
		{env: map[string]string{"HOME": "/home/ana", "XDG_DATA_HOME": "/data/ana"}, want: "/data/ana/mnemo"},
		{env: map[string]string{"HOME": "/home/ana", "XDG_DATA_HOME": "relative/ignored"}, want: "/home/ana/.local/share/mnemo"},
		{env: map[string]string{"HOME": "/home/ana", "MNEMO_DATA": "./mnemo-data"}, want: "./mnemo-data"},
		{env: map[string]string{"HOME": "/home/ana", "MNEMO_DATA": "/from/env"}, flag: "/from/flag", want: "/from/flag"},
		{env: map[string]string{"HOME": ""}, wantErr: true},
		{env: map[string]string{"HOME": ""}, flag: "/from/flag", want: "/from/flag"},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.String("data", "", "")
		if tt.flag != "" {
			fs.Parse([]string{"--data", tt.flag})
		}
		c, err := loadConfig("", fakeEnv(tt.env), fs)
		if tt.wantErr {
			if err == nil || !strings.Contains(err.Error(), "data") || !strings.Contains(err.Error(), "--data") {
				t.Errorf("%v: %v, want an error naming data and --data", tt.env, err)
			}
			continue
		}
		if err != nil || c.Data != tt.want {
			t.Errorf("%v --data %q: data %q, %v; want %q", tt.env, tt.flag, c.Data, err, tt.want)
		}
	}
}

// TestOneStoreFromAnyDirectory is the first hour's walk: a memory
// remembered from one directory is recalled from another, by the CLI and
// by `mnemo serve`, with no --data given; the first write says where the
// store it made is, and no directory gets a store of its own.
func TestOneStoreFromAnyDirectory(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_DATA_HOME", home)
	want := filepath.Join(home, "mnemo")
	dirA, dirB := t.TempDir(), t.TempDir()
	cli := func(dir string, args ...string) (string, string) {
		t.Helper()
		wd, _ := os.Getwd()
		if err := os.Chdir(dir); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		var out, errb bytes.Buffer
		if code := testMain(t.Context(), args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("mnemo %v in %s: exit %d: %s", args, dir, code, errb.String())
		}
		return out.String(), errb.String()
	}
	_, notice := cli(dirA, "remember", "The espresso machine is in the kitchen")
	if notice != "mnemo: created a new store in "+want+" (--data or $MNEMO_DATA chooses another)\n" {
		t.Errorf("the first write said %q, want where the new store is", notice)
	}
	if _, again := cli(dirA, "remember", "The printer is on the second floor"); again != "" {
		t.Errorf("the second write said %q, want nothing", again)
	}
	if out, _ := cli(dirB, "recall", "--limit", "1", "where is the espresso machine?"); !strings.Contains(out, "espresso machine") {
		t.Errorf("recall from another directory:\n%s\nwant the memory remembered from the first", out)
	}
	for _, d := range []string{dirA, dirB} {
		if _, err := os.Stat(filepath.Join(d, "mnemo-data")); err == nil {
			t.Errorf("%s got a store of its own", d)
		}
	}
	if out, _ := cli(dirB, "config"); !strings.Contains(out, "data: "+want) {
		t.Errorf("mnemo config:\n%s\nwant data: %s", out, want)
	}

	// The server answers from the same store.
	base := startServe(t)
	resp, err := http.Post(base+"/v1/recall", "application/json", strings.NewReader(`{"agent_id": "default", "query": "espresso machine", "limit": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		Results []struct{ Content string } `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || len(res.Results) != 1 || !strings.Contains(res.Results[0].Content, "espresso") {
		t.Errorf("the server's recall = %+v, %v; want the memory the CLI remembered", res.Results, err)
	}
}
