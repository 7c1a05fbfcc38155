// Package cues reads a user's text by rule, without a model: emotion from
// cue words (English and Chinese), and variables and facts from a few
// sentence patterns ("my name is …", "remember that …").
package cues

import (
	"regexp"
	"slices"
	"strings"
)

var (
	emotions = []struct {
		emotion string
		cues    []string
	}{
		{"angry", []string{"angry", "furious", "annoyed", "irritated", "mad at", "ridiculous", "生气", "愤怒", "烦死", "气死", "讨厌"}},
		{"sad", []string{"sad", "unhappy", "depressed", "upset", "disappointed", "miss ", "lonely", "cry", "难过", "伤心", "失望", "沮丧", "哭"}},
		{"anxious", []string{"worried", "anxious", "nervous", "stressed", "afraid", "scared", "panic", "担心", "焦虑", "紧张", "害怕", "压力"}},
		{"frustrated", []string{"frustrated", "stuck", "doesn't work", "does not work", "not working", "again?!", "still broken", "崩溃", "搞不定", "又坏了"}},
		{"grateful", []string{"thank", "thanks", "grateful", "appreciate", "谢谢", "感谢", "多谢"}},
		{"happy", []string{"happy", "glad", "great", "awesome", "excited", "love it", "wonderful", "yay", "开心", "高兴", "太好了", "棒", "兴奋"}},
		{"confused", []string{"confused", "don't understand", "do not understand", "what do you mean", "unclear", "不明白", "不懂", "困惑", "什么意思"}},
	}
	variables = []struct {
		name string
		re   *regexp.Regexp
	}{
		{"name", regexp.MustCompile(`\b(?i:my name is|call me|i am called|i'm called)\s+(\p{Lu}[\p{L}'-]*(?:\s\p{Lu}[\p{L}'-]*)?)`)},
		{"name", regexp.MustCompile(`(?:我叫|我的名字是|叫我)\s*([\p{Han}A-Za-z]{1,12}?)(?:[，。,.!！\s]|$)`)},
		{"location", regexp.MustCompile(`\b(?i:i live in|i'm from|i am from|i'm based in|i am based in)\s+(\p{Lu}[\p{L}'-]*(?:\s\p{Lu}[\p{L}'-]*)*)`)},
		{"location", regexp.MustCompile(`(?:我住在|我来自|我在)\s*([\p{Han}]{2,10}?)(?:工作|生活|上班|[，。,.!！\s]|$)`)},
		{"language", regexp.MustCompile(`(?i)\b(?:reply|answer|respond|speak|write)\s+(?:to me\s+)?in\s+([\p{L}]+)`)},
		{"timezone", regexp.MustCompile(`(?i)\bmy time ?zone is\s+([A-Za-z_/+\-0-9:]+)`)},
	}
	facts = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\b(?:please\s+)?(?:remember|note|keep in mind|don't forget)\s+(?:that\s+)?(.{3,500}?)(?:[.!?]\s|[.!?]?$)`),
		regexp.MustCompile(`(?:请)?(?:记住|记得|别忘了)[:：]?\s*(.{2,300}?)(?:[。！？]|$)`),
	}
)

// Emotion returns the emotion of the first cue found in lower (text in
// lower case); false when none matches.
func Emotion(lower string) (string, bool) {
	for _, e := range emotions {
		if slices.ContainsFunc(e.cues, func(c string) bool { return strings.Contains(lower, c) }) {
			return e.emotion, true
		}
	}
	return "", false
}

// Variables returns what text says of the user's name, location, language
// and timezone, the first mention of each; nil when it says none.
func Variables(text string) map[string]string {
	var vars map[string]string
	for _, p := range variables {
		if m := p.re.FindStringSubmatch(text); m != nil {
			if vars == nil {
				vars = map[string]string{}
			}
			if _, ok := vars[p.name]; !ok {
				vars[p.name] = strings.TrimSpace(m[1])
			}
		}
	}
	return vars
}

// Facts returns what text asks to be remembered ("remember that …"), up to
// four per pattern.
func Facts(text string) []string {
	var out []string
	for _, p := range facts {
		for _, m := range p.FindAllStringSubmatch(text, 4) {
			if f := strings.TrimSpace(m[1]); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}
