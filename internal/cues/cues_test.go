package cues

import (
	"reflect"
	"testing"
)

func TestCues(t *testing.T) {
	if e, ok := Emotion("thanks, that helped"); !ok || e != "grateful" {
		t.Errorf("Emotion = %q, %v", e, ok)
	}
	if e, ok := Emotion("the build ran"); ok || e != "" {
		t.Errorf("no cue: Emotion = %q, %v", e, ok)
	}
	text := "My name is Ada Lovelace and I live in London. Please remember that I take tea without sugar."
	if got, want := Variables(text), map[string]string{"name": "Ada Lovelace", "location": "London"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Variables = %v, want %v", got, want)
	}
	if got := Facts(text); len(got) != 1 || got[0] != "I take tea without sugar" {
		t.Errorf("Facts = %q", got)
	}
	if Variables("hello") != nil || Facts("hello") != nil {
		t.Error("nothing said: want nil variables and facts")
	}
}
