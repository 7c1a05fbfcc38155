package concat_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mnemo-dev/mnemo/embed/concat"
)

// fixed embeds a text as vec scaled by the text's length, or fails with err.
type fixed struct {
	name string
	vec  []float32
	err  error
}

func (f fixed) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if f.err != nil {
		return nil, f.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(f.vec))
		for j, x := range f.vec {
			v[j] = x * float32(len(t))
		}
		out[i] = v
	}
	return out, nil
}

func (f fixed) Dimension() int { return len(f.vec) }
func (f fixed) Model() string  { return f.name }

// TestEmbed checks that each text's vector is its parts' unit vectors, in
// the parts' order, each scaled by the square root of its weight, and that
// a part's failure fails the whole, whichever part it is: for a batch,
// whose parts embed side by side, and for one text, whose parts embed one
// after the other.
func TestEmbed(t *testing.T) {
	boom := errors.New("boom")
	a := fixed{name: "a", vec: []float32{3, 4}}
	b := fixed{name: "b", vec: []float32{0, 0, 2}}
	c := fixed{name: "c", vec: []float32{1}}
	tests := []struct {
		name    string
		parts   []concat.Part
		want    []float32 // for every text: the vectors are unit per part
		wantErr error
	}{
		{"two parts", []concat.Part{{a, 1}, {b, 3}},
			[]float32{0.6 * 0.5, 0.8 * 0.5, 0, 0, float32(math.Sqrt(0.75))}, nil},
		{"three parts", []concat.Part{{b, 1}, {c, 1}, {a, 2}},
			[]float32{0, 0, 0.5, 0.5, 0.6 * float32(math.Sqrt(0.5)), 0.8 * float32(math.Sqrt(0.5))}, nil},
		{"the first part fails", []concat.Part{{fixed{name: "x", vec: []float32{1}, err: boom}, 1}, {a, 1}}, nil, boom},
		{"a later part fails", []concat.Part{{a, 1}, {c, 1}, {fixed{name: "x", vec: []float32{1}, err: boom}, 1}}, nil, boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := concat.New(tt.parts...)
			if err != nil {
				t.Fatal(err)
			}
			for _, texts := range [][]string{{"one", "three", strings.Repeat("x", 40)}, {"one"}} {
				got, err := e.Embed(t.Context(), texts)
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) {
						t.Fatalf("Embed of %d texts: %v, want %v", len(texts), err, tt.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(texts) {
					t.Fatalf("%d vectors for %d texts", len(got), len(texts))
				}
				for i, v := range got {
					if len(v) != e.Dimension() || len(v) != len(tt.want) {
						t.Fatalf("text %d of %d: %d dimensions, want %d", i, len(texts), len(v), len(tt.want))
					}
					for j := range v {
						if math.Abs(float64(v[j]-tt.want[j])) > 1e-6 {
							t.Fatalf("text %d of %d: %v, want %v", i, len(texts), v, tt.want)
						}
					}
				}
			}
		})
	}
}
