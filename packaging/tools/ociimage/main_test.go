package main

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// TestBuild builds an image of two platforms from stand-in binaries twice,
// and reads it back as a runtime would: the same inputs give the same
// digest; each platform's image runs mnemo serve as the non-root user with
// /data as its volume and a health check; its files are where the config
// says, owned as it needs, with the notices.
func TestBuild(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	certs, cfg := write("certs.pem", "CERTS"), write("mnemo.yaml", "auth: {}\n")
	args := func(out string) []string {
		return []string{"-out", out, "-version", "1.2.3", "-commit", "abc", "-created", "2026-11-20T10:00:00Z",
			"-certs", certs, "-config", cfg, "-notice", "model-NOTICE=" + write("NOTICE", "MIT"),
			"linux/amd64=" + write("mnemo-amd64", "AMD64") + "," + write("hc-amd64", "HC64"),
			"linux/arm64=" + write("mnemo-arm64", "ARM64") + "," + write("hc-arm64", "HCARM")}
	}
	var digests []v1.Hash
	for _, out := range []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")} {
		if err := run(args(out)); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(out + ".tar"); err != nil {
			t.Fatal(err)
		}
		lp, err := layout.FromPath(out)
		if err != nil {
			t.Fatal(err)
		}
		top, err := lp.ImageIndex()
		if err != nil {
			t.Fatal(err)
		}
		im, err := top.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, im.Manifests[0].Digest)
	}
	if digests[0] != digests[1] {
		t.Errorf("two builds of the same inputs: %v and %v, want one digest", digests[0], digests[1])
	}

	lp, _ := layout.FromPath(filepath.Join(dir, "a"))
	top, _ := lp.ImageIndex()
	idx, err := top.ImageIndex(digests[0])
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range im.Manifests {
		img, err := idx.Image(m.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		c := cf.Config
		if cf.Architecture != m.Platform.Architecture || cf.OS != "linux" {
			t.Errorf("%s: config says %s/%s", m.Platform.Architecture, cf.OS, cf.Architecture)
		}
		if c.User != "65532:65532" || !slices.Equal(c.Entrypoint, []string{"/usr/local/bin/mnemo"}) ||
			!slices.Equal(c.Cmd[len(c.Cmd)-3:], []string{"serve", "--addr", "0.0.0.0:7077"}) {
			t.Errorf("%s: user %q entrypoint %q cmd %q", m.Platform.Architecture, c.User, c.Entrypoint, c.Cmd)
		}
		if _, ok := c.Volumes["/data"]; !ok || c.Healthcheck == nil || c.Healthcheck.Test[0] != "CMD" {
			t.Errorf("%s: volumes %v health check %+v", m.Platform.Architecture, c.Volumes, c.Healthcheck)
		}
		if !cf.Created.Time.Equal(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)) {
			t.Errorf("created %v, want the commit's time", cf.Created)
		}
		files := map[string]*tar.Header{}
		layers, _ := img.Layers()
		for _, l := range layers {
			rc, err := l.Uncompressed()
			if err != nil {
				t.Fatal(err)
			}
			tr := tar.NewReader(rc)
			for {
				h, err := tr.Next()
				if errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				files[h.Name] = h
			}
			rc.Close()
		}
		for name, want := range map[string]struct {
			mode int64
			uid  int
		}{
			"usr/local/bin/mnemo": {0o755, 0}, "usr/local/bin/mnemo-healthcheck": {0o755, 0},
			"etc/passwd": {0o644, 0}, "etc/ssl/certs/ca-certificates.crt": {0o644, 0}, "etc/mnemo/mnemo.yaml": {0o644, 0},
			"data/": {0o755, 65532}, "tmp/": {0o1777, 0}, "usr/share/doc/mnemo/notices/model-NOTICE": {0o644, 0},
		} {
			h := files[name]
			if h == nil || h.Mode != want.mode || h.Uid != want.uid {
				t.Errorf("%s: %s is %+v, want mode %o uid %d", m.Platform.Architecture, name, h, want.mode, want.uid)
			}
		}
	}
}

// TestBadPlatform checks that a platform argument without its two files is
// refused with what it wants.
func TestBadPlatform(t *testing.T) {
	err := run([]string{"-out", t.TempDir(), "-version", "1", "-created", "2026-11-20T10:00:00Z", "-config", "x", "linux/amd64=mnemo"})
	if err == nil || err.Error() != `platform "linux/amd64=mnemo": want OS/ARCH=BINARY,HEALTHCHECK` {
		t.Errorf("got %v", err)
	}
}
