package sqlrow

import (
	"database/sql"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-dev/mnemo"
)

func TestCheckTime(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    time.Time
		ok   bool
	}{
		{"zero means never", time.Time{}, true},
		{"epoch", time.Unix(0, 0), true},
		{"now", time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), true},
		{"earliest", mnemo.EarliestTime, true},
		{"latest, an open window's end", mnemo.LatestTime, true},
		{"before the earliest", mnemo.EarliestTime.Add(-time.Nanosecond), false},
		{"after the latest", mnemo.LatestTime.Add(time.Nanosecond), false},
		{"year 1", time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC), false},
		{"year 9999", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckTime(tc.t)
			if tc.ok != (err == nil) {
				t.Fatalf("CheckTime(%v) = %v, want ok %v", tc.t, err, tc.ok)
			}
			if err != nil && (mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), "outside the supported range, "+mnemo.TimeRange)) {
				t.Fatalf("CheckTime(%v) = %v, want EINVALID out of range", tc.t, err)
			}
		})
	}
}

func TestNanos(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	for _, tc := range []struct {
		name string
		t    time.Time
		n    int64
	}{
		{"epoch", time.Unix(0, 0), 0},
		{"nanosecond kept", time.Unix(1, 7), 1_000_000_007},
		{"before epoch", time.Unix(-1, 0), -1_000_000_000},
		{"zone dropped", time.Date(1970, 1, 1, 1, 0, 0, 0, paris), 0},
		{"int64's least", time.Unix(0, math.MinInt64), math.MinInt64},
		{"int64's most", time.Unix(0, math.MaxInt64), math.MaxInt64},
		{"the range's start", mnemo.EarliestTime, mnemo.EarliestTime.UnixNano()},
		{"the range's end", mnemo.LatestTime, mnemo.LatestTime.UnixNano()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n := Nanos(tc.t); n != tc.n {
				t.Fatalf("Nanos = %d, want %d", n, tc.n)
			}
			back := FromNanos(tc.n)
			if !back.Equal(tc.t) || back.Location() != time.UTC {
				t.Fatalf("FromNanos(%d) = %v, want %v in UTC", tc.n, back, tc.t)
			}
		})
	}
}

func TestNulls(t *testing.T) {
	at := time.Unix(5, 0)
	for _, tc := range []struct {
		name string
		got  any
		want any // nil for NULL
	}{
		{"zero time", NullTime(time.Time{}), nil},
		{"time", NullTime(at), int64(5e9)},
		{"nil time", NullTimePtr(nil), nil},
		{"time pointer", NullTimePtr(&at), int64(5e9)},
		{"empty string", NullString(""), nil},
		{"string", NullString("k"), "k"},
		{"no JSON", NullJSON(nil), nil},
		{"empty JSON", NullJSON(json.RawMessage{}), nil},
		{"JSON", NullJSON(json.RawMessage(`{"a":1}`)), `{"a":1}`},
		{"no data expiry", DataExpiredAt(json.RawMessage(`{"a":1}`)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := reflect.ValueOf(tc.got)
			if v.IsNil() {
				if tc.want != nil {
					t.Fatalf("got NULL, want %v", tc.want)
				}
				return
			}
			if got := v.Elem().Interface(); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestEmbedding(t *testing.T) {
	for _, tc := range []struct {
		name   string
		v      []float32
		bytes  int
		finite bool
	}{
		{"empty is NULL", nil, 0, true},
		{"one", []float32{1}, 4, true},
		{"exact bits", []float32{0.1, -2.5e-38, math.MaxFloat32, float32(math.Copysign(0, -1))}, 16, true},
		{"NaN", []float32{1, float32(math.NaN())}, 8, false},
		{"infinity", []float32{float32(math.Inf(-1))}, 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := EncodeEmbedding(tc.v)
			if len(b) != tc.bytes || (tc.bytes == 0 && b != nil) {
				t.Fatalf("EncodeEmbedding = %d bytes (nil %v), want %d", len(b), b == nil, tc.bytes)
			}
			back := DecodeEmbedding(b)
			if len(back) != len(tc.v) {
				t.Fatalf("DecodeEmbedding = %v, want %v", back, tc.v)
			}
			for i := range back {
				if math.Float32bits(back[i]) != math.Float32bits(tc.v[i]) {
					t.Fatalf("component %d = %v, want %v", i, back[i], tc.v[i])
				}
			}
			if Finite(tc.v) != tc.finite {
				t.Fatalf("Finite = %v, want %v", !tc.finite, tc.finite)
			}
		})
	}
}

func TestCheckMemory(t *testing.T) {
	far := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		m    mnemo.Memory
		want string // "" for valid
	}{
		{"empty", mnemo.Memory{ID: "a"}, ""},
		{"JSON data and source", mnemo.Memory{ID: "a", Data: json.RawMessage(`[1]`), Source: json.RawMessage(`"x"`)}, ""},
		{"created out of range", mnemo.Memory{ID: "a", CreatedAt: far}, "created_at 3000-01-01T00:00:00Z is outside the supported range"},
		{"accessed out of range", mnemo.Memory{ID: "a", AccessedAt: far}, "accessed_at 3000-01-01T00:00:00Z is outside the supported range"},
		{"expires out of range", mnemo.Memory{ID: "a", ExpiresAt: &far}, "expires_at 3000-01-01T00:00:00Z is outside the supported range"},
		{"occurred out of range", mnemo.Memory{ID: "a", Occurred: &mnemo.Occurred{Start: time.Date(1000, 6, 15, 0, 0, 0, 0, time.UTC), End: time.Date(1000, 6, 16, 0, 0, 0, 0, time.UTC)}}, "occurred.start 1000-06-15T00:00:00Z is outside the supported range"},
		{"valid_to out of range", mnemo.Memory{ID: "a", ValidTo: &far}, "valid_to 3000-01-01T00:00:00Z is outside the supported range"},
		{"data not JSON", mnemo.Memory{ID: "a", Data: json.RawMessage(`{`)}, "memory a: data is not valid JSON"},
		{"source not JSON", mnemo.Memory{ID: "a", Source: json.RawMessage(`x`)}, "memory a: source is not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckMemory(&tc.m)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || mnemo.ErrorCode(err) != mnemo.EINVALID || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckMemory = %v, want EINVALID %q", err, tc.want)
			}
		})
	}
}

// fakeRow scans column values the way a driver does into Scan.Dest.
func fakeRow(t *testing.T, s *Scan, cols []any) {
	t.Helper()
	dest := s.Dest()
	if len(dest) != len(cols) {
		t.Fatalf("%d destinations for %d columns", len(dest), len(cols))
	}
	for i, c := range cols {
		if sc, ok := dest[i].(sql.Scanner); ok {
			if err := sc.Scan(c); err != nil {
				t.Fatal(err)
			}
			continue
		}
		d := reflect.ValueOf(dest[i]).Elem()
		if c == nil {
			d.Set(reflect.Zero(d.Type()))
			continue
		}
		v := reflect.ValueOf(c)
		if d.Kind() == reflect.Pointer {
			p := reflect.New(d.Type().Elem())
			p.Elem().Set(v)
			v = p
		}
		d.Set(v)
	}
}

func TestScan(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	full := []any{"m1", "t", "a", "s", "k",
		"content", `{"x":1}`, "sum",
		"fact", "c", 2, 0.5, 0.9, `["x","y"]`, "public", true,
		`{"by":"me"}`,
		Nanos(created), Nanos(created) + 1, Nanos(created) + 2, 3, Nanos(created) + 3, true,
		0.7, 1.5, 4,
		EncodeEmbedding([]float32{1, 2}), "model",
		Nanos(created) - 10, Nanos(created) - 5, "last week", mnemo.OccurredText,
		Nanos(created) + 7, `["Ana","Leo"]`}
	bare := append([]any(nil), full...)
	for _, i := range []int{3, 4, 6, 13, 16, 19, 21, 26, 28, 29, 30, 31, 32, 33} {
		bare[i] = nil
	}
	for _, tc := range []struct {
		name string
		cols []any
		want func(*mnemo.Memory)
		err  string
	}{
		{"every column", full, func(m *mnemo.Memory) {
			exp := created.Add(3)
			m.SessionID, m.Key, m.Data, m.Tags, m.Source = "s", "k", json.RawMessage(`{"x":1}`), []string{"x", "y"}, json.RawMessage(`{"by":"me"}`)
			m.AccessedAt, m.ExpiresAt, m.Embedding = created.Add(2), &exp, []float32{1, 2}
			m.Occurred = &mnemo.Occurred{Start: created.Add(-10), End: created.Add(-5), Expression: "last week", Source: mnemo.OccurredText}
			vt := created.Add(7)
			m.ValidTo, m.Entities = &vt, []string{"Ana", "Leo"} // REC-27, REC-28
		}, ""},
		{"NULLs", bare, func(m *mnemo.Memory) { m.Occurred = mnemo.CreatedOccurred(created) }, ""},
		{"bad entities", append(append([]any(nil), full[:33]...), `[`), nil, "memory m1: entities:"},
		{"bad tags", append(append(append([]any(nil), full[:13]...), `{`), full[14:]...), nil, "memory m1: tags:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Scan
			fakeRow(t, &s, tc.cols)
			m, err := s.Memory()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Memory() = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := mnemo.Memory{ID: "m1", TenantID: "t", AgentID: "a", Content: "content", Summary: "sum",
				Type: "fact", Category: "c", Priority: 2, Importance: 0.5, Confidence: 0.9, SecurityLevel: "public", Pinned: true,
				CreatedAt: created, UpdatedAt: created.Add(1), AccessCount: 3, Archived: true,
				Vitality: 0.7, Stability: 1.5, Version: 4, EmbeddingModel: "model"}
			tc.want(&want)
			if !reflect.DeepEqual(m, want) {
				t.Fatalf("Memory() =\n%+v\nwant\n%+v", m, want)
			}
		})
	}
}

func TestCheckFilter(t *testing.T) {
	ok, far := time.Unix(10, 0), time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		f     mnemo.Filter
		valid bool
	}{
		{"empty", mnemo.Filter{}, true},
		{"in range", mnemo.Filter{CreatedAfter: &ok, CreatedBefore: &ok, Now: ok}, true},
		{"created after", mnemo.Filter{CreatedAfter: &far}, false},
		{"created before", mnemo.Filter{CreatedBefore: &far}, false},
		{"now", mnemo.Filter{Now: far}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckFilter(&tc.f)
			if tc.valid != (err == nil) || (err != nil && mnemo.ErrorCode(err) != mnemo.EINVALID) {
				t.Fatalf("CheckFilter = %v, want valid %v", err, tc.valid)
			}
		})
	}
}

func TestEmbeddingDest(t *testing.T) {
	tests := []struct {
		name    string
		src     any
		want    []float32
		wantErr bool
	}{
		{"bytes", EncodeEmbedding([]float32{1, -2.5}), []float32{1, -2.5}, false},
		{"text", string(EncodeEmbedding([]float32{3})), []float32{3}, false},
		{"null", nil, nil, false},
		{"empty", []byte{}, nil, false},
		{"number", int64(7), nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := []float32{9} // overwritten, as a reused destination is
			err := embeddingDest{&v}.Scan(tc.src)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Scan(%v) error %v, want error %v", tc.src, err, tc.wantErr)
			}
			if !tc.wantErr && !slices.Equal(v, tc.want) {
				t.Fatalf("Scan(%v) = %v, want %v", tc.src, v, tc.want)
			}
		})
	}
}

// TestUnmarshalStrings: the fast path reads what json.Unmarshal reads, nil
// and empty told apart, and leaves the rest, errors too, to it.
func TestUnmarshalStrings(t *testing.T) {
	tests := []string{
		`null`, `[]`, `["a"]`, `["Caroline","Melanie"]`, `["",""]`, `["é","日本","😀"]`,
		`["a","b","c","d","e","f"]`, `["<tag>"]`, `["\u003ctag\u003e"]`, `["a\"b"]`, `["a\\b"]`,
		`[ "a" ]`, `["a", "b"]`, "[\"a\tb\"]", `["a",]`, `[,"a"]`, `["a""b"]`, `["a",1]`, `[null]`,
		`[1]`, `["a"`, `"a"]`, `[`, `]`, ``, `"a"`, `{}`, "[\"\xff\"]", `["a"]x`, ` null`, `nul`,
	}
	for _, in := range tests {
		var want, got []string
		wantErr := json.Unmarshal([]byte(in), &want)
		gotErr := unmarshalStrings(in, &got)
		if (gotErr != nil) != (wantErr != nil) {
			t.Errorf("%q: error %v, json.Unmarshal's %v", in, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			continue
		}
		if !slices.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("%q: %#v, json.Unmarshal's %#v", in, got, want)
		}
	}
}

func FuzzUnmarshalStrings(f *testing.F) {
	for _, s := range []string{`null`, `[]`, `["a","b"]`, `["a\"b"]`, "[\"\xff\"]", `[1]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var want, got []string
		wantErr := json.Unmarshal([]byte(in), &want)
		gotErr := unmarshalStrings(in, &got)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, json.Unmarshal's %v", in, gotErr, wantErr)
		}
		if wantErr == nil && (!slices.Equal(got, want) || (got == nil) != (want == nil)) {
			t.Fatalf("%q: %#v, json.Unmarshal's %#v", in, got, want)
		}
	})
}
