// Command ociimage writes mnemo's container image without a Docker daemon:
// an OCI image index with one image per platform, each from scratch, as an
// OCI layout directory and as a tarball of it (which docker load, podman
// load and crane push read).
//
// Each image has two layers. The first is what distroless-static has: CA
// certificates (Debian's bundle), /etc/passwd and /etc/group with the
// non-root user mnemo (65532), a /tmp and a /data owned by it, and mnemo's
// configuration for the image. The second is the mnemo binary and the
// health check program. Every file's time is the commit's, so the same
// commit and binaries give the same digests.
//
//	ociimage -out dist/oci -version V -commit C -created 2026-11-20T10:00:00Z \
//	  -certs /etc/ssl/certs/ca-certificates.crt -config packaging/oci/mnemo.yaml \
//	  linux/amd64=dist/mnemo_linux_amd64_v1/mnemo,healthcheck-amd64 ...
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's user: distroless's nonroot, which no host account is likely
// to share.
const (
	uid  = 65532
	user = "mnemo"
)

type options struct {
	out, version, commit, certs, config, source string
	created                                     time.Time
	platforms                                   []platform
	notices                                     notices
}

// notices are the -notice flags: the notices of what the binary embeds,
// which go with it.
type notices []string

func (n *notices) String() string     { return strings.Join(*n, " ") }
func (n *notices) Set(v string) error { *n = append(*n, v); return nil }

type platform struct {
	os, arch            string
	binary, healthcheck string
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ociimage:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var o options
	var created string
	fl := flag.NewFlagSet("ociimage", flag.ContinueOnError)
	fl.StringVar(&o.out, "out", "", "the directory to write the OCI layout in (emptied first); the tarball is DIR.tar")
	fl.StringVar(&o.version, "version", "", "the version the images are labelled with")
	fl.StringVar(&o.commit, "commit", "", "the commit the images are labelled with")
	fl.StringVar(&created, "created", "", "the images' and files' time (RFC 3339): the commit's")
	fl.StringVar(&o.certs, "certs", "/etc/ssl/certs/ca-certificates.crt", "the CA certificate bundle")
	fl.StringVar(&o.config, "config", "", "mnemo's configuration file for the image (/etc/mnemo/mnemo.yaml)")
	fl.StringVar(&o.source, "source", "https://github.com/mnemo-dev/mnemo", "the source repository label")
	fl.Var(&o.notices, "notice", "a notice to ship in /usr/share/doc/mnemo/notices, as NAME=FILE (repeated)")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "usage: ociimage -out DIR -version V -commit C -created TIME -config FILE OS/ARCH=BINARY,HEALTHCHECK...")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return err
	}
	if o.out == "" || o.version == "" || o.config == "" || created == "" || fl.NArg() == 0 {
		fl.Usage()
		return errors.New("-out, -version, -created, -config and at least one platform are required")
	}
	t, err := time.Parse(time.RFC3339, created)
	if err != nil {
		return fmt.Errorf("-created: %w", err)
	}
	o.created = t.UTC()
	for _, a := range fl.Args() {
		plat, files, ok := strings.Cut(a, "=")
		goos, arch, ok1 := strings.Cut(plat, "/")
		bin, hc, ok2 := strings.Cut(files, ",")
		if !ok || !ok1 || !ok2 {
			return fmt.Errorf("platform %q: want OS/ARCH=BINARY,HEALTHCHECK", a)
		}
		o.platforms = append(o.platforms, platform{goos, arch, bin, hc})
	}
	return build(o)
}

func build(o options) error {
	base, err := baseLayer(o)
	if err != nil {
		return err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range o.platforms {
		img, err := image(o, p, base)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", p.os, p.arch, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.os, Architecture: p.arch}},
		})
	}
	if err := os.RemoveAll(o.out); err != nil {
		return err
	}
	lp, err := layout.Write(o.out, empty.Index)
	if err != nil {
		return err
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": o.version,
	})); err != nil {
		return err
	}
	return tarDir(o.out, o.out+".tar", o.created)
}

// image is one platform's image: the base layer, the binaries' layer, and
// the configuration that runs `mnemo serve` on every address as the
// non-root user with its store in the /data volume.
func image(o options, p platform, base v1.Layer) (v1.Image, error) {
	bin, err := os.ReadFile(p.binary)
	if err != nil {
		return nil, err
	}
	hc, err := os.ReadFile(p.healthcheck)
	if err != nil {
		return nil, err
	}
	var tb tarBuilder
	tb.dir("usr/", 0o755, 0)
	tb.dir("usr/local/", 0o755, 0)
	tb.dir("usr/local/bin/", 0o755, 0)
	tb.file("usr/local/bin/mnemo", 0o755, 0, bin)
	tb.file("usr/local/bin/mnemo-healthcheck", 0o755, 0, hc)
	binLayer, err := tb.layer(o.created)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: v1.Time{Time: o.created}, CreatedBy: "mnemo: CA certificates, user mnemo, /data, /etc/mnemo/mnemo.yaml"}},
		mutate.Addendum{Layer: binLayer, MediaType: types.OCILayer, History: v1.History{Created: v1.Time{Time: o.created}, CreatedBy: "mnemo: /usr/local/bin/mnemo " + o.version}},
	)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = p.os, p.arch
	cf.Created = v1.Time{Time: o.created}
	labels := map[string]string{
		"org.opencontainers.image.title":       "mnemo",
		"org.opencontainers.image.description": "Long-term and short-term memory for AI agents",
		"org.opencontainers.image.version":     o.version,
		"org.opencontainers.image.revision":    o.commit,
		"org.opencontainers.image.created":     o.created.Format(time.RFC3339),
		"org.opencontainers.image.source":      o.source,
	}
	cf.Config = v1.Config{
		User:       fmt.Sprintf("%d:%d", uid, uid),
		WorkingDir: "/data",
		Entrypoint: []string{"/usr/local/bin/mnemo"},
		// The image's configuration is the default command's, not the
		// environment's: `docker run … mcp` and the other commands need
		// no key.
		Cmd: []string{"--config", "/etc/mnemo/mnemo.yaml", "serve", "--addr", "0.0.0.0:7077"},
		Env: []string{
			"PATH=/usr/local/bin",
			"HOME=/home/" + user,
			"MNEMO_DATA=/data",
			"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
		},
		ExposedPorts: map[string]struct{}{"7077/tcp": {}},
		Volumes:      map[string]struct{}{"/data": {}},
		Labels:       labels,
		// The OCI image spec has no health check; Docker's image config
		// does, and Docker and Podman read it from an OCI image's config
		// too (other runtimes ignore it).
		Healthcheck: &v1.HealthConfig{
			Test:        []string{"CMD", "/usr/local/bin/mnemo-healthcheck", "http://127.0.0.1:7077/healthz"},
			Interval:    30 * time.Second,
			Timeout:     5 * time.Second,
			StartPeriod: 30 * time.Second,
			Retries:     3,
		},
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(img, map[string]string{
		"org.opencontainers.image.version":  o.version,
		"org.opencontainers.image.revision": o.commit,
		"org.opencontainers.image.created":  o.created.Format(time.RFC3339),
		"org.opencontainers.image.source":   o.source,
	}).(v1.Image), nil
}

// baseLayer is the layer every platform shares.
func baseLayer(o options) (v1.Layer, error) {
	certs, err := os.ReadFile(o.certs)
	if err != nil {
		return nil, err
	}
	cfg, err := os.ReadFile(o.config)
	if err != nil {
		return nil, err
	}
	var tb tarBuilder
	tb.dir("etc/", 0o755, 0)
	tb.file("etc/passwd", 0o644, 0, fmt.Appendf(nil, "root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:/home/%s:/sbin/nologin\n", user, uid, uid, user, user))
	tb.file("etc/group", 0o644, 0, fmt.Appendf(nil, "root:x:0:\n%s:x:%d:\n", user, uid))
	tb.dir("etc/mnemo/", 0o755, 0)
	tb.file("etc/mnemo/mnemo.yaml", 0o644, 0, cfg)
	tb.dir("etc/ssl/", 0o755, 0)
	tb.dir("etc/ssl/certs/", 0o755, 0)
	tb.file("etc/ssl/certs/ca-certificates.crt", 0o644, 0, certs)
	tb.dir("data/", 0o755, uid)
	tb.dir("home/", 0o755, 0)
	tb.dir("home/"+user+"/", 0o700, uid)
	tb.dir("tmp/", 0o1777, 0)
	if len(o.notices) > 0 {
		tb.dir("usr/", 0o755, 0)
		tb.dir("usr/share/", 0o755, 0)
		tb.dir("usr/share/doc/", 0o755, 0)
		tb.dir("usr/share/doc/mnemo/", 0o755, 0)
		tb.dir("usr/share/doc/mnemo/notices/", 0o755, 0)
		for _, n := range o.notices {
			name, file, ok := strings.Cut(n, "=")
			if !ok || name == "" || strings.Contains(name, "..") {
				return nil, fmt.Errorf("-notice %q: want NAME=FILE", n)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			tb.file("usr/share/doc/mnemo/notices/"+name, 0o644, 0, b)
		}
	}
	return tb.layer(o.created)
}

// tarBuilder writes a layer's tar in the order its entries are added,
// with fixed times and owners.
type tarBuilder struct {
	entries []entry
}

type entry struct {
	name string
	mode int64
	uid  int
	data []byte
	dir  bool
}

func (t *tarBuilder) dir(name string, mode int64, owner int) {
	t.entries = append(t.entries, entry{name: name, mode: mode, uid: owner, dir: true})
}

func (t *tarBuilder) file(name string, mode int64, owner int, data []byte) {
	t.entries = append(t.entries, entry{name: name, mode: mode, uid: owner, data: data})
}

func (t *tarBuilder) layer(mtime time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range t.entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: mtime, Format: tar.FormatPAX}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}

// tarDir writes the OCI layout at dir as one tarball, its entries sorted
// and timed at mtime.
func tarDir(dir, dst string, mtime time.Time) error {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		names = append(names, path)
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(names)
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	for _, path := range names {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		h := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, ModTime: mtime, Typeflag: tar.TypeReg, Size: fi.Size(), Format: tar.FormatPAX}
		if fi.IsDir() {
			h.Name, h.Mode, h.Typeflag, h.Size = h.Name+"/", 0o755, tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !fi.IsDir() {
			if err := copyFile(tw, path); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
